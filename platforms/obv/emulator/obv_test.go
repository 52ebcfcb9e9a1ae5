package emulator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/fixture"

	"github.com/besluitbron/besluitbron/internal/shape"
)

var testNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func newTest(t *testing.T, limit bool) (*Emulator, *fakeclock.Clock) {
	t.Helper()
	return newTestAt(t, limit, testNow)
}

// newTestAt is newTest with the clock at start.
func newTestAt(t *testing.T, limit bool, start time.Time) (*Emulator, *fakeclock.Clock) {
	t.Helper()
	c := fakeclock.New(start)
	return NewEmulator(Config{Seed: 1, Clock: c, NoRateLimit: !limit}), c
}

func get(e http.Handler, target string, hdr ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", target, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return rec
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	return fixture.Read(t, "obv", name)
}

func decode(t *testing.T, rec *httptest.ResponseRecorder, v any) {
	t.Helper()
	if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
		t.Fatalf("decoding %s: %v", rec.Body.String(), err)
	}
}

func TestSearchValidation(t *testing.T) {
	e, _ := newTest(t, false)
	// Only what OpenBesluitvorming's web/search_params.ts validateSearchParams refuses is a 400,
	// with its messages.
	cases := []struct {
		query, msg string
	}{
		{"entityType=MEETINGS&query=x", `Onbekend entityType "MEETINGS".`},
		{"entityType=meeting&query=x", `Onbekend entityType "meeting".`},
		{"organization=Soest", `Onbekende organization "Soest".`},
		{"organization=atlantis", `Onbekende organization "atlantis".`},
		{"query=x&limit=abc", `Parameter limit moet een geheel getal zijn, kreeg "abc".`},
		{"query=x&limit=2.5", "geheel getal"},
		{"query=x&limit=0", "Parameter limit moet minstens 1 zijn, kreeg 0."},
		{"query=x&limit=-5", "minstens 1"},
		{"query=x&offset=-1", "Parameter offset kan niet negatief zijn, kreeg -1."},
		{"query=x&offset=een", "geheel getal"},
	}
	for _, c := range cases {
		rec := get(e, "/api/search?"+c.query)
		var body map[string]string
		decode(t, rec, &body)
		if rec.Code != 400 || !strings.Contains(body["error"], c.msg) {
			t.Errorf("%s: %d %v", c.query, rec.Code, body)
		}
		// {error, hint?} and nothing else: the platform has no code field.
		shape.Exact(t, rec.Body.Bytes(), readFixture(t, "error-400.json"), shape.Ignore("hint"))
	}
	// The body built from the platform's own template, verbatim.
	rec := get(e, "/api/search?entityType=MEETINGS")
	shape.Exact(t, rec.Body.Bytes(), readFixture(t, "error-400.json"))
	var got, want map[string]any
	decode(t, rec, &got)
	_ = json.Unmarshal(readFixture(t, "error-400.json"), &want)
	if got["error"] != want["error"] || got["hint"] != want["hint"] {
		t.Errorf("400 body %v, want %v", got, want)
	}
}

// An unknown sort, a malformed date and inverted dates are no error on the
// platform: the sort falls back to date_desc and the dates are compared as
// text with sortDate (OpenBesluitvorming's web/search_api.ts), so inverted dates find nothing.
func TestSearchNeverRefusesSortOrDates(t *testing.T) {
	e, _ := newTest(t, false)
	search := func(q string) SearchResponse {
		t.Helper()
		rec := get(e, "/api/search?organization=soest&limit=100&"+q)
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", q, rec.Code, rec.Body.String())
		}
		var resp SearchResponse
		decode(t, rec, &resp)
		return resp
	}
	ids := func(r SearchResponse) string {
		var b strings.Builder
		for _, x := range r.Results {
			b.WriteString(x.EntityID + " ")
		}
		return b.String()
	}
	def := search("")
	if len(def.Results) < 10 {
		t.Fatalf("too few results to compare orders: %d", len(def.Results))
	}
	for _, q := range []string{"sort=newest", "sort=relevance", "sort=date_desc", "sort=" + url.QueryEscape("DROP TABLE")} {
		if ids(search(q)) != ids(def) {
			t.Errorf("%s: not the date_desc order", q)
		}
	}
	for _, q := range []string{"dateFrom=7-11-2024", "dateTo=gisteren"} {
		// Compared as text: "2024-..." >= "7-11-2024" is false for every
		// result, "2024-..." <= "gisteren" is true for every result.
		r := search(q)
		if q == "dateTo=gisteren" && ids(r) != ids(def) {
			t.Errorf("%s: not compared as text", q)
		}
		if q == "dateFrom=7-11-2024" && len(r.Results) != 0 {
			t.Errorf("%s: %d results", q, len(r.Results))
		}
	}
	if r := search("dateFrom=2025-01-02&dateTo=2025-01-01"); len(r.Results) != 0 || r.TotalCount != 0 {
		t.Errorf("inverted dates: %d results", len(r.Results))
	}
	in := search("dateFrom=2025-01-01&dateTo=2025-12-31")
	for _, r := range in.Results {
		if d := r.SortDate[:10]; d < "2025-01-01" || d > "2025-12-31" {
			t.Errorf("%s outside 2025", r.SortDate)
		}
	}
	if len(in.Results) == 0 || len(in.Results) >= len(def.Results) {
		t.Errorf("2025 holds %d of %d", len(in.Results), len(def.Results))
	}
}

