package ob

import (
	"errors"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/fixture"
	"github.com/besluitbron/besluitbron/platforms"
)

func TestParseRecordFixture(t *testing.T) {
	r, err := ParseRecord(fixture.Read(t, "ob", "sru-record-gmb.fragment.xml"))
	if err != nil {
		t.Fatal(err)
	}
	h := r.Hit
	if h.ID != "gmb-2023-174296" || h.Type != "Gemeenteblad" || h.Source != "Bergeijk" || h.Date != "2023-04-20" ||
		!strings.HasPrefix(h.Title, "Ingekomen melding, Frater Romboutsstraat 42") ||
		h.URL != "https://zoek.officielebekendmakingen.nl/gmb-2023-174296.html" || h.Snippet != "verwijderen van asbest van het dak" {
		t.Fatalf("%+v", h)
	}
	fr, err := FileRequest(publicBases(t), r.Items["xml"])
	if err != nil || fr.Path != "/frbr/officielepublicaties/gmb/2023/gmb-2023-174296/1/xml/gmb-2023-174296.xml" {
		t.Fatalf("%+v %v", fr, err)
	}
}

// publicBases are OB's public base URLs, from the platforms table.
func publicBases(t *testing.T) []string {
	p, ok := platforms.Get(platforms.OB)
	if !ok || len(p.BaseURLs) == 0 {
		t.Fatal("no ob in the platforms table")
	}
	return p.BaseURLs
}

// A configured mirror's links pass; the public host does not once the
// caller leaves it out, and no bases refuse everything.
func TestFileRequestBases(t *testing.T) {
	mirror := []string{"http://127.0.0.1:9105/ob"}
	const file = "/frbr/officielepublicaties/stb/2018/stb-2018-84/1/xml/stb-2018-84.xml"
	if fr, err := FileRequest(mirror, "http://127.0.0.1:9105/ob"+file); err != nil || fr.Path != file {
		t.Fatalf("mirror link: %+v %v", fr, err)
	}
	for _, bad := range []string{
		"https://repository.overheid.nl" + file, // not among these bases
		"http://127.0.0.1:9105" + file,          // outside the mirror's prefix
		"http://127.0.0.1:9106/ob" + file,       // another port
	} {
		if fr, err := FileRequest(mirror, bad); err == nil {
			t.Errorf("%s followed as %s", bad, fr.Path)
		}
	}
	if fr, err := FileRequest(nil, "https://repository.overheid.nl"+file); err == nil {
		t.Errorf("followed without base URLs as %s", fr.Path)
	}
}

func TestSearchEnvelopeWithNamespaces(t *testing.T) {
	// The live answer carries prefixes; wrap the real record in the SRU
	// envelope with gzd namespaces to check the parser ignores them.
	rec := string(fixture.Read(t, "ob", "sru-record-gmb.fragment.xml"))
	rec = strings.Replace(rec, "<record>", `<sru:record xmlns:sru="http://docs.oasis-open.org/ns/search-ws/sruResponse">`, 1)
	rec = strings.Replace(rec, "</record>", "</sru:record>", 1)
	body := `<?xml version="1.0"?><sru:searchRetrieveResponse xmlns:sru="http://docs.oasis-open.org/ns/search-ws/sruResponse"><sru:version>2.0</sru:version><sru:numberOfRecords>641420</sru:numberOfRecords><sru:records>` + rec + `</sru:records><sru:nextRecordPosition>2</sru:nextRecordPosition></sru:searchRetrieveResponse>`
	p, recs, err := ParseSearch([]byte(body))
	if err != nil || p.Total != 641420 || !p.HasMore || len(p.Hits) != 1 || p.Hits[0].ID != "gmb-2023-174296" || recs[0].Items["pdf"] == "" {
		t.Fatalf("%+v %v", p, err)
	}
	_, _, err = ParseSearch([]byte(`<searchRetrieveResponse><diagnostics><diagnostic><message>Query syntax error</message></diagnostic></diagnostics></searchRetrieveResponse>`))
	if err == nil || !strings.Contains(err.Error(), "Query syntax error") {
		t.Fatal(err)
	}
}

func TestParseXMLFixtures(t *testing.T) {
	s, err := ParseXML(fixture.Read(t, "ob", "op-stcrt-2015-47076.xml"))
	if err != nil || !strings.Contains(s, "Ter inzage: omgevingsvergunning") || !strings.Contains(s, "Dit ontwerpbesluit ligt vanaf 24 december 2015 zes weken ter inzage") {
		t.Fatalf("%v\n%s", err, s)
	}
	s, err = ParseXML(fixture.Read(t, "ob", "op-stb-2018-84.xml"))
	if err != nil || strings.Count(s, "\n") < 5 {
		t.Fatalf("%v\n%s", err, s)
	}
	if strings.Contains(s, "\r") {
		t.Fatal("CR left in text")
	}
}

