package fanout

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/caddymodule/subrequest"
	"github.com/besluitbron/besluitbron/internal/fixture"
)

// readFixture reads a real platform payload from testdata/fixtures (see
// its README): <platform>/<file>.
func readFixture(t *testing.T, name string) string {
	t.Helper()
	platform, file, _ := strings.Cut(name, "/")
	return string(fixture.Read(t, platform, file))
}

// TestDedupKamerstukAndECLI: the real SRU record (gmb-2023-174296) made
// into a kamerstuk (identifier, preferredUrl and itemUrls kst-36200-VII-12,
// as OB writes kamerstukken) and an OpenTK hit whose link is OpenTK's
// /op/<official-publication id> redirect for the same kamerstuk fold into
// one hit led by OB; a Rechtspraak hit (the real content.xml's ECLI) and
// an ORI hit whose link names that ECLI fold into one led by Rechtspraak.
func TestDedupKamerstukAndECLI(t *testing.T) {
	rec := strings.ReplaceAll(readFixture(t, "ob/sru-record-gmb.fragment.xml"), "gmb-2023-174296", "kst-36200-VII-12")
	rec = strings.ReplaceAll(rec, "officielepublicaties/gmb/2023/", "officielepublicaties/kst/36200-VII/")
	sru := `<searchRetrieveResponse><numberOfRecords>1</numberOfRecords><records>` + rec + `</records></searchRetrieveResponse>`
	content := readFixture(t, "rechtspraak/content.xml")
	const ecli = "ECLI:NL:RBDHA:2013:15631"
	if !strings.Contains(content, ecli) {
		t.Fatalf("content.xml is not the ruling %s any more", ecli)
	}
	opentkJSON := `{"results":[{"nummer":"2023D41173","datum":"2023-04-19T00:00:00","category":"Document","onderwerp":"Vaststelling begroting","snip":"...","relurl":"op/kst-36200-VII-12"},
		{"nummer":"2023D00001","datum":"2023-01-02T00:00:00","category":"Document","onderwerp":"Andere brief","snip":"...","relurl":"document.html?nummer=2023D00001"}],"milliseconds":3}`
	oriJSON := `{"hits":{"total":{"value":1},"hits":[{"_id":"77","_index":"ori_utrecht_1","_source":{"name":"Raadsvoorstel na uitspraak","last_discussed_at":"2014-05-01T00:00:00","original_url":"https://uitspraken.rechtspraak.nl/InzienDocument?id=` + ecli + `"}}]}}`
	do := func(_ context.Context, platform string, req adapters.Request) (*subrequest.Answer, error) {
		body := map[string]string{"ob": sru, "opentk": opentkJSON, "rechtspraak": content, "ori": oriJSON}[platform]
		if platform == "ori" && !strings.Contains(req.Path, "_search") {
			return &subrequest.Answer{Status: 404}, nil // organisation names: none
		}
		return &subrequest.Answer{Status: 200, Body: []byte(body)}, nil
	}
	e, _ := engine(t, do, "opentk", "ob", "rechtspraak", "ori")
	res := e.Search(context.Background(), Query{Words: "begroting " + ecli}, nil)
	for _, o := range res.Outcomes {
		if o.State != StateAnswered {
			t.Fatalf("%s: %s %s", o.Platform, o.State, o.Error)
		}
	}
	byID := map[string]Hit{}
	for _, h := range res.Hits {
		byID[h.Platform+" "+h.ID] = h
	}
	kst, ok := byID["ob kst-36200-VII-12"]
	if !ok || len(kst.Also) != 1 || kst.Also[0].Platform != "opentk" || kst.Also[0].ID != "2023D41173" {
		t.Errorf("kamerstuk: %+v, want OB's hit with OpenTK's 2023D41173 in also (hits %v)", kst, keys(byID))
	}
	r, ok := byID["rechtspraak "+ecli]
	if !ok || len(r.Also) != 1 || r.Also[0].Platform != "ori" {
		t.Errorf("ruling: %+v, want Rechtspraak's hit with ORI's in also (hits %v)", r, keys(byID))
	}
	if _, ok := byID["opentk 2023D00001"]; !ok || len(res.Hits) != 3 {
		t.Errorf("hits %v: want the kamerstuk, the ruling and OpenTK's other letter", keys(byID))
	}
}

func keys(m map[string]Hit) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestIdentifiers: what counts as the same document.
func TestIdentifiers(t *testing.T) {
	for _, tc := range []struct {
		id, url string
		want    string
	}{
		{"kst-36200-VII-12", "https://zoek.officielebekendmakingen.nl/kst-36200-VII-12.html", "kst:36200-VII:12"},
		{"kst-26100-1", "", "kst:26100:1"},
		{"stb-2018-84", "https://zoek.officielebekendmakingen.nl/stb-2018-84.html", ""},
		{"2023D41173", "https://berthub.eu/tkconv/document.html?nummer=2023D41173", "tkdoc:2023D41173"},
		{"x", "https://berthub.eu/tkconv/op/kst-36200-VII-12", "kst:36200-VII:12"},
		{"ECLI:NL:HR:2014:952", "", "ecli:ECLI:NL:HR:2014:952"},
		{"document:notubiz:gemeente:soest:12345", "https://api.openbesluitvorming.nl/x", ""},
	} {
		got := strings.Join(identifiers(Hit{ID: tc.id, URL: tc.url}), " ")
		if !strings.Contains(got, tc.want) || (tc.want == "" && got != "") {
			t.Errorf("identifiers(%q, %q) = %q, want %q", tc.id, tc.url, got, tc.want)
		}
	}
}

// TestMergeOrder: newest first, undated last; two hits of one platform
// under one identifier stay two hits.
func TestMergeOrder(t *testing.T) {
	keys := []string{"obv", "tk"}
	per := [][]Hit{
		{{Platform: "obv", ID: "a", Date: "2024-01-02"}, {Platform: "obv", ID: "b"}, {Platform: "obv", ID: "c", Date: "2025-05-05T10:00:00"}},
		{{Platform: "tk", ID: "2023D41173", Date: "2024-06-01"}, {Platform: "tk", ID: "2023D41173", Date: "2020-01-01"}},
	}
	var got []string
	for _, h := range merge(keys, per) {
		got = append(got, fmt.Sprintf("%s/%s", h.Platform, h.ID))
	}
	want := "obv/c tk/2023D41173 obv/a tk/2023D41173 obv/b"
	if strings.Join(got, " ") != want {
		t.Errorf("order %v, want %s", got, want)
	}
}
