package emulator

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The six categories of search.cc, each with its nummer and relurl form;
// persoonnummer is -1 except for a gift.
var relurlForm = map[string]*regexp.Regexp{
	"Document":        regexp.MustCompile(`^get/[0-9]{4}D[0-9]+$`),
	"Activiteit":      regexp.MustCompile(`^activiteit\.html\?nummer=[0-9]{4}A[0-9]{5}$`),
	"Verslag":         regexp.MustCompile(`^verslag\.html\?vergaderingid=[0-9a-f-]{36}$`),
	"Toezegging":      regexp.MustCompile(`^toezegging\.html\?nummer=TZ[0-9]{6}-[0-9]{3}$`),
	"PersoonGeschenk": regexp.MustCompile(`^persoon\.html\?nummer=[0-9]+#[0-9a-f-]{36}$`),
	"OODocument":      regexp.MustCompile(`^oo\.html\?nummer=[0-9a-f-]{36}_1$`),
}

func TestSearchCategories(t *testing.T) {
	seen := map[string]int{}
	for _, q := range []string{"stikstof", "woningmarkt", "Groningen", "landbouw"} {
		rec := searchReq(t, map[string]string{"q": q, "soorten": "alles"})
		// exactly tkserv's nine fields: nothing invented (no titel, soort, uuid)
		var raw struct {
			Results []map[string]any `json:"results"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &raw); err != nil {
			t.Fatal(err)
		}
		for _, r := range raw.Results {
			var keys []string
			for k := range r {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			if strings.Join(keys, ",") != "bijgewerkt,category,datum,nummer,onderwerp,persoonnummer,relurl,score,snip" {
				t.Fatalf("fields %v", keys)
			}
		}
		for _, r := range search(t, map[string]string{"q": q}).Results {
			seen[r.Category]++
			form, ok := relurlForm[r.Category]
			if !ok {
				t.Fatalf("unknown category %q", r.Category)
			}
			if !form.MatchString(r.Relurl) || !strings.Contains(r.Relurl, r.Nummer) {
				t.Errorf("%s relurl %q nummer %q", r.Category, r.Relurl, r.Nummer)
			}
			if (r.Persoonnummer == -1) == (r.Category == "PersoonGeschenk") {
				t.Errorf("%s persoonnummer %d", r.Category, r.Persoonnummer)
			}
		}
	}
	for c := range relurlForm {
		if seen[c] == 0 {
			t.Errorf("no %s hit in %v", c, seen)
		}
	}
	// soorten=activiteiten: activities only, in the same order
	acts := search(t, map[string]string{"q": "stikstof", "soorten": "activiteiten"}).Results
	if len(acts) == 0 {
		t.Fatal("no activities")
	}
	for i, r := range acts {
		if r.Category != "Activiteit" {
			t.Errorf("activiteiten gave %s", r.Category)
		}
		if i > 0 && r.Datum[:10] > acts[i-1].Datum[:10] {
			t.Error("activities not newest first")
		}
	}
}

// /getdoc serves document numbers and Document or Verslag GUIDs; a
// Verslag hit's nummer is its Vergadering's id, which /verslag.html
// serves and /getdoc does not know (tkserv.cc).
func TestVerslagFetch(t *testing.T) {
	h, _ := handlers()
	eh := h.(*handler)
	eh.buildIndex()
	var v *item
	for k := range eh.items {
		if eh.items[k].Category == "Verslag" {
			v = &eh.items[k]
			break
		}
	}
	if v == nil {
		t.Fatal("no Verslag")
	}
	if rec := get(t, "/getdoc/"+v.verslagID); rec.Code != 200 || !strings.Contains(rec.Body.String(), "<p>") {
		t.Fatalf("getdoc verslag GUID: %d %s", rec.Code, rec.Body.String())
	}
	if rec := get(t, "/getdoc/"+v.Nummer); rec.Code != 404 || rec.Body.String() != "Found nothing!!" {
		t.Fatalf("getdoc vergadering id: %d %s", rec.Code, rec.Body.String())
	}
	rec := get(t, "/verslag.html?vergaderingid="+v.Nummer)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), v.Onderwerp) {
		t.Fatalf("verslag.html: %d %s", rec.Code, rec.Body.String())
	}
	if rec := get(t, "/verslag.html?vergaderingid="+v.verslagID); rec.Code != 404 {
		t.Fatalf("verslag.html with the Verslag GUID: %d", rec.Code)
	}
	if rec := get(t, "/verslag.html?vergaderingid=../../etc"); rec.Code != 404 {
		t.Fatalf("junk: %d", rec.Code)
	}
}
