package emulator

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/fixture"
	"github.com/besluitbron/besluitbron/internal/shape"
)

func get(t *testing.T, h http.Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://emulator.test"+path, nil))
	return rec
}

func TestDataIsTheFixtures(t *testing.T) {
	entries, err := data.ReadDir("data")
	if err != nil || len(entries) != 2 {
		t.Fatalf("%v %v", entries, err)
	}
	for _, e := range entries {
		b, _ := data.ReadFile("data/" + e.Name())
		if !bytes.Equal(b, fixture.Read(t, "cvdr", e.Name())) {
			t.Errorf("data/%s differs from testdata/fixtures/cvdr", e.Name())
		}
	}
}

// Each regulation is served at the repository's address of it, as the
// real file: its shape both ways.
func TestRegulations(t *testing.T) {
	h := New()
	for path, sample := range map[string]string{
		"/cvdr/CVDR100394/2/xml/CVDR100394_2.xml": "CVDR100394_2.xml",
		"/cvdr/CVDR112779/1/xml/CVDR112779_1.xml": "112779_1.xml",
	} {
		rec := get(t, h, path)
		if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/xml") {
			t.Fatalf("%s: %d", path, rec.Code)
		}
		shape.Exact(t, rec.Body.Bytes(), fixture.Read(t, "cvdr", sample))
	}
	for _, p := range []string{"/cvdr/CVDR100394/1/xml/CVDR100394_1.xml", "/cvdr/CVDR100394/2/html/CVDR100394_2.html", "/cvdr/112779/1/xml/112779_1.xml", "/"} {
		if rec := get(t, h, p); rec.Code != 404 {
			t.Errorf("%s: %d", p, rec.Code)
		}
	}
}

func search(t *testing.T, h http.Handler, cql string, extra ...string) string {
	t.Helper()
	q := url.Values{"x-connection": {"cvdr"}, "operation": {"searchRetrieve"}, "version": {"1.2"}, "query": {cql}}
	for i := 0; i+1 < len(extra); i += 2 {
		q.Set(extra[i], extra[i+1])
	}
	rec := get(t, h, "/sru/Search?"+q.Encode())
	if rec.Code != 200 {
		t.Fatalf("%s: %d", cql, rec.Code)
	}
	return rec.Body.String()
}

func ids(body string) string {
	var out []string
	for _, m := range regexp.MustCompile(`<dcterms:identifier>([^<]+)<`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return strings.Join(out, " ")
}

func TestSearch(t *testing.T) {
	h := New()
	for cql, want := range map[string]string{
		`keyword all "gehandicaptenparkeerplaats"`:                                                      "CVDR100394_2",
		`dcterms.creator="Kampen"`:                                                                      "CVDR100394_2",
		`dcterms.creator="spijkenisse" and keyword all "GBA"`:                                           "112779_1",
		`keyword any "parkeren gba"`:                                                                    "CVDR100394_2 112779_1",
		`keyword all "parkeren" and overheidrg.inwerkingtredingDatum<=2012-01-01`:                       "",
		`overheidrg.inwerkingtredingDatum<=2012-01-01 and overheidrg.uitwerkingtredingDatum>2012-01-01`: "112779_1",
		`dcterms.identifier==CVDR100394_2`:                                                              "CVDR100394_2",
		`cql.allRecords=1`:                                                                              "CVDR100394_2 112779_1",
	} {
		if got := ids(search(t, h, cql)); got != want {
			t.Errorf("%s: %q, want %q", cql, got, want)
		}
	}
	for cql, code := range map[string]string{`dcterms.subject any "x"`: "16", `keyword == "x"`: "19",
		`overheidrg.inwerkingtredingDatum<=morgen`: "36", `keyword all`: "10"} {
		if b := search(t, h, cql); !strings.Contains(b, "info:srw/diagnostic/1/"+code+"<") {
			t.Errorf("%s: %s", cql, b)
		}
	}
}

// A record's <meta> is the regulation's own, both ways; its enrichedData
// names the regulation's files and page.
func TestRecordShape(t *testing.T) {
	h := New()
	body := search(t, h, `dcterms.identifier==CVDR100394_2`)
	s := string(fixture.Read(t, "cvdr", "CVDR100394_2.xml"))
	meta := s[strings.Index(s, "<meta"):]
	meta = meta[:strings.Index(meta, "</meta>")+len("</meta>")]
	// The fragment's prefixes are declared on the regulation's root.
	meta = strings.Replace(meta, "<meta", `<meta xmlns="http://standaarden.overheid.nl/cvdr/terms/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:overheid="http://standaarden.overheid.nl/owms/terms/" xmlns:overheidrg="http://standaarden.overheid.nl/cvdr/meta/"`, 1)
	shape.Exact(t, []byte(body), []byte(meta), shape.Anywhere())
	for _, want := range []string{"<gzd:organisatietype>Gemeente<", "<gzd:publicatieurl_xml>http://emulator.test/cvdr/CVDR100394/2/xml/CVDR100394_2.xml<",
		"<gzd:preferred_url>https://lokaleregelgeving.overheid.nl/CVDR100394/2<"} {
		if !strings.Contains(body, want) {
			t.Errorf("record lacks %s", want)
		}
	}
}
