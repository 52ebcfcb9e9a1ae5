package obv

import (
	"net/url"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/fixture"
	"github.com/besluitbron/besluitbron/internal/refcheck"
)

func TestParseSearchFixture(t *testing.T) {
	p, err := ParseSearch(fixture.Read(t, "obv", "search.json"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Total != 42 || !p.TotalApprox || !p.HasMore || len(p.Hits) != 1 {
		t.Fatalf("page = %+v", p)
	}
	h := p.Hits[0]
	if h.ID != "document:notubiz:gemeente:soest:12345" || h.Title != "Raadsvoorstel begroting 2024" ||
		h.Date != "2024-11-07" || h.Source != "Soest" || h.Type != "Document" {
		t.Fatalf("hit = %+v", h)
	}
	if !strings.Contains(h.Snippet, "p. 3/12") || !strings.Contains(h.Snippet, "De begroting voor 2024") {
		t.Fatalf("snippet = %q", h.Snippet)
	}
	if h.URL != "" { // the docs' placeholder "https://..." is no link
		t.Fatalf("url = %q", h.URL)
	}
}

func TestParseEntityFixtures(t *testing.T) {
	d, err := ParseEntity(fixture.Read(t, "obv", "entity-document.json"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "Raadsvoorstel begroting 2024" || !strings.HasPrefix(d.Text, "# Raadsvoorstel") || d.Meta["meeting_id"] == "" {
		t.Fatalf("document = %+v", d)
	}
	m, err := ParseEntity(fixture.Read(t, "obv", "entity-meeting.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"1 Opening", "Raadsvoorstel begroting 2024", "M1 Woningbouw Soesterberg: aangenomen (20 voor, 11 tegen)", "Goedenavond allemaal"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("meeting text lacks %q:\n%s", want, m.Text)
		}
	}
	mo, err := ParseEntity(fixture.Read(t, "obv", "entity-motion.json"))
	if err != nil {
		t.Fatal(err)
	}
	if mo.Title != "045-2022 M Essenkade verhogen duurzaamheid" || mo.Meta["result"] != "aangenomen" ||
		!strings.Contains(mo.Text, "Kasius, S. (Partij ITH): tegen") {
		t.Fatalf("motion = %+v\n%s", mo, mo.Text)
	}
}

func TestParseSourcesAndStatusFixtures(t *testing.T) {
	src, err := ParseSources(fixture.Read(t, "obv", "sources.json"))
	if err != nil || len(src) != 1 || src[0].Key != "soest" || src[0].OrganizationType != "gemeente" {
		t.Fatalf("sources = %+v, %v", src, err)
	}
	st, err := ParseStatus(fixture.Read(t, "obv", "status.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Sources) != 1 || st.Sources[0].SourceKey != "soest" || st.Sources[0].State != "failing" ||
		st.Sources[0].LastSuccessAt != "2026-08-05T22:41:09.883Z" || len(st.Suppliers) != 1 || st.Suppliers[0].State != "down" {
		t.Fatalf("status = %+v", st)
	}
	d, err := ParseSourceStatus(fixture.Read(t, "obv", "status-source-discontinued.fragment.json"))
	if err != nil || d.State != "discontinued" || d.SucceededBy != "amsterdam" {
		t.Fatalf("discontinued = %+v, %v", d, err)
	}
	if _, err := ParseSources(fixture.Read(t, "obv", "error-404.json")); err == nil {
		t.Fatal("an error body parsed as a sources list")
	}
}

func TestSearchRequestChecks(t *testing.T) {
	r, err := SearchRequest(SearchParams{Query: "begroting", Organization: "soest", Limit: 10, DateFrom: "2024-01-01"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Path != "/api/search?dateFrom=2024-01-01&limit=10&organization=soest&query=begroting" {
		t.Fatalf("path = %s", r.Path)
	}
	bad := []struct {
		p    SearchParams
		want string
	}{
		{SearchParams{Limit: 10}, "give a query"},
		{SearchParams{Query: "x", Limit: 0}, "out of range"},
		{SearchParams{Query: "x", Limit: 1000}, "1 to 100"},
		{SearchParams{Query: "x", Limit: 5, EntityType: "MEETINGS"}, "Meeting, Document"},
		{SearchParams{Query: "x", Limit: 5, DateFrom: "1-2-2024"}, "YYYY-MM-DD"},
		{SearchParams{Query: "x", Limit: 5, DateFrom: "2024-02-01", DateTo: "2024-01-01"}, "swap"},
	}
	for _, b := range bad {
		if _, err := SearchRequest(b.p); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%+v: err = %v, want %q", b.p, err, b.want)
		}
	}
	er, err := EntityRequest("document:notubiz:gemeente:soest:12345")
	if err != nil || er.Path != "/api/entities/document%3Anotubiz%3Agemeente%3Asoest%3A12345" {
		t.Fatalf("entity = %+v, %v", er, err)
	}
	if _, err := EntityRequest("12345"); err == nil {
		t.Fatal("accepted a bare number")
	}
	if Cost(24) != 1 || Cost(25) != 2 || Cost(100) != 5 {
		t.Fatal("cost")
	}
}

// The platform refuses neither an unknown sort nor bad or inverted dates
// (it falls back or filters everything out), so the adapter does, saying
// what to fix; title_asc is offered, relevance (answered as date_desc) not.
func TestSortsAndDatesCheckedHere(t *testing.T) {
	r, err := SearchRequest(SearchParams{Query: "x", Limit: 5, Sort: "title_asc"})
	if err != nil || !strings.Contains(r.Path, "sort=title_asc") {
		t.Fatalf("title_asc: %+v %v", r, err)
	}
	for _, c := range []struct {
		p    SearchParams
		want string
	}{
		{SearchParams{Query: "x", Limit: 5, Sort: "relevance"}, "answers newest first"},
		{SearchParams{Query: "x", Limit: 5, Sort: "newest"}, "date_desc, date_asc, title_asc"},
		{SearchParams{Query: "x", Limit: 5, DateTo: "gisteren"}, "write it as YYYY-MM-DD"},
		{SearchParams{Query: "x", Limit: 5, DateFrom: "2024-13-01"}, "write it as YYYY-MM-DD"},
		{SearchParams{Query: "x", Limit: 5, DateFrom: "2025-01-02", DateTo: "2025-01-01"}, "swap them"},
	} {
		if _, err := SearchRequest(c.p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want %q", c.p, err, c.want)
		}
	}
}

// Quoted phrases reach the platform as typed: it searches them as phrases.
func TestPhraseQueryKept(t *testing.T) {
	r, err := SearchRequest(SearchParams{Query: ` "sociale huurwoningen" Soest `, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(r.Path)
	if q := u.Query().Get("query"); q != `"sociale huurwoningen" Soest` {
		t.Fatalf("query sent as %q", q)
	}
}

// A prompt takes an entity id as the fetch does (ValidEntityID), written
// as one word.
func TestRecognize(t *testing.T) {
	refcheck.Check(t, recognize, map[string]string{
		"document:notubiz:gemeente:soest:12345": "document:notubiz:gemeente:soest:12345", " meeting:notubiz:gemeente:putten:1423776\n": "meeting:notubiz:gemeente:putten:1423776",
		"motion:ibabs:gemeente:houten:a:b": "motion:ibabs:gemeente:houten:a:b", "agenda_item:notubiz:gemeente:soest:1": "agenda_item:notubiz:gemeente:soest:1",
		// Types the fetch does not know, in its case or at all; too few
		// parts; a sentence that starts with an id; empty.
		"Document:notubiz:gemeente:soest:12345": "", "agendaitem:notubiz:gemeente:soest:1": "", "document:12345": "",
		"document:notubiz:gemeente:soest:": "", "document:notubiz:gemeente:soest:12345 en meer": "", "document:notubiz:gemeente:soest:1\t2": "",
		"obv:document:notubiz:gemeente:soest:12345": "", "ECLI:NL:HR:2014:952": "", "": "", " ": "", "\n": "",
		"document:" + strings.Repeat("x", 300): "",
	})
}

// vote_summary (a Notubiz free-text breakdown, schemas/motion.schema.json)
// is shown on a motion and in a meeting's motion list.
func TestVoteSummary(t *testing.T) {
	motion := strings.Replace(string(fixture.Read(t, "obv", "entity-motion.json")), `"votes": [`,
		`"vote_summary": "Voor: CDA, VVD (20); tegen: GL (11)", "votes": [`, 1)
	d, err := ParseEntity([]byte(motion))
	if err != nil {
		t.Fatal(err)
	}
	if d.Meta["vote_summary"] != "Voor: CDA, VVD (20); tegen: GL (11)" || !strings.Contains(d.Text, "Stemverhouding: Voor: CDA, VVD (20); tegen: GL (11)") {
		t.Fatalf("motion: %+v\n%s", d.Meta, d.Text)
	}
	meeting := strings.Replace(string(fixture.Read(t, "obv", "entity-meeting.json")), `"votes": []`,
		`"votes": [], "vote_summary": "unaniem aangenomen"`, 1)
	m, err := ParseEntity([]byte(meeting))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Text, "M1 Woningbouw Soesterberg: aangenomen (20 voor, 11 tegen); stemverhouding: unaniem aangenomen") {
		t.Fatalf("meeting:\n%s", m.Text)
	}
}
