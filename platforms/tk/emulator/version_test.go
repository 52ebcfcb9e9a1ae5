package emulator

import (
	"encoding/json"
	"encoding/xml"
	"net/http"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

// properties reads a $metadata answer: entity type → property names.
func properties(t *testing.T, body []byte) map[string][]string {
	t.Helper()
	var doc struct {
		Schemas []struct {
			Types []struct {
				Name  string `xml:"Name,attr"`
				Props []struct {
					Name string `xml:"Name,attr"`
				} `xml:"Property"`
			} `xml:"EntityType"`
		} `xml:"DataServices>Schema"`
	}
	if err := xml.Unmarshal(body, &doc); err != nil {
		t.Fatalf("$metadata is not XML: %v", err)
	}
	out := map[string][]string{}
	for _, s := range doc.Schemas {
		for _, ty := range s.Types {
			for _, p := range ty.Props {
				out[ty.Name] = append(out[ty.Name], p.Name)
			}
		}
	}
	return out
}

func has(list []string, name string) bool {
	for _, s := range list {
		if s == name {
			return true
		}
	}
	return false
}

func TestMetadataPerVersion(t *testing.T) {
	code, body, _ := get(t, "/OData/v4/2.0/$metadata")
	mustOK(t, code, body)
	v4 := properties(t, body)
	code, body, _ = get(t, "/OData/v5/$metadata")
	mustOK(t, code, body)
	v5 := properties(t, body)
	for _, n := range []string{"DocumentNummer", "Volgnummer", "DatumRegistratie"} {
		if !has(v4["Document"], n) || has(v5["Document"], n) {
			t.Errorf("%s: in v4 %v, in v5 %v", n, has(v4["Document"], n), has(v5["Document"], n))
		}
	}
	for _, n := range []string{"Nummer", "Ondernummer"} {
		if has(v4["Document"], n) || !has(v5["Document"], n) {
			t.Errorf("%s: in v4 %v, in v5 %v", n, has(v4["Document"], n), has(v5["Document"], n))
		}
	}
	// Types without a known rename are the same in both.
	if strings.Join(v4["Commissie"], ",") != strings.Join(v5["Commissie"], ",") || len(v5["Commissie"]) == 0 {
		t.Errorf("Commissie differs: %v / %v", v4["Commissie"], v5["Commissie"])
	}
	code, body, _ = get(t, "/OData/v5/")
	mustOK(t, code, body)
	if e := decodeEnv(t, body); !strings.HasSuffix(strings.Split(string(body), `"`)[3], "/OData/v5/$metadata") || len(e.Value) != len(setOrder) {
		t.Errorf("v5 service document: %s", body)
	}
}

// The same rows under each version's names: v5's Nummer is v4's
// DocumentNummer, and a v4 null Volgnummer is -1 in v5's Ondernummer.
func TestV5RenamedDocumentFields(t *testing.T) {
	code, body, _ := get(t, "/OData/v4/2.0/Document?$select=Id,DocumentNummer,Volgnummer&$orderby=Id&$top=100")
	mustOK(t, code, body)
	var v4 struct {
		Value []struct {
			ID         string `json:"Id"`
			Nummer     string `json:"DocumentNummer"`
			Volgnummer *int   `json:"Volgnummer"`
		} `json:"value"`
	}
	_ = json.Unmarshal(body, &v4)
	code, body, _ = get(t, "/OData/v5/Document?$select=Id,Nummer,Ondernummer&$orderby=Id&$top=100")
	mustOK(t, code, body)
	var v5 struct {
		Value []map[string]any `json:"value"`
	}
	_ = json.Unmarshal(body, &v5)
	if len(v4.Value) != 100 || len(v5.Value) != 100 {
		t.Fatalf("%d and %d rows", len(v4.Value), len(v5.Value))
	}
	nulls := 0
	for i, d := range v4.Value {
		n := v5.Value[i]
		want := -1.0
		if d.Volgnummer != nil {
			want = float64(*d.Volgnummer)
		} else {
			nulls++
		}
		if n["Id"] != d.ID || n["Nummer"] != d.Nummer || n["Ondernummer"] != want || len(n) != 3 {
			t.Fatalf("row %d: v4 %+v, v5 %v", i, d, n)
		}
	}
	if nulls == 0 {
		t.Fatal("no document without Volgnummer among 100: the -1 case is untested")
	}
	// -1 is a value a filter can match.
	code, body, _ = get(t, "/OData/v5/Document?$filter="+q("Ondernummer eq -1")+"&$select=Ondernummer&$top=5")
	mustOK(t, code, body)
	if e := decodeEnv(t, body); len(e.Value) != 5 {
		t.Fatalf("Ondernummer eq -1: %s", body)
	}
	// Old names are unknown in v5, new ones unknown in v4: 400 naming them.
	for target, name := range map[string]string{
		"/OData/v5/Document?$filter=" + q("DocumentNummer eq '2024D01000'"): "DocumentNummer",
		"/OData/v5/Document?$select=DatumRegistratie":                       "DatumRegistratie",
		"/OData/v4/2.0/Document?$orderby=Ondernummer":                       "Ondernummer",
	} {
		code, body, _ := get(t, target)
		if code != http.StatusBadRequest || !strings.Contains(string(body), "Could not find a property named '"+name+"'") {
			t.Errorf("%s: %d %s", target, code, body)
		}
	}
}

func TestV5TopCapAndPaging(t *testing.T) {
	code, body, _ := get(t, "/OData/v5/Document?$top=101")
	if code != http.StatusBadRequest || !strings.Contains(string(body), "The limit of '100' for Top query has been exceeded. The value from the incoming request is '101'.") {
		t.Fatalf("$top=101 on v5: %d %s", code, body)
	}
	code, body, _ = get(t, "/OData/v5/Document?$top=100&$count=true")
	mustOK(t, code, body)
	if e := decodeEnv(t, body); len(e.Value) != 100 || e.NextLink != "" || e.Count == nil || *e.Count != 8000 {
		t.Fatalf("$top=100: %d rows, next %q", len(e.Value), e.NextLink)
	}
	// v4 still serves a larger $top, capped at 250 with a nextLink.
	code, body, _ = get(t, "/OData/v4/2.0/Document?$select=Id&$top=300")
	mustOK(t, code, body)
	if e := decodeEnv(t, body); len(e.Value) != MaxTop || !strings.HasSuffix(e.NextLink, "$top=50&$skip=250") {
		t.Fatalf("v4 $top=300: %d rows, next %q", len(e.Value), e.NextLink)
	}
	// Without $top, v5 pages by 100.
	code, body, _ = get(t, "/OData/v5/Commissie?$select=Id&$orderby=Id")
	mustOK(t, code, body)
	if e := decodeEnv(t, body); len(e.Value) != 41 || e.NextLink != "" {
		t.Fatalf("commissies: %d rows, next %q", len(e.Value), e.NextLink)
	}
	code, body, _ = get(t, "/OData/v5/Document?$select=Id&$orderby=Id")
	mustOK(t, code, body)
	if e := decodeEnv(t, body); len(e.Value) != MaxTopV5 || !strings.HasPrefix(e.NextLink, "http://tk.test/OData/v5/Document?$select=Id&$orderby=Id&$skip=100") {
		t.Fatalf("v5 without $top: %d rows, next %q", len(e.Value), e.NextLink)
	}
}

// A lower PageSize makes the server page below the client's $top, with a
// nextLink that asks for the rest.
func TestPageSizeDrivesNextLink(t *testing.T) {
	h := New(Config{Seed: 1, Clock: fakeclock.New(fixedNow()), PageSize: 10})
	code, body, _ := do(t, h, http.MethodGet, "/OData/v5/Commissie?$select=Id&$orderby=Id&$top=25")
	mustOK(t, code, body)
	e := decodeEnv(t, body)
	if len(e.Value) != 10 || !strings.HasSuffix(e.NextLink, "$top=15&$skip=10") {
		t.Fatalf("%d rows, next %q", len(e.Value), e.NextLink)
	}
	code, body, _ = do(t, h, http.MethodGet, pathOf(t, e.NextLink))
	mustOK(t, code, body)
	if e = decodeEnv(t, body); len(e.Value) != 10 || !strings.HasSuffix(e.NextLink, "$top=5&$skip=20") {
		t.Fatalf("second page: %d rows, next %q", len(e.Value), e.NextLink)
	}
}

// v5's order without $orderby is not v4's: the Kamer changed it.
func TestV5DefaultOrderDiffers(t *testing.T) {
	first := func(target string) string {
		code, body, _ := get(t, target)
		mustOK(t, code, body)
		var e struct {
			Value []struct {
				ID string `json:"Id"`
			} `json:"value"`
		}
		_ = json.Unmarshal(body, &e)
		return e.Value[0].ID
	}
	if a, b := first("/OData/v4/2.0/Commissie?$select=Id&$top=1"), first("/OData/v5/Commissie?$select=Id&$top=1"); a == b {
		t.Fatalf("same first row %s in both versions", a)
	}
	if a, b := first("/OData/v4/2.0/Commissie?$select=Id&$orderby=Id&$top=1"), first("/OData/v5/Commissie?$select=Id&$orderby=Id&$top=1"); a != b {
		t.Fatalf("explicit order differs: %s / %s", a, b)
	}
}