func TestSearchSorts(t *testing.T) {
	e, _ := newTest(t, false)
	search := func(sort string) []SearchResult {
		rec := get(e, "/api/search?organization=soest&limit=100&sort="+sort)
		var resp SearchResponse
		decode(t, rec, &resp)
		if rec.Code != 200 || len(resp.Results) < 20 {
			t.Fatalf("%s: %d, %d results", sort, rec.Code, len(resp.Results))
		}
		return resp.Results
	}
	asc := search("date_asc")
	for i := 1; i < len(asc); i++ {
		if asc[i].SortDate < asc[i-1].SortDate {
			t.Fatalf("date_asc: %s before %s", asc[i-1].SortDate, asc[i].SortDate)
		}
	}
	titles := search("title_asc")
	for i := 1; i < len(titles); i++ {
		a, b := strings.ToLower(titles[i-1].Title), strings.ToLower(titles[i].Title)
		if a > b && !strings.ContainsAny(a+b, "'\"’-") {
			t.Fatalf("title_asc: %q before %q", titles[i-1].Title, titles[i].Title)
		}
	}
	if titles[0].EntityID == asc[0].EntityID && titles[1].EntityID == asc[1].EntityID {
		t.Error("title_asc gives the date order")
	}
}

// Quoted words are a phrase: they must stand in a row (OpenBesluitvorming's web/search_api.ts
// buildSearchClause); unquoted they may stand anywhere.
func TestSearchPhrase(t *testing.T) {
	e, _ := newTest(t, false)
	s, _ := e.data.sourceByKey("soest")
	var title string
	for _, d := range s.docs {
		if len(tokens(d.title)) >= 3 {
			title = d.title
			break
		}
	}
	w := tokens(title)
	count := func(q string) int {
		rec := get(e, "/api/search?organization=soest&limit=100&entityType=Document&query="+url.QueryEscape(q))
		var resp SearchResponse
		decode(t, rec, &resp)
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", q, rec.Code, rec.Body.String())
		}
		return resp.TotalCount
	}
	inOrder := count(`"` + w[0] + " " + w[1] + `"`)
	reversed := count(`"` + w[1] + " " + w[0] + `"`)
	loose := count(w[1] + " " + w[0])
	if inOrder == 0 || loose < inOrder || reversed >= loose {
		t.Errorf("%q: phrase %d, reversed phrase %d, loose words %d", title, inOrder, reversed, loose)
	}
	// A single quoted word is a term; slop syntax is punctuation, not an error.
	if count(`"`+w[0]+`"`) != count(w[0]) {
		t.Error("one quoted word is not a plain term")
	}
	rec := get(e, "/api/search?organization=soest&query="+url.QueryEscape(`"`+w[0]+" "+w[1]+`"~3`))
	if rec.Code != 200 {
		t.Errorf("phrase with slop: %d %s", rec.Code, rec.Body.String())
	}
}

func TestSearchEmptyCases(t *testing.T) {
	e, _ := newTest(t, false)
	for _, q := range []string{"", "query=", "query=" + url.QueryEscape("?!..,"), "query=" + url.QueryEscape("!!") + "&organization=soest", "query=zzzqqq"} {
		rec := get(e, "/api/search?"+q)
		var resp SearchResponse
		decode(t, rec, &resp)
		if rec.Code != 200 || len(resp.Results) != 0 || resp.HasMore || resp.TotalCount != 0 {
			t.Errorf("%q: %d %+v", q, rec.Code, resp)
		}
		if !strings.Contains(rec.Body.String(), `"results":[]`) {
			t.Errorf("%q: results must be an empty array: %s", q, rec.Body.String())
		}
	}
}

