package tk

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	emu "github.com/besluitbron/besluitbron/platforms/tk/emulator"
)

var emuNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// emuGetter sends the adapter's requests to an emulator handler and logs
// their paths.
func emuGetter(h http.Handler, log *[]string) Getter {
	return func(r adapters.Request) ([]byte, error) {
		*log = append(*log, r.Path)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(r.Method, "http://gegevensmagazijn.test"+r.Path, nil))
		if rec.Code != http.StatusOK {
			return nil, fmt.Errorf("HTTP %d: %s", rec.Code, rec.Body.String())
		}
		return rec.Body.Bytes(), nil
	}
}

func emuSchema(t *testing.T, get Getter, root string) *Schema {
	t.Helper()
	body, err := get(MetadataRequest(root))
	if err != nil {
		t.Fatal(err)
	}
	md, err := ParseMetadata(body)
	if err != nil {
		t.Fatal(err)
	}
	return NewSchema(root, md)
}

// checkRequests holds every data request to the new version's rules: an
// explicit $orderby ending in Id, and $top at most 100.
func checkRequests(t *testing.T, log []string) {
	t.Helper()
	for _, p := range log {
		if strings.HasSuffix(p, "/$metadata") {
			continue
		}
		u, err := url.Parse(p)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		if ob := q.Get("$orderby"); ob != "Id" && !strings.HasSuffix(ob, ",Id desc") && !strings.HasSuffix(ob, ",Id") {
			t.Errorf("no Id tie-breaker in %s", p)
		}
		if n, err := strconv.Atoi(q.Get("$top")); err != nil || n > PageSize {
			t.Errorf("$top %q in %s", q.Get("$top"), p)
		}
	}
}

var emuHandler = emu.New(emu.Config{Seed: 1, Clock: fakeclock.New(emuNow)})

func TestAgainstEmulatorBothVersions(t *testing.T) {
	for root, nummer := range map[string]string{legacyRoot: "DocumentNummer", DefaultRoot: "Nummer"} {
		t.Run(root, func(t *testing.T) {
			var log []string
			get := emuGetter(emuHandler, &log)
			s := emuSchema(t, get, root)
			e := entityOf(t, s, "Document")
			if e.Name(fNummer) != nummer {
				t.Fatalf("document number resolved to %q", e.Name(fNummer))
			}
			p, err := Search(e, SearchParams{Query: "stikstof", Limit: 5}, get)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Hits) != 5 || p.Total <= 5 || p.TotalApprox || !p.HasMore {
				t.Fatalf("page %+v", p)
			}
			for i, h := range p.Hits {
				if len(h.ID) != 10 || h.ID[4] != 'D' || !strings.Contains(strings.ToLower(h.Title+h.Snippet), "stikstof") ||
					!strings.HasPrefix(h.URL, Public+"/SyncFeed/2.0/Resources/") || (i > 0 && h.Date > p.Hits[i-1].Date) {
					t.Fatalf("hit %d: %+v", i, h)
				}
			}
			body, err := get(DocumentRequest(e, DocumentID{Nummer: p.Hits[0].ID}))
			if err != nil {
				t.Fatal(err)
			}
			d, err := ParseDocument(e, body)
			if err != nil || d.ID != p.Hits[0].ID || d.Meta["guid"] == "" || d.Meta["content_type"] != "application/pdf" {
				t.Fatalf("%+v %v", d, err)
			}
			// A kamerstuk read alone is cited as its hit is, and names its
			// publication in Officiële Bekendmakingen.
			many, err := Search(e, SearchParams{Query: "stikstof", Limit: 50}, get)
			if err != nil {
				t.Fatal(err)
			}
			kamerstukken := 0
			for _, h := range many.Hits {
				if h.Kamerstuk == "" {
					continue
				}
				body, err := get(DocumentRequest(e, DocumentID{Nummer: h.ID}))
				if err != nil {
					t.Fatal(err)
				}
				k, err := ParseDocument(e, body)
				if err != nil || k.Citation != h.Citation || !strings.HasPrefix(k.Citation, "Kamerstukken II ") ||
					len(k.References) != 1 || k.References[0] != (adapters.Reference{Platform: "ob", ID: h.Kamerstuk, Relation: adapters.RelPublishedAs, Label: h.Citation}) {
					t.Fatalf("kamerstuk %s: %+v %v", h.Kamerstuk, k, err)
				}
				kamerstukken++
			}
			if kamerstukken == 0 {
				t.Fatal("no kamerstuk among 50 hits")
			}
			body, err = get(DocumentRequest(e, DocumentID{GUID: d.Meta["guid"]}))
			if err != nil {
				t.Fatal(err)
			}
			if d2, err := ParseDocument(e, body); err != nil || d2.ID != d.ID || d2.Text != d.Text {
				t.Fatalf("by GUID: %+v %v", d2, err)
			}
			// v5 has no registration date; v4 does.
			if _, has := d.Meta["datum_registratie"]; has != (root == legacyRoot) {
				t.Errorf("datum_registratie present=%v", has)
			}

			// Committees: 41, of which 4 ended (two on 2024-07-02).
			l, err := ListAll(entityOf(t, s, "Commissie"), get)
			if err != nil || l.Len() != 41 || l.Truncated {
				t.Fatalf("%d commissies, %v", l.Len(), err)
			}
			if n := len(l.Items(false, emuNow)); n != 37 {
				t.Errorf("%d active commissies now, want 37", n)
			}
			if n := len(l.Items(false, time.Date(2024, 7, 1, 12, 0, 0, 0, time.UTC))); n != 39 {
				t.Errorf("%d active commissies on 2024-07-01, want 39 (EZK and LNV end on the 2nd)", n)
			}
			if n := len(l.Items(true, emuNow)); n != 41 {
				t.Errorf("%d commissies with include_inactive", n)
			}
			f, err := ListAll(entityOf(t, s, "Fractie"), get)
			if err != nil || f.Len() != 20 || len(f.Items(false, emuNow)) != 15 {
				t.Fatalf("fracties %d, active %d, %v", f.Len(), len(f.Items(false, emuNow)), err)
			}
			checkRequests(t, log)
		})
	}
}

