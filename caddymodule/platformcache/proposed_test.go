package platformcache

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/besluitbron/besluitbron/cache"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

func counter(platform, kind, result string) float64 {
	var m dto.Metric
	_ = requestsTotal.WithLabelValues(platform, kind, result).Write(&m)
	return m.GetCounter().GetValue()
}

// TestProposedDefaultConfigClassifies loads the blocks proposed for the
// default Caddyfile and checks the kind real endpoints get.
func TestProposedDefaultConfigClassifies(t *testing.T) {
	raw, err := os.ReadFile("testdata/default-platform-cache.caddy")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile(`(?ms)^platform_cache (\w+) \{.*?^\}`).FindAllStringSubmatch(string(raw), -1)
	if len(blocks) != 7 {
		t.Fatalf("%d blocks, want 7", len(blocks))
	}
	u := newUpstream(t)
	port := testproc.FreePort(t)
	var site strings.Builder
	fmt.Fprintf(&site, "{\n\tadmin off\n}\n:%d {\n", port)
	for _, b := range blocks {
		fmt.Fprintf(&site, "\troute /platforms/%s/* {\n\t\turi strip_prefix /platforms/%s\n\t\t%s\n\t\treverse_proxy %s\n\t}\n",
			b[1], b[1], strings.ReplaceAll(b[0], "\n", "\n\t\t"), u.srv.URL)
	}
	site.WriteString("}\n")
	testcaddy.Load(t, site.String())

	multipartSearch := func() (string, []byte) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		_ = mw.WriteField("q", "stikstof")
		_ = mw.WriteField("twomonths", "true")
		_ = mw.Close()
		return mw.FormDataContentType(), buf.Bytes()
	}
	cases := []struct {
		platform, method, path, kind string
	}{
		{"ori", "GET", "/_cat/indices?v", cache.KindList},
		{"ori", "GET", "/ori_alkmaar_20190507105200/_mapping", cache.KindList},
		{"ori", "GET", "/ori_*/_search?q=stikstof", cache.KindSearch},
		{"ori", "POST", "/ori_*/_search", cache.KindSearch},
		{"ori", "GET", "/ori_soest_1/_doc/123", cache.KindDocument},
		{"obv", "GET", "/api/sources?implemented=true", cache.KindList},
		{"obv", "GET", "/schemas/meeting.schema.json", cache.KindList},
		{"obv", "GET", "/api/search?query=stikstof&organization=soest", cache.KindSearch},
		{"obv", "GET", "/api/status", cache.KindSearch},
		{"obv", "GET", "/api/entities/document%3Anotubiz%3Agemeente%3Asoest%3A12345", cache.KindDocument},
		{"obv", "GET", "/api/entities/document%3Anotubiz%3Agemeente%3Asoest%3A12345/pdf/page/3", cache.KindDocument},
		{"obv", "GET", "/api/export/changes?source=soest", cache.KindOther},
		{"tk", "GET", "/OData/v4/2.0/Fractie?$filter=Verwijderd%20eq%20false", cache.KindList},
		{"tk", "GET", "/OData/v4/2.0/Commissie", cache.KindList},
		{"tk", "GET", "/OData/v4/2.0/FractieZetelPersoon?$filter=TotEnMet%20eq%20null", cache.KindList},
		{"tk", "GET", "/OData/v4/2.0/Persoon(7a9b77f1-0000-0000-0000-000000000000)", cache.KindList},
		{"tk", "GET", "/OData/v4/2.0/Document?$filter=contains(Titel,'stikstof')&$top=250", cache.KindSearch},
		{"tk", "GET", "/OData/v4/2.0/Document(7a9b77f1-0000-0000-0000-000000000000)/resource", cache.KindDocument},
		{"tk", "GET", "/OData/v5/Fractie?$filter=Verwijderd%20eq%20false", cache.KindList},
		{"tk", "GET", "/OData/v5/Commissie?$orderby=Id&$top=100&$skip=100", cache.KindList},
		{"tk", "GET", "/OData/v5/$metadata", cache.KindList},
		{"tk", "GET", "/OData/v4/2.0/$metadata", cache.KindList},
		{"tk", "GET", "/OData/v5/Document?$filter=Verwijderd%20eq%20false&$orderby=Datum%20desc,Id%20desc&$top=100", cache.KindSearch},
		{"tk", "GET", "/OData/v5/Document?$filter=contains(Titel,'$metadata')", cache.KindSearch},
		{"tk", "GET", "/OData/v5", cache.KindSearch},
		{"tk", "GET", "/SyncFeed/2.0/Resources/7a9b77f1-0000-0000-0000-000000000000", cache.KindDocument},
		{"tk", "GET", "/SyncFeed/2.0/Feed?category=Document&skiptoken=123", cache.KindSearch},
		{"tk", "GET", "/SyncFeed/2.0/Entiteiten/7a9b77f1-0000-0000-0000-000000000000", cache.KindOther},
		{"opentk", "POST", "/search", cache.KindSearch},
		{"opentk", "GET", "/search/index.xml?q=stikstof", cache.KindSearch},
		{"opentk", "GET", "/ksds?q=klimaat", cache.KindSearch},
		{"opentk", "GET", "/getraw/2023D41173", cache.KindDocument},
		{"opentk", "GET", "/getdoc/2023D41173", cache.KindDocument},
		{"opentk", "GET", "/document.html?nummer=2023D41173", cache.KindDocument},
		{"opentk", "GET", "/commissie/abc", cache.KindList},
		{"opentk", "GET", "/kamerleden.html", cache.KindList},
		{"opentk", "GET", "/recent-kamerstukdossiers", cache.KindOther},
		{"ob", "GET", "/sru?operation=explain&version=2.0", cache.KindList},
		{"ob", "GET", "/sru?operation=searchRetrieve&version=2.0&query=dt.identifier%3D%3Dkst-26100-1", cache.KindSearch},
		{"ob", "GET", "/frbr/officielepublicaties/kst/26100/kst-26100-1/1/xml/kst-26100-1.xml", cache.KindDocument},
		{"ob", "GET", "/sru?operation=scan", cache.KindOther},
		{"rechtspraak", "GET", "/Waardelijst/Instanties", cache.KindList},
		{"rechtspraak", "GET", "/uitspraken/zoeken?type=Uitspraak&max=10", cache.KindSearch},
		{"rechtspraak", "GET", "/uitspraken/content?id=ECLI:NL:HR:2014:952", cache.KindDocument},
		{"rechtspraak", "GET", "/uitspraken/content?id=ECLI:NL:HR:2014:952&return=META", cache.KindDocument},
		{"oa", "GET", "/api/v1/bodies?government_type=gemeente", cache.KindList},
		{"oa", "GET", "/api/v1/search?q=stikstof&per_page=20", cache.KindSearch},
		{"oa", "GET", "/api/v1/documents/soest-000123", cache.KindDocument},
		{"oa", "GET", "/api/v1/documents/soest-000123/text?page=2", cache.KindDocument},
		{"oa", "GET", "/anything", cache.KindOther},
	}
	for _, tc := range cases {
		url := fmt.Sprintf("http://127.0.0.1:%d/platforms/%s%s", port, tc.platform, tc.path)
		var req *http.Request
		if tc.method == "POST" {
			ct, body := multipartSearch()
			if tc.platform == "ori" {
				ct, body = "application/json", []byte(`{"query":{"simple_query_string":{"query":"stikstof"}},"size":10}`)
			}
			req, _ = http.NewRequest("POST", url, bytes.NewReader(body))
			req.Header.Set("Content-Type", ct)
		} else {
			req, _ = http.NewRequest("GET", url, nil)
		}
		before := map[string]float64{}
		for _, k := range cache.Kinds {
			before[k] = counter(tc.platform, k, "miss") + counter(tc.platform, k, "bypass") + counter(tc.platform, k, "hit")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := ""
		for _, k := range cache.Kinds {
			if counter(tc.platform, k, "miss")+counter(tc.platform, k, "bypass")+counter(tc.platform, k, "hit") > before[k] {
				got = k
			}
		}
		if got != tc.kind {
			t.Errorf("%s %s %s: kind %q, want %q (Cache-Status %q)", tc.platform, tc.method, tc.path, got, tc.kind, resp.Header.Get("Cache-Status"))
		}
		if tc.method == "POST" && !strings.Contains(resp.Header.Get("Cache-Status"), "stored") {
			t.Errorf("%s POST search not stored: %q", tc.platform, resp.Header.Get("Cache-Status"))
		}
	}
}