func TestSearch(t *testing.T) {
	e, _ := newTest(t, false)
	rec := get(e, "/api/search?query=begroting&entityType=Document&limit=5")
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body.String())
	}
	shape.Exact(t, rec.Body.Bytes(), readFixture(t, "search.json"))
	var resp SearchResponse
	decode(t, rec, &resp)
	if len(resp.Results) != 5 || !resp.HasMore || resp.TotalCount < 5 {
		t.Fatalf("%+v", resp)
	}
	prev := resp.Results[0].SortDate
	if want := "/api/entities/" + strings.ReplaceAll(resp.Results[0].EntityID, ":", "%3A") + "/pdf/page/"; !strings.HasPrefix(resp.Results[0].PreviewImageURL, want) {
		t.Errorf("previewImageUrl %s", resp.Results[0].PreviewImageURL)
	}
	for _, r := range resp.Results {
		if r.EntityType != "Document" || !strings.Contains(strings.ToLower(r.Title+" "+r.Summary), "begroting") {
			t.Errorf("result %+v", r)
		}
		if !strings.HasPrefix(r.EntityID, "document:") || r.SortDate > prev || r.SortDate > "2026-11-29 23:59:59" {
			t.Errorf("order or id: %+v", r)
		}
		prev = r.SortDate
	}
	// Organization filter, date range, ascending order, offset paging.
	rec = get(e, "/api/search?organization=soest&sort=date_asc&dateFrom=2023-01-01&dateTo=2024-12-31&limit=100")
	decode(t, rec, &resp)
	if len(resp.Results) == 0 {
		t.Fatal("no results for soest 2023-2024")
	}
	for i, r := range resp.Results {
		if r.Organization != "Soest" || r.SortDate < "2023-01-01" || r.SortDate > "2024-12-31 23:59:59" {
			t.Errorf("filtered result %+v", r)
		}
		if i > 0 && r.SortDate < resp.Results[i-1].SortDate {
			t.Errorf("not ascending at %d", i)
		}
	}
	all := resp.Results
	resp = SearchResponse{}
	rec = get(e, "/api/search?organization=soest&sort=date_asc&dateFrom=2023-01-01&dateTo=2024-12-31&limit=3&offset=2")
	decode(t, rec, &resp)
	if len(all) >= 5 && (len(resp.Results) != 3 || resp.Results[0].EntityID != all[2].EntityID) {
		t.Errorf("offset paging: %+v", resp.Results)
	}
	// limit above 100 is capped.
	rec = get(e, "/api/search?query=de&limit=500")
	decode(t, rec, &resp)
	if len(resp.Results) != 100 {
		t.Errorf("limit=500 gave %d results", len(resp.Results))
	}
	// Motions.
	rec = get(e, "/api/search?query=motie&entityType=Motion&limit=3")
	decode(t, rec, &resp)
	for _, r := range resp.Results {
		if r.EntityType != "Motion" {
			t.Errorf("motion search: %+v", r)
		}
	}
}

func TestSearchRecording(t *testing.T) {
	e, _ := newTest(t, false)
	// Find a recording's spoken words, then search them.
	s, _ := e.data.sourceByKey("soest")
	var m *meeting
	for _, x := range s.meetings {
		if x.recording != "" && !x.created.After(testNow) {
			m = x
		}
	}
	if m == nil {
		t.Fatal("the generated data has no recording in soest")
	}
	words := tokens(m.spoken)
	rec := get(e, "/api/search?organization=soest&entityType=Recording&query="+url.QueryEscape(strings.Join(words[:3], " ")))
	// The fragment shows part of an item (one way); search.json shows the
	// whole item (both ways).
	shape.JSONShape(t, rec.Body.Bytes(), readFixture(t, "search-result-recording.fragment.json"), shape.At("results[]"))
	shape.Exact(t, rec.Body.Bytes(), readFixture(t, "search.json"), shape.Ignore("results[].downloadUrl", "results[].matchedPage", "results[].pageCount", "results[].previewImageUrl"))
	var resp SearchResponse
	decode(t, rec, &resp)
	found := false
	for _, r := range resp.Results {
		if r.EntityType != "Meeting" {
			t.Errorf("recording hit must come back as its meeting: %+v", r)
		}
		if r.EntityID == m.id && r.Summary == m.spoken {
			found = true
		}
	}
	if !found {
		t.Errorf("meeting %s not found by its spoken words", m.id)
	}
}