// Datum carries the Dutch offset and every emulated document is dated at
// local midnight: a search for one day must hold exactly that day's
// documents, in winter (+01:00) and in summer (+02:00). UTC day bounds
// would return the next day's documents instead.
func TestDayBoundsAgainstEmulator(t *testing.T) {
	data := emu.SharedData(1, emuNow, 0)
	perDay := map[string]int{}
	for i := 0; i < data.Documents(); i++ {
		perDay[data.Document(i).Datum.Format("2006-01-02")]++
	}
	pick := func(month string) string {
		for d := 1; d <= 28; d++ {
			day := fmt.Sprintf("%s-%02d", month, d)
			next := fmt.Sprintf("%s-%02d", month, d+1)
			if perDay[day] > 0 && perDay[next] > 0 {
				return day
			}
		}
		t.Fatalf("no two days in a row with documents in %s", month)
		return ""
	}
	for _, root := range []string{legacyRoot, DefaultRoot} {
		var log []string
		get := emuGetter(emuHandler, &log)
		e := entityOf(t, emuSchema(t, get, root), "Document")
		for _, day := range []string{pick("2025-01"), pick("2025-07")} {
			p, err := Search(e, SearchParams{DateFrom: day, DateTo: day, Limit: 100}, get)
			if err != nil {
				t.Fatal(err)
			}
			if p.Total != perDay[day] || len(p.Hits) != perDay[day] {
				t.Errorf("%s %s: %d hits (total %d), want %d", root, day, len(p.Hits), p.Total, perDay[day])
			}
			for _, h := range p.Hits {
				if h.Date != day {
					t.Errorf("%s %s: hit dated %s", root, day, h.Date)
				}
			}
			// The day before ends at this day's midnight, exclusive.
			prev, _ := time.Parse("2006-01-02", day)
			before := prev.AddDate(0, 0, -1).Format("2006-01-02")
			p, err = Search(e, SearchParams{DateFrom: before, DateTo: before, Limit: 100}, get)
			if err != nil {
				t.Fatal(err)
			}
			if p.Total != perDay[before] {
				t.Errorf("%s %s: total %d, want %d", root, before, p.Total, perDay[before])
			}
			for _, h := range p.Hits {
				if h.Date != before {
					t.Errorf("%s %s: hit dated %s", root, before, h.Date)
				}
			}
		}
	}
}

// With the server paging below the client's $top, lists and searches
// follow @odata.nextLink.
func TestNextLinkAgainstEmulator(t *testing.T) {
	h := emu.New(emu.Config{Seed: 1, Clock: fakeclock.New(emuNow), PageSize: 7})
	for _, root := range []string{legacyRoot, DefaultRoot} {
		var log []string
		get := emuGetter(h, &log)
		s := emuSchema(t, get, root)
		log = nil
		l, err := ListAll(entityOf(t, s, "Commissie"), get)
		if err != nil || l.Len() != 41 {
			t.Fatalf("%d commissies, %v", l.Len(), err)
		}
		seen := map[string]bool{}
		for _, it := range l.Items(true, emuNow) {
			seen[it.Key] = true
		}
		if len(seen) != 41 || len(log) != 6 {
			t.Fatalf("%d distinct, %d requests: %v", len(seen), len(log), log)
		}
		log = nil
		p, err := Search(entityOf(t, s, "Document"), SearchParams{Query: "motie", Limit: 20}, get)
		if err != nil || len(p.Hits) != 20 || len(log) != 3 || !p.HasMore {
			t.Fatalf("%d hits in %d requests, %v", len(p.Hits), len(log), err)
		}
		checkRequests(t, log)
	}
}