func TestRequests(t *testing.T) {
	r, err := SearchRequest(SearchParams{Query: `asbest "dak"`, Publication: "gemeenteblad", DateFrom: "2023-01-01", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Path, "/sru?") || !strings.Contains(r.Path, "maximumRecords=5") ||
		!strings.Contains(r.Path, "cql.textAndIndexes%3D%22asbest+%5C%22dak%5C%22%22") || !strings.Contains(r.Path, "Gemeenteblad") {
		t.Fatal(r.Path)
	}
	if _, err := SearchRequest(SearchParams{Query: "x", Limit: 5, Offset: 6000}); err == nil {
		t.Fatal("deep offset accepted")
	}
	if fr, err := FileRequest(publicBases(t), "https://repository.overheid.nl/frbr/officielepublicaties/stb/2018/stb-2018-84/1/xml/stb-2018-84.xml"); err != nil || fr.Path != "/frbr/officielepublicaties/stb/2018/stb-2018-84/1/xml/stb-2018-84.xml" {
		t.Fatal("an itemUrl on the platform's host must be followed", fr, err)
	}
	for _, bad := range []string{
		"https://evil.example/x/frbr/a/b.xml",        // another host
		"http://169.254.169.254/frbr/a.xml",          // metadata service
		"https://repository.overheid.nl/sru/x",       // not a publication file
		"https://repository.overheid.nl:8443/frbr/a", // another port
	} {
		if fr, err := FileRequest(publicBases(t), bad); err == nil {
			t.Errorf("%s followed as %s", bad, fr.Path)
		}
	}
	for _, id := range []string{"kst-26100-1", "h-tk-20232024-12-3", "ah-tk-20232024-123"} {
		if _, err := ValidID(id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ValidID("../../x"); err == nil {
		t.Fatal("junk id")
	}
}

func TestLookupIsExactAndChecked(t *testing.T) {
	r, err := LookupRequest("GMB-2023-174296")
	if err != nil {
		t.Fatal(err)
	}
	// "==" is CQL's exact relation; "=" would be a word match.
	if !strings.Contains(r.Path, "dt.identifier%3D%3D%22gmb-2023-174296%22") {
		t.Fatalf("look-up is not an exact match: %s", r.Path)
	}
	rec := string(fixture.Read(t, "ob", "sru-record-gmb.fragment.xml"))
	body := []byte(`<searchRetrieveResponse><numberOfRecords>1</numberOfRecords><records>` + rec + `</records></searchRetrieveResponse>`)
	got, err := ParseLookup(body, "gmb-2023-174296")
	if err != nil || got.Hit.ID != "gmb-2023-174296" {
		t.Fatalf("%+v %v", got.Hit, err)
	}
	// A record with another identifier is never taken for the one asked:
	// a shorter id whose words it contains, and a longer one.
	for _, id := range []string{"gmb-2023-17429", "gmb-2023-174296-n1", "stb-2018-84"} {
		_, err := ParseLookup(body, id)
		if !errors.Is(err, ErrNoPublication) || !strings.Contains(err.Error(), "answered with gmb-2023-174296") {
			t.Errorf("%s: err = %v", id, err)
		}
	}
	empty := []byte(`<searchRetrieveResponse><numberOfRecords>0</numberOfRecords></searchRetrieveResponse>`)
	if _, err := ParseLookup(empty, "stb-2018-84"); !errors.Is(err, ErrNoPublication) {
		t.Fatalf("empty answer: %v", err)
	}
	if _, err := ParseLookup(body, "../x"); err == nil || errors.Is(err, ErrNoPublication) {
		t.Fatalf("junk id: %v", err)
	}
	// The right record after others is still found; a broken answer or a
	// diagnostic is a parse error, not "no such publication".
	other := strings.Replace(rec, "gmb-2023-174296</identifier>", "gmb-2023-1742961</identifier>", 1)
	two := []byte(`<searchRetrieveResponse><numberOfRecords>2</numberOfRecords><records>` + other + rec + `</records></searchRetrieveResponse>`)
	if got, err := ParseLookup(two, "gmb-2023-174296"); err != nil || got.Hit.ID != "gmb-2023-174296" {
		t.Fatalf("second record: %+v %v", got.Hit, err)
	}
	for _, bad := range []string{`<html><body>Service Unavailable`, `<searchRetrieveResponse><diagnostics><diagnostic><message>Query syntax error</message></diagnostic></diagnostics></searchRetrieveResponse>`, `{"records":[]}`} {
		if _, err := ParseLookup([]byte(bad), "gmb-2023-174296"); err == nil || errors.Is(err, ErrNoPublication) {
			t.Errorf("%.30s: err = %v", bad, err)
		}
	}
}