func firstOf(t *testing.T, e *Emulator, kind string) string {
	t.Helper()
	s, _ := e.data.sourceByKey("soest")
	switch kind {
	case "meeting":
		for i := len(s.meetings) - 1; i >= 0; i-- {
			m := s.meetings[i]
			if e.visible(m) && len(m.motions) > 0 && m.recording != "" {
				return m.id
			}
		}
	case "document":
		return s.docs[0].id
	case "motion":
		// An iBabs source, as entity-motion.json (Houten): Notubiz
		// sources have no per-member votes.
		s, _ = e.data.sourceByKey("houten")
		for _, mo := range s.motions {
			if mo.result == "aangenomen" && e.visible(mo) {
				return mo.id
			}
		}
	}
	t.Fatalf("the generated data has no %s", kind)
	return ""
}

func TestEntities(t *testing.T) {
	e, _ := newTest(t, false)
	for _, c := range []struct{ kind, fixture string }{{"document", "entity-document.json"}, {"meeting", "entity-meeting.json"}, {"motion", "entity-motion.json"}} {
		id := firstOf(t, e, c.kind)
		rec := get(e, "/api/entities/"+url.PathEscape(id))
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", id, rec.Code, rec.Body.String())
		}
		shape.Exact(t, rec.Body.Bytes(), readFixture(t, c.fixture),
			// Every entity detail starts with these (OpenBesluitvorming's web/search_api.ts, the
			// object getEntityContent returns; entity-document.json shows
			// them); the motion example leaves them out.
			shape.Allow("title", "organization", "date", "sortDate"),
			// Some Notubiz motions carry a free-text breakdown (OpenBesluitvorming's API.md,
			// schemas/motion.schema.json).
			shape.Allow("motions[].vote_summary", "motion.vote_summary"))
		var got map[string]any
		decode(t, rec, &got)
		if got["entityId"] != id {
			t.Errorf("entityId %v, want %s", got["entityId"], id)
		}
		// ':' unescaped works too.
		if rec2 := get(e, "/api/entities/"+id); rec2.Body.String() != rec.Body.String() {
			t.Errorf("%s: unescaped id gives another answer", id)
		}
	}
	doc := get(e, "/api/entities/"+url.PathEscape(firstOf(t, e, "document")))
	var d documentDetail
	decode(t, doc, &d)
	if len(d.MarkdownText) < 5000 || !strings.HasPrefix(d.MarkdownText, "# ") {
		t.Errorf("markdownText %d bytes", len(d.MarkdownText))
	}
	var mo motionDetail
	decode(t, get(e, "/api/entities/"+url.PathEscape(firstOf(t, e, "motion"))), &mo)
	if mo.Motion.Tally.InFavour <= mo.Motion.Tally.Against || len(mo.Motion.Votes) != mo.Motion.Tally.InFavour+mo.Motion.Tally.Against {
		t.Errorf("aangenomen motion: tally %+v, %d votes", mo.Motion.Tally, len(mo.Motion.Votes))
	}
}

// Notubiz motions have no per-member votes; one in three that came to a
// vote carries the free-text vote_summary (OpenBesluitvorming's API.md, motion.schema.json).
func TestNotubizMotions(t *testing.T) {
	e, _ := newTest(t, false)
	var motions []*motion
	for _, key := range []string{"soest", "putten", "weesp", "amsterdam"} {
		s, _ := e.data.sourceByKey(key)
		motions = append(motions, s.motions...)
	}
	summaries, voted := 0, 0
	for _, mo := range motions {
		if !e.visible(mo) {
			continue
		}
		var d motionDetail
		rec := get(e, "/api/entities/"+url.PathEscape(mo.id))
		decode(t, rec, &d)
		if len(d.Motion.Votes) != 0 || !strings.Contains(rec.Body.String(), `"votes":[]`) {
			t.Fatalf("%s: Notubiz motion with %d votes", mo.id, len(d.Motion.Votes))
		}
		if d.Motion.Tally.InFavour+d.Motion.Tally.Against > 0 {
			voted++
		}
		if d.Motion.VoteSummary != "" {
			summaries++
			if !strings.Contains(d.Motion.VoteSummary, "Voor: ") {
				t.Errorf("summary %q", d.Motion.VoteSummary)
			}
			shape.Exact(t, rec.Body.Bytes(), readFixture(t, "entity-motion.json"), shape.AllowEmpty(),
				shape.Allow("title", "organization", "date", "sortDate", // see TestEntities
					"motion.vote_summary")) // OpenBesluitvorming's API.md, schemas/motion.schema.json
		}
	}
	if voted < 20 || summaries < voted/6 || summaries > voted*2/3 {
		t.Errorf("%d of %d voted motions have a vote_summary", summaries, voted)
	}
}

