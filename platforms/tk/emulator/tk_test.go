package emulator

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/fixture"

	"github.com/besluitbron/besluitbron/internal/shape"
)

var fixedNow = func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) }

var (
	emuOnce sync.Once
	emu     http.Handler
)

func testHandler() http.Handler {
	emuOnce.Do(func() { emu = New(Config{Seed: 1, Clock: fakeclock.New(fixedNow())}) })
	return emu
}

func get(t *testing.T, target string) (int, []byte, http.Header) {
	t.Helper()
	return do(t, testHandler(), http.MethodGet, target)
}

func do(t *testing.T, h http.Handler, method, target string) (int, []byte, http.Header) {
	t.Helper()
	req := httptest.NewRequest(method, "http://tk.test"+target, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes(), rec.Header()
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	return fixture.Read(t, "tk", name)
}

func q(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") }

type envelope struct {
	Context  string            `json:"@odata.context"`
	Count    *int              `json:"@odata.count"`
	Value    []json.RawMessage `json:"value"`
	NextLink string            `json:"@odata.nextLink"`
}

func decodeEnv(t *testing.T, body []byte) envelope {
	t.Helper()
	var e envelope
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("not an OData envelope: %v\n%s", err, body[:min(len(body), 400)])
	}
	return e
}

func mustOK(t *testing.T, code int, body []byte) {
	t.Helper()
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body[:min(len(body), 400)])
	}
}

type atomFeed struct {
	Links   []atomLink  `xml:"link"`
	Entries []atomEntry `xml:"entry"`
}
type atomLink struct {
	Rel  string `xml:"rel,attr"`
	Href string `xml:"href,attr"`
}
type atomEntry struct {
	Title    string `xml:"title"`
	ID       string `xml:"id"`
	Updated  string `xml:"updated"`
	Category struct {
		Term string `xml:"term,attr"`
	} `xml:"category"`
	Links []atomLink `xml:"link"`
}

func (f atomFeed) link(rel string) string {
	for _, l := range f.Links {
		if l.Rel == rel {
			return l.Href
		}
	}
	return ""
}

func pathOf(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	return u.RequestURI()
}

func TestSyncFeedPagingToResume(t *testing.T) {
	target := "/SyncFeed/2.0/Feed?category=Fractie"
	var seen int
	for page := 0; page < 5; page++ {
		code, body, _ := get(t, target)
		mustOK(t, code, body)
		var f atomFeed
		if err := xml.Unmarshal(body, &f); err != nil {
			t.Fatal(err)
		}
		if len(f.Entries) == 0 {
			if f.link("resume") == "" {
				t.Fatalf("empty page without rel=resume: %s", body)
			}
			if seen != len(fracties) {
				t.Errorf("walked %d fracties, want %d", seen, len(fracties))
			}
			return
		}
		for _, e := range f.Entries {
			if e.Category.Term != "fractie" || !strings.HasSuffix(e.ID, "/SyncFeed/2.0/Entiteiten/"+e.Title) {
				t.Errorf("entry %+v", e)
			}
		}
		seen += len(f.Entries)
		next := f.link("next")
		if !strings.Contains(next, "skiptoken=") {
			t.Fatalf("no feed-level next link: %s", body[:300])
		}
		target = pathOf(t, next)
	}
	t.Fatal("never reached rel=resume")
}

func TestSyncFeedEntityAndResource(t *testing.T) {
	code, body, _ := get(t, "/SyncFeed/2.0/Feed?category=Document")
	mustOK(t, code, body)
	var f atomFeed
	if err := xml.Unmarshal(body, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Entries) != FeedPageSize {
		t.Fatalf("%d entries", len(f.Entries))
	}
	e := f.Entries[0]
	var enclosure string
	for _, l := range e.Links {
		if l.Rel == "enclosure" {
			enclosure = l.Href
		}
	}
	if enclosure == "" {
		t.Fatal("document entry without enclosure")
	}
	code, body, _ = get(t, pathOf(t, e.ID))
	mustOK(t, code, body)
	if !bytes.Contains(body, []byte(`<document xmlns="`+nsTK+`" xmlns:tk="`+nsTK+`" id="`+e.Title+`"`)) {
		t.Errorf("entity XML: %s", body[:min(len(body), 300)])
	}
	code, body, hdr := get(t, pathOf(t, enclosure))
	mustOK(t, code, body)
	if hdr.Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(body, []byte("%PDF-1.4")) {
		t.Errorf("resource %q %q", hdr.Get("Content-Type"), body[:10])
	}
	// bad input
	for target, want := range map[string]int{
		"/SyncFeed/2.0/Feed?category=Bestaatniet":                       400,
		"/SyncFeed/2.0/Feed?category=Persoon&skiptoken=abc":             400,
		"/SyncFeed/2.0/Entiteiten/00000000-0000-4000-8000-000000000000": 404,
		"/SyncFeed/2.0/Resources/00000000-0000-4000-8000-000000000000":  404,
		"/SyncFeed/2.0/Nergens":                                         404,
	} {
		if code, body, _ := get(t, target); code != want {
			t.Errorf("%s: status %d, want %d (%s)", target, code, want, body)
		}
	}
	if code, _, _ := do(t, testHandler(), http.MethodPost, "/SyncFeed/2.0/Feed"); code != 405 {
		t.Errorf("POST feed: %d", code)
	}
}

