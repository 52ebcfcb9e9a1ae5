package emulator

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/shape"
	tk "github.com/besluitbron/besluitbron/platforms/tk/emulator"
)

var fixedNow = func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) }

var (
	once sync.Once
	emu  http.Handler
	tkh  http.Handler
)

func handlers() (http.Handler, http.Handler) {
	once.Do(func() {
		emu = New(Config{Seed: 1, Clock: fakeclock.New(fixedNow())})
		tkh = tk.New(tk.Config{Seed: 1, Clock: fakeclock.New(fixedNow())})
	})
	return emu, tkh
}

func do(t *testing.T, h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func get(t *testing.T, target string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	h, _ := handlers()
	req := httptest.NewRequest(http.MethodGet, "http://opentk.test"+target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return do(t, h, req)
}

func searchReq(t *testing.T, fields map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	mw.Close()
	req := httptest.NewRequest(http.MethodPost, "http://opentk.test/search", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	h, _ := handlers()
	return do(t, h, req)
}

type searchResp struct {
	Results []Result `json:"results"`
	Ms      float64  `json:"milliseconds"`
}

func search(t *testing.T, fields map[string]string) searchResp {
	t.Helper()
	rec := searchReq(t, fields)
	if rec.Code != 200 {
		t.Fatalf("search %v: %d %s", fields, rec.Code, rec.Body.String())
	}
	var s searchResp
	if err := json.Unmarshal(rec.Body.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// documentedSearch is the shape tkserv.cc's /search handler builds (no
// recorded sample exists): results[] with these nine fields, and
// milliseconds; relurl and persoonnummer as search.cc sets them.
const documentedSearch = `{"results":[{"nummer":"2023D41173","datum":"2023-10-12T00:00:00","score":-7.5,
"category":"Document","onderwerp":"o","snip":"...<b>x</b>...","relurl":"get/2023D41173",
"bijgewerkt":"2023-10-12T10:00:00Z","persoonnummer":-1}],"milliseconds":1.5}`

func TestSearchShapeAndSyntax(t *testing.T) {
	rec := searchReq(t, map[string]string{"q": "stikstof", "twomonths": "false", "soorten": "alles"})
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s", rec.Code, rec.Header())
	}
	// Both ways: exactly the fields tkserv.cc writes, nothing invented.
	shape.Exact(t, rec.Body.Bytes(), []byte(documentedSearch))
	s := search(t, map[string]string{"q": "stikstof"})
	if len(s.Results) == 0 || len(s.Results) > MaxResults {
		t.Fatalf("%d results", len(s.Results))
	}
	for i, r := range s.Results {
		if !strings.Contains(strings.ToLower(r.Snip), "<b>stikstof</b>") {
			t.Errorf("snip %q", r.Snip)
		}
		// order by rowid desc: newest first, not by score
		if i > 0 && r.Datum[:10] > s.Results[i-1].Datum[:10] {
			t.Errorf("result %d (%s) is newer than result %d (%s)", i, r.Datum, i-1, s.Results[i-1].Datum)
		}
	}

	// common words hit the cap
	if n := len(search(t, map[string]string{"q": "tweede"}).Results); n != MaxResults {
		t.Errorf("cap: %d results", n)
	}
	// a topic under the cap, so the counts add up
	all := len(search(t, map[string]string{"q": "wolf"}).Results)
	and := search(t, map[string]string{"q": "wolf motie"}).Results
	or := len(search(t, map[string]string{"q": "wolf OR Schiphol"}).Results)
	not := search(t, map[string]string{"q": "wolf NOT motie"}).Results
	if all >= MaxResults || len(and) == 0 || len(and)+len(not) != all || or <= all {
		t.Errorf("all %d and %d not %d or %d", all, len(and), len(not), or)
	}
	for _, r := range not {
		if strings.Contains(strings.ToLower(r.Onderwerp), "motie") {
			t.Errorf("NOT leaked %s", r.Onderwerp)
		}
	}
	phrase := search(t, map[string]string{"q": `"een onderzoek naar"`}).Results
	for _, r := range phrase {
		if !strings.Contains(r.Snip, "<b>een</b> <b>onderzoek</b> <b>naar</b>") {
			t.Errorf("phrase snip %q", r.Snip)
		}
	}
	if len(phrase) == 0 {
		t.Error("no phrase hits")
	}
	if len(search(t, map[string]string{"q": "wol*"}).Results) < all {
		t.Error("prefix finds less than the word")
	}
	if n := len(search(t, map[string]string{"q": "NEAR(wolf motie)"}).Results); n != len(and) {
		t.Errorf("NEAR %d", n)
	}
	// soorten and twomonths narrow the search
	h, _ := handlers()
	data := h.(*handler).data
	moties := search(t, map[string]string{"q": "stikstof", "soorten": "moties"}).Results
	if len(moties) == 0 {
		t.Error("no moties")
	}
	for _, r := range moties {
		i, ok := data.DocumentByNummer(r.Nummer)
		if r.Category != "Document" || !ok || data.Document(i).Soort != "Motie" {
			t.Errorf("moties gave %s %s", r.Category, r.Nummer)
		}
	}
	recent := search(t, map[string]string{"q": "wolf", "twomonths": "true"}).Results
	if len(recent) == 0 || len(recent) >= all {
		t.Errorf("twomonths: %d of %d", len(recent), all)
	}
	for _, r := range recent {
		if r.Datum < "2026-09-29" {
			t.Errorf("twomonths gave %s", r.Datum)
		}
	}
}

func TestSearchBadInput(t *testing.T) {
	// FTS5 syntax errors reach tkserv's exception handler: 500 with HTML
	for _, q := range []string{"", `"open`, "OR stikstof", "stikstof AND", "a ? b", "(stikstof"} {
		rec := searchReq(t, map[string]string{"q": q})
		if rec.Code != 500 || !strings.Contains(rec.Body.String(), "fts5: syntax error near") {
			t.Errorf("q=%q: %d %s", q, rec.Code, rec.Body.String())
		}
	}
	// hyphens and dots are quoted automatically, so this is not an error
	if rec := searchReq(t, map[string]string{"q": "COVID-19"}); rec.Code != 200 {
		t.Errorf("COVID-19: %d", rec.Code)
	}
	// a form that is not multipart leaves q empty
	h, _ := handlers()
	req := httptest.NewRequest(http.MethodPost, "http://opentk.test/search", strings.NewReader(url.Values{"q": {"stikstof"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if rec := do(t, h, req); rec.Code != 500 {
		t.Errorf("urlencoded: %d", rec.Code)
	}
	// bodies over 1 MB: 413, with and without Content-Length
	big := searchBody(strings.Repeat("x", MaxBody+10))
	req = httptest.NewRequest(http.MethodPost, "http://opentk.test/search", bytes.NewReader(big.body))
	req.Header.Set("Content-Type", big.ct)
	if rec := do(t, h, req); rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("big body: %d", rec.Code)
	}
	req = httptest.NewRequest(http.MethodPost, "http://opentk.test/search", struct{ *bytes.Reader }{bytes.NewReader(big.body)})
	req.ContentLength = -1
	req.Header.Set("Content-Type", big.ct)
	if rec := do(t, h, req); rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("big chunked body: %d", rec.Code)
	}
	// GET /search and PUT are not served
	if rec := get(t, "/search"); rec.Code != 404 {
		t.Errorf("GET /search: %d", rec.Code)
	}
	if rec := do(t, h, httptest.NewRequest(http.MethodPut, "http://opentk.test/getdoc/x", nil)); rec.Code != 405 {
		t.Errorf("PUT: %d", rec.Code)
	}
}

type mp struct {
	body []byte
	ct   string
}

func searchBody(q string) mp {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("q", q)
	mw.Close()
	return mp{body.Bytes(), mw.FormDataContentType()}
}

// A TK Document's number is found in OpenTK, and getraw serves the bytes
// of the Gegevensmagazijn's /resource.
func TestSameDocumentsAsTK(t *testing.T) {
	_, tkh := handlers()
	rec := do(t, tkh, httptest.NewRequest("GET", "http://tk.test/OData/v4/2.0/Document?$top=1&$skip=4321&$select=Id,DocumentNummer,Onderwerp", nil))
	var env struct {
		Value []struct{ Id, DocumentNummer, Onderwerp string }
	}
	json.Unmarshal(rec.Body.Bytes(), &env)
	doc := env.Value[0]
	s := search(t, map[string]string{"q": `"` + doc.Onderwerp + `"`})
	found := false
	for _, r := range s.Results {
		if r.Nummer == doc.DocumentNummer && r.Category == "Document" && r.Relurl == "get/"+doc.DocumentNummer {
			found = true
		}
	}
	if !found {
		t.Errorf("%s (%s) not found by its subject", doc.DocumentNummer, doc.Onderwerp)
	}
	raw := get(t, "/getraw/"+doc.DocumentNummer)
	res := do(t, tkh, httptest.NewRequest("GET", "http://tk.test/OData/v4/2.0/Document("+doc.Id+")/resource", nil))
	if raw.Code != 200 || !bytes.Equal(raw.Body.Bytes(), res.Body.Bytes()) {
		t.Errorf("getraw %d differs from TK resource", raw.Code)
	}
	if cd := raw.Header().Get("Content-Disposition"); !strings.HasPrefix(cd, `inline; filename="`+doc.DocumentNummer+"-") || !strings.HasSuffix(cd, `.pdf"`) {
		t.Errorf("Content-Disposition %q", cd)
	}
	if raw.Header().Get("Content-Type") != "application/pdf" {
		t.Errorf("Content-Type %q", raw.Header().Get("Content-Type"))
	}
	for _, key := range []string{doc.DocumentNummer, doc.Id} {
		rec := get(t, "/getdoc/"+key)
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), "<p>") || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
			t.Errorf("getdoc %s: %d", key, rec.Code)
		}
		if rec.Body.Len() < 10000 {
			t.Errorf("getdoc %s: only %d bytes", key, rec.Body.Len())
		}
	}
	if rec := get(t, "/document.html?nummer="+doc.DocumentNummer); rec.Code != 200 || !strings.Contains(rec.Body.String(), doc.DocumentNummer) {
		t.Errorf("document.html: %d", rec.Code)
	}
}

func TestUnknownDocuments(t *testing.T) {
	for _, p := range []string{"/getdoc/2099D00001", "/getraw/2099D00001", "/getdoc/00000000-0000-4000-8000-000000000000",
		"/document.html?nummer=2099D00001", "/commissie/00000000-0000-4000-8000-000000000000", "/nergens"} {
		if rec := get(t, p); rec.Code != 404 {
			t.Errorf("%s: %d", p, rec.Code)
		}
	}
	if rec := get(t, "/ksds"); rec.Code != 400 {
		t.Errorf("ksds without q: %d", rec.Code)
	}
	if rec := get(t, "/get/2023D41173"); rec.Code != 301 || rec.Header().Get("Location") != "../document.html?nummer=2023D41173" {
		t.Errorf("/get: %d %s", rec.Code, rec.Header().Get("Location"))
	}
}

func TestETag(t *testing.T) {
	for _, p := range []string{"/recent-kamerstukdossiers", "/ksds?q=stikstof", "/getdoc/" + firstNummer(t)} {
		rec := get(t, p)
		etag := rec.Header().Get("ETag")
		if rec.Code != 200 || !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `-`+itoa(rec.Body.Len())+`"`) {
			t.Fatalf("%s: %d ETag %q", p, rec.Code, etag)
		}
		again := get(t, p, "If-None-Match", etag)
		if again.Code != http.StatusNotModified || again.Body.Len() != 0 {
			t.Errorf("%s: If-None-Match gave %d", p, again.Code)
		}
		if other := get(t, p, "If-None-Match", `"x-1"`); other.Code != 200 {
			t.Errorf("%s: other ETag gave %d", p, other.Code)
		}
	}
	// errors carry no ETag
	if rec := get(t, "/getdoc/2099D00001"); rec.Header().Get("ETag") != "" {
		t.Error("404 with ETag")
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func firstNummer(t *testing.T) string {
	s := search(t, map[string]string{"q": "stikstof"})
	return s.Results[0].Nummer
}

func TestLists(t *testing.T) {
	rec := get(t, "/recent-kamerstukdossiers")
	var ds []map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &ds); err != nil || len(ds) != 250 {
		t.Fatalf("recent: %v %d", err, len(ds))
	}
	shape.JSONShape(t, rec.Body.Bytes(), []byte(`[{"nummer":36228,"mdatum":"2026-11-20T00:00:00","titel":"t","toevoeging":"","hoogsteVolgnummer":3}]`))
	if ds[0]["mdatum"].(string) < ds[249]["mdatum"].(string) {
		t.Error("not newest first")
	}
	num := itoa(int(ds[0]["nummer"].(float64)))
	rec = get(t, "/ksds?q="+num)
	var ks []map[string]any
	json.Unmarshal(rec.Body.Bytes(), &ks)
	if len(ks) == 0 || len(ks) > 100 || itoa(int(ks[0]["nummer"].(float64))) != num {
		t.Errorf("ksds %s: %s", num, rec.Body.String())
	}

	// a commissie: leden with fractie, 20 zaken, 50 activiteiten
	_, tkh := handlers()
	r := do(t, tkh, httptest.NewRequest("GET", "http://tk.test/OData/v4/2.0/Commissie?$filter="+url.QueryEscape("Afkorting eq 'VWS'")+"&$select=Id", nil))
	var env struct{ Value []struct{ Id string } }
	json.Unmarshal(r.Body.Bytes(), &env)
	rec = get(t, "/commissie/"+env.Value[0].Id)
	if rec.Code != 200 {
		t.Fatalf("commissie: %d", rec.Code)
	}
	shape.JSONShape(t, rec.Body.Bytes(), []byte(`{"commissie":{"naam":"n","cafkorting":"VWS"},
		"leden":[{"naam":"n","cafkorting":"c","gewicht":1,"cfunctie":"Lid","id":"i","nummer":1,"achternaam":"a","fafkorting":"f"}],
		"zaken":[{"id":"i","nummer":"2024Z00001","onderwerp":"o","gestartOp":"g","relatie":"Voortouwcommissie"}],
		"activiteiten":[{"id":"i","nummer":"n","soort":"s","onderwerp":"o","datum":"d","relatie":"r"}]}`))
	var c struct {
		Leden, Zaken, Activiteiten []any
	}
	json.Unmarshal(rec.Body.Bytes(), &c)
	if len(c.Leden) < 10 || len(c.Zaken) != 20 || len(c.Activiteiten) != 50 {
		t.Errorf("commissie: %d leden, %d zaken, %d activiteiten", len(c.Leden), len(c.Zaken), len(c.Activiteiten))
	}
}

func TestQueryParser(t *testing.T) {
	ok := []string{"a", "a b", `"a b" c`, "a OR b", "a NOT b", "(a OR b) AND c", "pre*", `"pre fix"*`, "NEAR(a b, 5)", "and or not"}
	for _, q := range ok {
		if _, err := parseQuery(q); err != nil {
			t.Errorf("%q: %v", q, err)
		}
	}
	bad := []string{"", "   ", `"a`, "AND a", "a OR", "a NOT", "(a", "a)", "a:b", "NEAR()"}
	for _, q := range bad {
		if _, err := parseQuery(q); err == nil {
			t.Errorf("%q parsed", q)
		}
	}
}

// Under load tkserv cuts searches short without saying so; the emulator
// does the same when more than 5 searches run at once.
func TestCostGuardTruncates(t *testing.T) {
	h := New(Config{Seed: 1, Clock: fakeclock.New(fixedNow())}).(*handler)
	run := func() int {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		mw.WriteField("q", "stikstof")
		mw.Close()
		req := httptest.NewRequest(http.MethodPost, "http://opentk.test/search", &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		rec := do(t, h, req)
		var s searchResp
		json.Unmarshal(rec.Body.Bytes(), &s)
		return len(s.Results)
	}
	full := run()
	h.inFlight.Add(5) // five other searches are running
	cut := run()
	h.inFlight.Add(3)
	cut2 := run()
	h.inFlight.Add(-8)
	if !(cut2 < cut && cut < full) {
		t.Errorf("results %d, with 6 at once %d, with 9 at once %d", full, cut, cut2)
	}
	st := h.EmulatorStats()
	if st["searches"] != int64(3) || st["searches_truncated"] != int64(2) || st["max_concurrent_searches"] != int64(9) {
		t.Errorf("stats %v", st)
	}
	h.ResetEmulator()
	if h.EmulatorStats()["searches"] != int64(0) {
		t.Error("reset")
	}
}