func TestEntityNotFound(t *testing.T) {
	e, _ := newTest(t, false)
	want := readFixture(t, "error-404.json")
	for _, id := range []string{"document:notubiz:gemeente:soest:1", "nonsense", "document:ibabs:gemeente:soest:12345", "meeting:notubiz:gemeente:atlantis:1", "a%2Fb"} {
		rec := get(e, "/api/entities/"+id)
		if rec.Code != 404 {
			t.Errorf("%s: %d", id, rec.Code)
		}
		if strings.TrimSpace(rec.Body.String()) != `{"error":"Resultaat niet gevonden"}` {
			t.Errorf("%s: body %s", id, rec.Body.String())
		}
		shape.Exact(t, rec.Body.Bytes(), want)
	}
	// Not yet indexed: a meeting created after now.
	s, _ := e.data.sourceByKey("soest")
	last := s.meetings[len(s.meetings)-1]
	if last.created.After(testNow) {
		if rec := get(e, "/api/entities/"+last.id); rec.Code != 404 {
			t.Errorf("future meeting: %d", rec.Code)
		}
	}
}

func TestPDFPage(t *testing.T) {
	e, _ := newTest(t, false)
	s, _ := e.data.sourceByKey("soest")
	d := s.docs[0]
	base := "/api/entities/" + url.PathEscape(d.id) + "/pdf/page/"
	rec := get(e, base+"1")
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "image/jpeg" || rec.Header().Get("X-Pdf-Page-Count") != strconv.Itoa(d.pages) ||
		rec.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" || !strings.HasPrefix(rec.Body.String(), "\xff\xd8") {
		t.Fatalf("page 1: %d %v", rec.Code, rec.Header())
	}
	for _, c := range []struct {
		path string
		code int
		err  string
	}{
		{base + "0", 400, "Ongeldig paginanummer"},
		{base + "x", 400, "Ongeldig paginanummer"},
		{base + strconv.Itoa(d.pages+1), 404, "Pagina niet gevonden"},
		{"/api/entities/document%3Anotubiz%3Agemeente%3Asoest%3A1/pdf/page/1", 404, "PDF niet gevonden"},
		{"/api/entities/" + url.PathEscape(s.meetings[0].id) + "/pdf/page/1", 404, "PDF niet gevonden"},
	} {
		rec := get(e, c.path)
		if rec.Code != c.code || !strings.Contains(rec.Body.String(), c.err) {
			t.Errorf("%s: %d %s", c.path, rec.Code, rec.Body.String())
		}
	}
}

func TestSourcesStatsStatus(t *testing.T) {
	e, _ := newTest(t, false)
	rec := get(e, "/api/sources")
	shape.Exact(t, rec.Body.Bytes(), readFixture(t, "sources.json"))
	var src struct{ Sources []SourceInfo }
	decode(t, rec, &src)
	if len(src.Sources) != 330 {
		t.Errorf("%d sources", len(src.Sources))
	}
	decode(t, get(e, "/api/sources?implemented=true"), &src)
	if len(src.Sources) != 327 {
		t.Errorf("%d implemented sources", len(src.Sources))
	}
	for _, s := range src.Sources {
		if !s.Implemented {
			t.Errorf("not implemented: %+v", s)
		}
	}

	rec = get(e, "/api/stats")
	shape.Exact(t, rec.Body.Bytes(), readFixture(t, "stats.json"),
		// IndexStats in OpenBesluitvorming's web/search_api.ts (and the fallback body in
		// OpenBesluitvorming's web/server.ts) carry the counts per organisation type too.
		shape.Allow("municipalityCount", "provinceCount", "waterBoardCount"))
	var st map[string]int
	decode(t, rec, &st)
	if st["documentCount"] < 5000 || st["organizationCount"] < 300 || rec.Header().Get("Cache-Control") != "public, max-age=1800" {
		t.Errorf("stats %v", st)
	}

	rec = get(e, "/api/status")
	if rec.Header().Get("Cache-Control") != "public, max-age=600" {
		t.Error("status cache-control")
	}
	var status struct {
		GeneratedAt string
		Suppliers   []map[string]any
		Sources     []json.RawMessage
	}
	decode(t, rec, &status)
	if status.GeneratedAt != "2026-11-29T12:00:00.000Z" || len(status.Sources) != 330 || len(status.Suppliers) != 4 {
		t.Errorf("status: %s, %d sources, %d suppliers", status.GeneratedAt, len(status.Sources), len(status.Suppliers))
	}
	// Hold a failing source and a discontinued one against the doc examples.
	var want struct {
		Suppliers []json.RawMessage
		Sources   []json.RawMessage
	}
	_ = json.Unmarshal(readFixture(t, "status.json"), &want)
	var sawFailing, sawDisc bool
	for _, raw := range status.Sources {
		var s map[string]any
		_ = json.Unmarshal(raw, &s)
		switch s["state"] {
		case "failing":
			if !sawFailing {
				shape.Exact(t, raw, want.Sources[0])
				sawFailing = true
			}
		case "discontinued":
			if !sawDisc {
				shape.Exact(t, raw, readFixture(t, "status-source-discontinued.fragment.json"))
				sawDisc = true
			}
		}
	}
	if !sawFailing || !sawDisc {
		t.Errorf("failing %v discontinued %v", sawFailing, sawDisc)
	}
	for _, s := range status.Suppliers {
		b, _ := json.Marshal(s)
		if s["lastErrorMessage"] != nil {
			shape.Exact(t, b, want.Suppliers[0])
		}
	}
	var weesp map[string]any
	for _, raw := range status.Sources {
		var s map[string]any
		_ = json.Unmarshal(raw, &s)
		if s["sourceKey"] == "weesp" {
			weesp = s
		}
	}
	if sb, _ := weesp["succeededBy"].(map[string]any); sb["sourceKey"] != "amsterdam" || sb["cbsId"] != "GM0363" || weesp["discontinuedAt"] != "2022-03-24" {
		t.Errorf("weesp %v", weesp)
	}
}