// odataErrorForm is the OData JSON error response with its two required
// members and none of the optional ones (OData JSON Format 4.01, section 21
// "Error Response"; ASP.NET OData writes it so). No real TK error body was
// recorded, so the emulator's may carry nothing beyond the standard's
// minimum: no invented codes, details or innererror.
const odataErrorForm = `{"error":{"code":"","message":""}}`

func TestODataBadInput(t *testing.T) {
	doc := firstDocumentID(t)
	cases := []struct {
		name, target string
		status       int
		msg          string
	}{
		{"guid literal form", "/OData/v4/2.0/Document?$filter=" + q("Id eq guid'"+doc+"'"), 400, "Syntax error"},
		{"unknown property", "/OData/v4/2.0/Document?$filter=" + q("Foo eq 1"), 400, "Could not find a property named 'Foo'"},
		{"type mismatch", "/OData/v4/2.0/Document?$filter=" + q("Verwijderd eq 'false'"), 400, "incompatible types"},
		{"string vs guid", "/OData/v4/2.0/Document?$filter=" + q("Id eq '"+doc+"'"), 400, "incompatible types"},
		{"not boolean", "/OData/v4/2.0/Document?$filter=Titel", 400, "boolean"},
		{"syntax", "/OData/v4/2.0/Document?$filter=" + q("Titel eq"), 400, "Syntax error"},
		{"unterminated string", "/OData/v4/2.0/Document?$filter=" + q("Titel eq 'abc"), 400, "unterminated"},
		{"unknown function", "/OData/v4/2.0/Document?$filter=" + q("substringof('a',Titel)"), 400, "unknown function"},
		{"top not a number", "/OData/v4/2.0/Document?$top=abc", 400, "$top"},
		{"negative top", "/OData/v4/2.0/Document?$top=-1", 400, "$top"},
		{"bad skip", "/OData/v4/2.0/Document?$skip=x", 400, "$skip"},
		{"bad count", "/OData/v4/2.0/Document?$count=yes", 400, "count"},
		{"unknown option", "/OData/v4/2.0/Document?$search=motie", 400, "not supported"},
		{"twice", "/OData/v4/2.0/Document?$top=1&$top=2", 400, "more than once"},
		{"bad orderby", "/OData/v4/2.0/Document?$orderby=Foo", 400, "Could not find a property"},
		{"bad orderby dir", "/OData/v4/2.0/Document?$orderby=" + q("Datum up"), 400, "Syntax error"},
		{"bad select", "/OData/v4/2.0/Document?$select=Id,Foo", 400, "Could not find a property named 'Foo'"},
		{"bad expand", "/OData/v4/2.0/Document?$expand=Foo", 400, "Could not find a property named 'Foo'"},
		{"bad key", "/OData/v4/2.0/Document(123)", 400, "Edm.Guid"},
		{"guid key form", "/OData/v4/2.0/Document(guid'" + doc + "')", 400, "Edm.Guid"},
		{"unknown key", "/OData/v4/2.0/Document(00000000-0000-4000-8000-000000000000)", 404, "Resource not found"},
		{"unknown set", "/OData/v4/2.0/Documenten", 404, "No HTTP resource"},
		{"lowercase set", "/OData/v4/2.0/document", 404, "No HTTP resource"},
		{"no resource", "/OData/v4/2.0/Zaak(" + zaakID(t) + ")/resource", 404, "No resource"},
		{"v5 top above 100", "/OData/v5/Document?$top=101", 400, "The limit of '100' for Top query has been exceeded"},
		{"v5 old name", "/OData/v5/Document?$select=DocumentNummer", 400, "Could not find a property named 'DocumentNummer'"},
		{"v5 unknown set", "/OData/v5/Documenten", 404, "No HTTP resource"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body, _ := get(t, c.target)
			if code != c.status {
				t.Fatalf("status %d, want %d: %s", code, c.status, body)
			}
			var e struct {
				Error struct {
					Code    *string `json:"code"`
					Message string  `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(body, &e); err != nil || e.Error.Code == nil {
				t.Fatalf("not an OData error body: %s", body)
			}
			if !strings.Contains(e.Error.Message, c.msg) {
				t.Errorf("message %q lacks %q", e.Error.Message, c.msg)
			}
			shape.Exact(t, body, []byte(odataErrorForm))
		})
	}
	if code, _, hdr := do(t, testHandler(), http.MethodPost, "/OData/v4/2.0/Document"); code != 405 || hdr.Get("Allow") != "GET" {
		t.Errorf("POST: %d", code)
	}
}

func firstDocumentID(t *testing.T) string {
	t.Helper()
	code, body, _ := get(t, "/OData/v4/2.0/Document?$top=1&$select=Id")
	mustOK(t, code, body)
	var e struct{ Value []struct{ Id string } }
	json.Unmarshal(body, &e)
	return e.Value[0].Id
}

func zaakID(t *testing.T) string {
	t.Helper()
	_, body, _ := get(t, "/OData/v4/2.0/Zaak?$top=1&$select=Id")
	var e struct{ Value []struct{ Id string } }
	json.Unmarshal(body, &e)
	return e.Value[0].Id
}

func TestODataQueries(t *testing.T) {
	// counts: the fracties, commissies, persons and documents are realistic
	counts := map[string][2]int{"Fractie": {15, 20}, "Commissie": {38, 45}, "Document": {8000, 8000}, "Zaak": {8000, 8000}}
	for set, rng := range counts {
		code, body, hdr := get(t, "/OData/v4/2.0/"+set+"/$count")
		mustOK(t, code, body)
		n, err := strconv.Atoi(string(body))
		if err != nil || n < rng[0] || n > rng[1] || !strings.HasPrefix(hdr.Get("Content-Type"), "text/plain") {
			t.Errorf("%s/$count = %q", set, body)
		}
	}
	code, body, _ := get(t, "/OData/v4/2.0/Persoon/$count?$filter="+q("Functie eq 'Tweede Kamerlid'"))
	mustOK(t, code, body)
	if string(body) != "150" {
		t.Errorf("current members %s, want 150", body)
	}

	// $count=true matches /$count and the filter narrows
	flt := q("Verwijderd eq false and contains(Onderwerp,'stikstof') and Datum ge 2025-01-01T00:00:00+01:00 and Datum lt 2026-01-01")
	code, body, _ = get(t, "/OData/v4/2.0/Document?$filter="+flt+"&$count=true&$orderby="+q("Datum desc")+"&$select=Id,Onderwerp,Datum")
	mustOK(t, code, body)
	e := decodeEnv(t, body)
	_, cbody, _ := get(t, "/OData/v4/2.0/Document/$count?$filter="+flt)
	if e.Count == nil || strconv.Itoa(*e.Count) != string(cbody) || *e.Count == 0 {
		t.Fatalf("@odata.count %v, /$count %s", e.Count, cbody)
	}
	if !strings.HasSuffix(e.Context, "$metadata#Document(Id,Onderwerp,Datum)") {
		t.Errorf("context %s", e.Context)
	}
	var prev string
	for _, raw := range e.Value {
		var d map[string]any
		json.Unmarshal(raw, &d)
		if len(d) != 3 || !strings.Contains(d["Onderwerp"].(string), "stikstof") {
			t.Errorf("row %s", raw)
		}
		ds := d["Datum"].(string)
		if ds < "2025-01-01" || ds >= "2026-01-01" || (prev != "" && ds > prev) {
			t.Errorf("date %s after %s", ds, prev)
		}
		prev = ds
	}

	// $top above the cap: 250 rows and a nextLink with the rest of $top
	code, body, _ = get(t, "/OData/v4/2.0/Document?$top=600&$skip=10&$select=Id")
	mustOK(t, code, body)
	e = decodeEnv(t, body)
	if len(e.Value) != 250 || !strings.HasSuffix(e.NextLink, "/OData/v4/2.0/Document?$select=Id&$top=350&$skip=260") {
		t.Errorf("%d rows, nextLink %s", len(e.Value), e.NextLink)
	}
	// following the link continues where the page ended
	code, body, _ = get(t, pathOf(t, e.NextLink))
	mustOK(t, code, body)
	e2 := decodeEnv(t, body)
	_, body3, _ := get(t, "/OData/v4/2.0/Document?$top=1&$skip=260&$select=Id")
	if len(e2.Value) != 250 || string(e2.Value[0]) != string(decodeEnv(t, body3).Value[0]) {
		t.Errorf("next page starts at %s", e2.Value[0])
	}
	// the last part: $top=100 left, no more link
	code, body, _ = get(t, pathOf(t, e2.NextLink))
	mustOK(t, code, body)
	if e3 := decodeEnv(t, body); len(e3.Value) != 100 || e3.NextLink != "" {
		t.Errorf("last page %d rows, link %q", len(e3.Value), e3.NextLink)
	}
	// a small $top has no nextLink
	_, body, _ = get(t, "/OData/v4/2.0/Document?$top=5")
	if e := decodeEnv(t, body); len(e.Value) != 5 || e.NextLink != "" {
		t.Errorf("$top=5: %d rows, link %q", len(e.Value), e.NextLink)
	}

	// (guid) addressing, bare GUIDs in filters, ne, or, orderby
	doc := firstDocumentID(t)
	code, body, _ = get(t, "/OData/v4/2.0/Document("+doc+")")
	mustOK(t, code, body)
	var one map[string]any
	json.Unmarshal(body, &one)
	if one["Id"] != doc || !strings.HasSuffix(one["@odata.context"].(string), "$metadata#Document/$entity") {
		t.Errorf("entity %s", body[:200])
	}
	_, body, _ = get(t, "/OData/v4/2.0/Document?$filter="+q("Id eq "+doc+" or Id eq "+strings.ToUpper(doc)))
	if e := decodeEnv(t, body); len(e.Value) != 1 {
		t.Errorf("bare GUID filter: %d rows", len(e.Value))
	}
	_, body, _ = get(t, "/OData/v4/2.0/Fractie?$filter="+q("Afkorting ne 'VVD' and DatumInactief eq null")+"&$orderby="+q("AantalZetels desc")+"&$select=Afkorting,AantalZetels")
	e = decodeEnv(t, body)
	if len(e.Value) != 14 || !strings.Contains(string(e.Value[0]), `"AantalZetels":26`) {
		t.Errorf("fracties %s", body)
	}

	// the resource is a PDF of exactly ContentLength bytes
	var meta struct{ ContentLength int }
	_, body, _ = get(t, "/OData/v4/2.0/Document("+doc+")?$select=ContentLength")
	json.Unmarshal(body, &meta)
	code, body, hdr := get(t, "/OData/v4/2.0/Document("+doc+")/resource")
	mustOK(t, code, body)
	if hdr.Get("Content-Type") != "application/pdf" || len(body) != meta.ContentLength || !bytes.HasSuffix(body, []byte("%%EOF\n")) {
		t.Errorf("resource: %s, %d bytes, ContentLength %d", hdr.Get("Content-Type"), len(body), meta.ContentLength)
	}

	// a person's picture is an image of ContentLength bytes
	var p struct {
		Value []struct {
			Id            string
			ContentType   string
			ContentLength int
		}
	}
	_, body, _ = get(t, "/OData/v4/2.0/Persoon?$top=1&$filter="+q("ContentType ne null")+"&$select=Id,ContentType,ContentLength")
	json.Unmarshal(body, &p)
	code, body, hdr = get(t, "/OData/v4/2.0/Persoon("+p.Value[0].Id+")/resource")
	if code != 200 || hdr.Get("Content-Type") != p.Value[0].ContentType || len(body) != p.Value[0].ContentLength {
		t.Errorf("picture: %d %s %d bytes", code, hdr.Get("Content-Type"), len(body))
	}

	// $expand of single navigation properties and reverse ones
	_, body, _ = get(t, "/OData/v4/2.0/FractieZetelPersoon?$top=2&$filter="+q("TotEnMet eq null")+"&$expand="+q("Persoon($select=Achternaam),FractieZetel($expand=Fractie($select=Afkorting))"))
	e = decodeEnv(t, body)
	var fzp struct {
		Persoon      struct{ Achternaam string }
		FractieZetel struct{ Fractie struct{ Afkorting string } }
	}
	json.Unmarshal(e.Value[0], &fzp)
	if fzp.Persoon.Achternaam == "" || fzp.FractieZetel.Fractie.Afkorting == "" {
		t.Errorf("expand: %s", e.Value[0])
	}

	// service document and $metadata
	code, body, _ = get(t, "/OData/v4/2.0/")
	mustOK(t, code, body)
	if !bytes.Contains(body, []byte(`"name":"Document"`)) {
		t.Errorf("service document %s", body)
	}
	code, body, _ = get(t, "/OData/v4/2.0/$metadata")
	mustOK(t, code, body)
	if !bytes.Contains(body, []byte(`<EntitySet Name="Persoon"`)) {
		t.Errorf("metadata")
	}
}

// Behind the proxy the request carries the platform's own Host: links are
// then the real platform's https links.
func TestLinksWithPlatformHost(t *testing.T) {
	req := httptest.NewRequest("GET", "http://127.0.0.1:9/OData/v4/2.0/Persoon?$select=Id", nil)
	req.Host = "gegevensmagazijn.tweedekamer.nl"
	rec := httptest.NewRecorder()
	testHandler().ServeHTTP(rec, req)
	e := decodeEnv(t, rec.Body.Bytes())
	if !strings.HasPrefix(e.Context, "https://gegevensmagazijn.tweedekamer.nl/OData/v4/2.0/$metadata#Persoon") ||
		!strings.HasPrefix(e.NextLink, "https://gegevensmagazijn.tweedekamer.nl/OData/v4/2.0/Persoon?$select=Id&$skip=250") {
		t.Errorf("context %s, nextLink %s", e.Context, e.NextLink)
	}
}

func TestDeterministic(t *testing.T) {
	a := New(Config{Seed: 7, Clock: fakeclock.New(fixedNow()), Documents: 300})
	b := New(Config{Seed: 7, Clock: fakeclock.New(fixedNow()), Documents: 300})
	c := New(Config{Seed: 8, Clock: fakeclock.New(fixedNow()), Documents: 300})
	target := "/OData/v4/2.0/Document?$top=3"
	_, ba, _ := do(t, a, "GET", target)
	_, bb, _ := do(t, b, "GET", target)
	_, bc, _ := do(t, c, "GET", target)
	if !bytes.Equal(ba, bb) || bytes.Equal(ba, bc) {
		t.Error("same seed must give the same data, another seed other data")
	}
}

func TestFilterParser(t *testing.T) {
	ok := []string{
		"Verwijderd eq false",
		"not (Soort eq 'Motie') and Kamer eq 2",
		"startswith(DocumentNummer,'2025D') or endswith(tolower(Titel),'x')",
		"year(Datum) eq 2025 and month(Datum) ge 6",
		"Datum gt 2025-06-01T00:00:00Z and Datum le 2025-06-30T23:59:59.123+02:00",
		"Titel eq 'l''avenir'",
		"Volgnummer eq null",
	}
	for _, s := range ok {
		if _, err := parseFilter(s, tDocument); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	bad := []string{"", "Soort eq", "(Soort eq 'x'", "Soort eq 'x')", "Kamer gt true", "contains(Titel)", "Soort eq 'x' xor Kamer eq 2", "Id eq datetime'2020-01-01'"}
	for _, s := range bad {
		if _, err := parseFilter(s, tDocument); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}

// A besluit's votes add up to its result; a Hoofdelijk vote has a row per member.
func TestVotesMatchResult(t *testing.T) {
	for _, soort := range []string{"Stemmen - aangenomen", "Stemmen - verworpen"} {
		_, body, _ := get(t, "/OData/v4/2.0/Besluit?$top=20&$filter="+q("BesluitSoort eq '"+soort+"'")+"&$expand=Stemming($select=Soort,FractieGrootte,Persoon_Id)")
		var env struct {
			Value []struct {
				StemmingsSoort string
				Stemming       []struct {
					Soort          string
					FractieGrootte int
					Persoon_Id     *string
				}
			}
		}
		json.Unmarshal(body, &env)
		if len(env.Value) != 20 {
			t.Fatalf("%d besluiten", len(env.Value))
		}
		for _, b := range env.Value {
			voor := 0
			for _, s := range b.Stemming {
				if s.Soort == "Voor" {
					if b.StemmingsSoort == "Hoofdelijk" {
						voor++
					} else {
						voor += s.FractieGrootte
					}
				}
			}
			if (voor > 75) != (soort == "Stemmen - aangenomen") {
				t.Errorf("%s with %d votes for (%s, %d rows)", soort, voor, b.StemmingsSoort, len(b.Stemming))
			}
			if b.StemmingsSoort == "Hoofdelijk" && (len(b.Stemming) != 150 || b.Stemming[0].Persoon_Id == nil) {
				t.Errorf("hoofdelijk: %d rows", len(b.Stemming))
			}
		}
	}
}