// fakeServer serves rows 0..n-1 of Commissie, at most pageSize per answer,
// with a nextLink when it served less than $top asked.
func fakeServer(t *testing.T, n, pageSize int, log *[]string) Getter {
	return func(r adapters.Request) ([]byte, error) {
		*log = append(*log, r.Path)
		u, err := url.Parse(r.Path)
		if err != nil {
			return nil, err
		}
		q := u.Query()
		top, _ := strconv.Atoi(q.Get("$top"))
		skip, _ := strconv.Atoi(q.Get("$skip"))
		if top > PageSize {
			return nil, fmt.Errorf("$top %d", top)
		}
		var rows []string
		served := 0
		for i := skip; i < n && served < top && served < pageSize; i++ {
			rows = append(rows, fmt.Sprintf(`{"Id":"c%04d","NaamNL":"Commissie %04d","DatumInactief":null,"Verwijderd":false}`, i, i))
			served++
		}
		body := `{"value":[` + strings.Join(rows, ",") + `]`
		if served < top && skip+served < n {
			body += fmt.Sprintf(`,"@odata.nextLink":"https://gegevensmagazijn.tweedekamer.nl/OData/v5/Commissie?$orderby=Id&$top=%d&$skip=%d"`, top-served, skip+served)
		}
		return []byte(body + "}"), nil
	}
}

func TestListAllPaging(t *testing.T) {
	e := entityOf(t, schemaOf(t, DefaultRoot, map[string][]string{"Commissie": commissie}), "Commissie")
	for _, c := range []struct{ n, pageSize, requests int }{
		{250, 30, 10}, // 100 = 30+30+30+10, twice, then 50 = 30+20
		{250, 100, 3},
		{200, 100, 3}, // the third asks past the end and gets nothing
		{0, 100, 1},
		{41, 7, 6},
	} {
		var log []string
		l, err := ListAll(e, fakeServer(t, c.n, c.pageSize, &log))
		if err != nil || l.Len() != c.n || l.Truncated || len(log) != c.requests {
			t.Errorf("%+v: %d rows in %d requests, truncated %v, %v\n%s", c, l.Len(), len(log), l.Truncated, err, strings.Join(log, "\n"))
			continue
		}
		items := l.Items(false, emuNow)
		for i, it := range items {
			if it.Key != fmt.Sprintf("c%04d", i) {
				t.Fatalf("%+v: item %d is %s", c, i, it.Key)
			}
		}
	}
	// A server whose nextLink never ends is read for MaxPages pages.
	var log []string
	loop := func(r adapters.Request) ([]byte, error) {
		log = append(log, r.Path)
		return []byte(`{"value":[{"Id":"x","NaamNL":"x","Verwijderd":false}],"@odata.nextLink":"https://gegevensmagazijn.tweedekamer.nl/OData/v5/Commissie?$skip=1"}`), nil
	}
	l, err := ListAll(e, loop)
	if err != nil || !l.Truncated || len(log) != MaxPages {
		t.Fatalf("loop: %d requests, truncated %v, %v", len(log), l.Truncated, err)
	}
	// A nextLink to another set or host path is refused.
	_, err = ListAll(e, func(adapters.Request) ([]byte, error) {
		return []byte(`{"value":[{"Id":"x"}],"@odata.nextLink":"https://gegevensmagazijn.tweedekamer.nl/OData/v5/Persoon?$skip=1"}`), nil
	})
	if err == nil || !strings.Contains(err.Error(), "not followed") {
		t.Fatalf("foreign nextLink: %v", err)
	}
	// A failing request stops the walk with its error.
	_, err = ListAll(e, func(adapters.Request) ([]byte, error) { return nil, fmt.Errorf("HTTP 502") })
	if err == nil || err.Error() != "HTTP 502" {
		t.Fatalf("failure: %v", err)
	}
}

func TestParseFeedDocumentAgainstEmulator(t *testing.T) {
	var log []string
	get := emuGetter(emuHandler, &log)
	data := emu.SharedData(1, emuNow, 0)
	doc := data.Document(4321)
	body, err := get(EntityRequest(doc.ID))
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseFeedDocument(body)
	if err != nil || d.ID != doc.Nummer || d.Meta["guid"] != doc.ID || d.Type != doc.Soort || d.Date != doc.Datum.Format("2006-01-02") ||
		d.Meta["via"] != "syncfeed" || d.URL != ResourceURL(doc.ID) || !strings.Contains(d.Text, doc.Titel) {
		t.Fatalf("%+v %v", d, err)
	}
	// A GUID of another entity is not taken for a document.
	zaak, _ := data.Row("Zaak", 0, "Id").(string)
	body, err = get(EntityRequest(zaak))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseFeedDocument(body); err == nil || !strings.Contains(err.Error(), "zaak, not a document") {
		t.Fatalf("zaak: %v", err)
	}
	for _, bad := range []string{"", "<document", `<document id="x" verwijderd="true"/>`, `<document/>`} {
		if _, err := ParseFeedDocument([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