func readNDJSON(t *testing.T, rec *httptest.ResponseRecorder) []exportRecord {
	t.Helper()
	var out []exportRecord
	for _, line := range strings.Split(strings.TrimSuffix(rec.Body.String(), "\n"), "\n") {
		if line == "" {
			continue
		}
		var r exportRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}

func TestExport(t *testing.T) {
	e, c := newTestAt(t, false, testNow.Add(-365*24*time.Hour)) // a year back, so the feed has a future
	// The messages of OpenBesluitvorming's web/server.ts, in {error} bodies.
	for _, cse := range []struct{ path, msg string }{
		{"/api/export/snapshot", "Parameter source is verplicht"},
		{"/api/export/changes?source=", "Parameter source is verplicht"},
		{"/api/export/snapshot?source=atlantis", `Onbekende source \"atlantis\"`},
		{"/api/export/snapshot?source=soest&cursor=garbage", "Ongeldige cursor"},
		{"/api/export/changes?source=soest&cursor=garbage", "Ongeldige cursor"},
		{"/api/export/changes?source=soest&cursor=motion", "Ongeldige cursor"},
	} {
		rec := get(e, cse.path)
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), cse.msg) {
			t.Errorf("%s: %d %s", cse.path, rec.Code, rec.Body.String())
		}
		shape.Exact(t, rec.Body.Bytes(), readFixture(t, "error-404.json"))
	}
	// The page size is clamped, never refused (src/exports/log.ts clampLimit).
	for raw, want := range map[string]int{"0": 1, "-3": 1, "x": 500, "2.9": 2, "5000": 1000, "": 1, "NaN": 500} {
		if got := exportLimit(url.Values{"limit": {raw}}); got != want {
			t.Errorf("limit=%q: %d, want %d", raw, got, want)
		}
	}
	if exportLimit(url.Values{}) != 500 {
		t.Error("default page size")
	}
	if rec := get(e, "/api/export/snapshot?source=soest&limit=0"); rec.Code != 200 || strings.Count(rec.Body.String(), "\n") != 1 {
		t.Errorf("limit=0: %d, %d lines", rec.Code, strings.Count(rec.Body.String(), "\n"))
	}
	// Page through the snapshot in pages of 7.
	var all []exportRecord
	cursor := ""
	for i := 0; i < 1000; i++ {
		rec := get(e, "/api/export/snapshot?source=soest&limit=7&cursor="+url.QueryEscape(cursor))
		if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/x-ndjson; charset=utf-8" || rec.Header().Get("X-Changes-Cursor") == "" {
			t.Fatalf("snapshot: %d %v", rec.Code, rec.Header())
		}
		page := readNDJSON(t, rec)
		all = append(all, page...)
		cursor = rec.Header().Get("X-Next-Cursor")
		if rec.Header().Get("X-Has-More") != "true" {
			break
		}
		if len(page) != 7 {
			t.Fatalf("a page with more after it has %d records", len(page))
		}
	}
	seen := map[string]bool{}
	kindsSeen := []string{}
	for _, r := range all {
		if seen[r.EntityID] {
			t.Errorf("duplicate %s", r.EntityID)
		}
		seen[r.EntityID] = true
		if r.Op != "upsert" || r.SourceKey != "soest" || r.Payload["type"] != r.EntityType || r.SchemaVersion != "v1alpha1" || !strings.HasPrefix(r.ContentHash, "sha256:") {
			t.Errorf("record %+v", r)
		}
		if _, hasText := r.Payload["markdownText"]; hasText {
			t.Error("full text inlined in an export record")
		}
		if len(kindsSeen) == 0 || kindsSeen[len(kindsSeen)-1] != r.EntityType {
			kindsSeen = append(kindsSeen, r.EntityType)
		}
	}
	if strings.Join(kindsSeen, ",") != "Meeting,Document,Motion" {
		t.Errorf("kinds in order %v", kindsSeen)
	}
	// The whole snapshot in one page is the same set.
	one := readNDJSON(t, get(e, "/api/export/snapshot?source=soest&limit=1000"))
	if len(one) != len(all) {
		t.Errorf("one page %d records, paged %d", len(one), len(all))
	}
	// cursor=motion skips ahead.
	mot := readNDJSON(t, get(e, "/api/export/snapshot?source=soest&cursor=motion"))
	for _, r := range mot {
		if r.EntityType != "Motion" {
			t.Errorf("cursor=motion gave %s", r.EntityType)
		}
	}
	// A snapshot cursor of another source is refused.
	if rec := get(e, "/api/export/snapshot?source=putten&cursor="+url.QueryEscape(cursor)); rec.Code != 400 {
		t.Errorf("foreign cursor: %d", rec.Code)
	}

	// Changes: read to the end, then nothing until the clock moves.
	snap := get(e, "/api/export/snapshot?source=soest&limit=1")
	cc := snap.Header().Get("X-Changes-Cursor")
	rec := get(e, "/api/export/changes?source=soest&cursor="+url.QueryEscape(cc))
	if rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("X-Has-More") != "false" {
		t.Fatalf("caught up: %d %q %v", rec.Code, rec.Body.String(), rec.Header())
	}
	total := 0
	cur := ""
	lastSeq := 0
	for {
		rec := get(e, "/api/export/changes?source=soest&limit=50&cursor="+url.QueryEscape(cur))
		recs := readNDJSON(t, rec)
		for _, r := range recs {
			if r.Seq != lastSeq+1 {
				t.Fatalf("seq %d after %d", r.Seq, lastSeq)
			}
			lastSeq = r.Seq
		}
		total += len(recs)
		cur = rec.Header().Get("X-Next-Cursor")
		if rec.Header().Get("X-Has-More") != "true" {
			break
		}
	}
	if total < len(all) {
		t.Errorf("changes %d < snapshot %d", total, len(all))
	}
	if cur != cc {
		t.Errorf("the changes read to the end should stop at the snapshot's changes cursor")
	}
	c.Advance(60 * 24 * time.Hour)
	rec = get(e, "/api/export/changes?source=soest&cursor="+url.QueryEscape(cur))
	if len(readNDJSON(t, rec)) == 0 {
		t.Error("no changes after 60 days")
	}
}

func TestRateLimit(t *testing.T) {
	e, c := newTest(t, true)
	ip := func(n int) []string { return []string{"X-Forwarded-For", fmt.Sprintf("10.0.0.9, 192.0.2.%d", n)} }
	// limit=100 costs 5: 12 searches empty the bucket of 60.
	for i := 0; i < 12; i++ {
		rec := get(e, "/api/search?query=woningbouw&organization=soest&limit=100", ip(1)...)
		if rec.Code != 200 {
			t.Fatalf("search %d: %d", i, rec.Code)
		}
		if got, want := rec.Header().Get("RateLimit-Remaining"), strconv.Itoa(60-5*(i+1)); got != want {
			t.Fatalf("search %d: remaining %s, want %s", i, got, want)
		}
		if rec.Header().Get("RateLimit-Limit") != "60" {
			t.Fatal("RateLimit-Limit")
		}
	}
	rec := get(e, "/api/search?query=woningbouw&organization=soest&limit=100", ip(1)...)
	if rec.Code != 429 || rec.Header().Get("Retry-After") != "5" || rec.Header().Get("RateLimit-Reset") != "60" {
		t.Fatalf("429 expected: %d %v", rec.Code, rec.Header())
	}
	shape.Exact(t, rec.Body.Bytes(), readFixture(t, "error-429.json"))
	var body map[string]any
	decode(t, rec, &body)
	if body["error"] != "Te veel verzoeken. Probeer het over 5 seconde(n) opnieuw." || body["retry_after_seconds"] != 5.0 || body["hint"] != Hint429 || body["limit_per_minute"] != 60.0 {
		t.Errorf("429 body %v", body)
	}
	// Another client is not affected; the remote address counts without XFF.
	if rec := get(e, "/api/sources", ip(2)...); rec.Code != 200 || rec.Header().Get("RateLimit-Remaining") != "59" {
		t.Errorf("second client: %d %v", rec.Code, rec.Header())
	}
	// Refill is continuous: after 4 s a cost-5 search still waits 1 s.
	c.Advance(4 * time.Second)
	rec = get(e, "/api/search?query=woningbouw&organization=soest&limit=100", ip(1)...)
	if rec.Code != 429 || rec.Header().Get("Retry-After") != "1" {
		t.Fatalf("after 4s: %d %v", rec.Code, rec.Header())
	}
	c.Advance(time.Second)
	if rec := get(e, "/api/search?query=woningbouw&organization=soest&limit=100", ip(1)...); rec.Code != 200 {
		t.Fatalf("after 5s: %d", rec.Code)
	}
	// PDF pages cost 1/8: 8 pages use one unit.
	c.Advance(time.Minute)
	s, _ := e.data.sourceByKey("soest")
	d := s.docs[0]
	for i := 0; i < 8; i++ {
		get(e, "/api/entities/"+url.PathEscape(d.id)+"/pdf/page/1", ip(3)...)
	}
	if rec := get(e, "/api/stats", ip(3)...); rec.Header().Get("RateLimit-Remaining") != "58" {
		t.Errorf("after 8 pages and stats: remaining %s", rec.Header().Get("RateLimit-Remaining"))
	}
	// Cost rules.
	for q, want := range map[string]float64{"": 1, "limit=24": 1, "limit=25": 2, "limit=100": 5, "limit=500": 21, "limit=0": 1, "limit=x": 1} {
		if got := Cost(httptest.NewRequest("GET", "/api/search?"+q, nil)); got != want {
			t.Errorf("cost of search %q = %v, want %v", q, got, want)
		}
	}
	if Cost(httptest.NewRequest("GET", "/schemas/meeting.schema.json", nil)) != 0 {
		t.Error("non-API paths are free")
	}
	// Headers on error answers too.
	if rec := get(e, "/api/search?entityType=X", ip(4)...); rec.Code != 400 || rec.Header().Get("RateLimit-Remaining") != "59" {
		t.Errorf("400 headers: %v", rec.Header())
	}
	if e.Limited() != 2 || e.EmulatorStats()["rate_limited"] != int64(2) {
		t.Errorf("limited = %d", e.Limited())
	}
	e.ResetEmulator()
	if e.Limited() != 0 {
		t.Error("reset")
	}
}

func TestUnknownPaths(t *testing.T) {
	e, _ := newTest(t, false)
	for _, p := range []string{"/", "/api/nope", "/api"} {
		if rec := get(e, p); rec.Code != 404 || rec.Body.String() != "Niet gevonden" {
			t.Errorf("%s: %d %s", p, rec.Code, rec.Body.String())
		}
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest("POST", "/api/search?query=x", nil))
	if rec.Code != 404 {
		t.Errorf("POST: %d", rec.Code)
	}
}

func TestDeterministic(t *testing.T) {
	a := NewEmulator(Config{Seed: 7, Clock: fakeclock.New(testNow)})
	b := NewEmulator(Config{Seed: 7, Clock: fakeclock.New(testNow)})
	p := "/api/search?query=woningbouw&organization=utrecht&limit=10"
	if get(a, p).Body.String() != get(b, p).Body.String() {
		t.Error("same seed, different answers")
	}
	x, y := newDataset(7), newDataset(7)
	for _, i := range []int{0, 100, 329} {
		sx, sy := x.source(i), y.source(i)
		if len(sx.docs) != len(sy.docs) || sx.docs[len(sx.docs)-1].id != sy.docs[len(sy.docs)-1].id || sx.meetings[0].title != sy.meetings[0].title {
			t.Errorf("source %d generated differently", i)
		}
	}
	c := NewEmulator(Config{Seed: 8, Clock: fakeclock.New(testNow)})
	if get(a, p).Body.String() == get(c, p).Body.String() {
		t.Error("different seeds, same answers")
	}
}
