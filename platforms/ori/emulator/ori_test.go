package emulator

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/emulators/corpus"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/shape"
)

var fixedNow = func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) }

var (
	once sync.Once
	emu  http.Handler
)

func handler0() http.Handler {
	once.Do(func() { emu = New(Config{Seed: 1, Clock: fakeclock.New(fixedNow())}) })
	return emu
}

func call(t *testing.T, method, target, body string) (int, []byte, http.Header) {
	t.Helper()
	var rd *strings.Reader
	if body != "" {
		rd = strings.NewReader(body)
	} else {
		rd = strings.NewReader("")
	}
	req := httptest.NewRequest(method, "http://ori.test"+target, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	handler0().ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes(), rec.Header()
}

// documentedEnvelope is the standard ES7 _search answer with a MediaObject
// of reference/platforms.md §1 (no real ORI answer was recorded): the
// fields of ORI's MediaObject model (schema.py; size_in_bytes) and the
// @context object its JsonLDSerializer adds (serializers.py).
const documentedEnvelope = `{"took":3,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},
"hits":{"total":{"value":1,"relation":"eq"},"max_score":1.5,"hits":[{"_index":"ori_alkmaar_20190507105200","_type":"_doc",
"_id":"1","_score":1.5,"_source":{"@id":"1","@type":"MediaObject","name":"n","content_type":"application/pdf",
"original_url":"https://x","url":"https://api.openraadsinformatie.nl/v1/resolve/x","last_discussed_at":"2019-05-07T19:30:00+00:00",
"is_referenced_by":"2","has_organization_name":"3","text":"t","md_text":["m"],"text_pages":[{"page_number":1,"text":"t"}],
"size_in_bytes":1,"@context":{"@base":"b","MediaObject":"m","name":{"@id":"i"},"url":{"@id":"i"},"size_in_bytes":{"@id":"i"},
"content_type":{"@id":"i"},"original_url":{"@id":"i"},"text":{"@id":"i"},"md_text":{"@id":"i"},"text_pages":{"@id":"i"},
"last_discussed_at":{"@id":"i"},"is_referenced_by":{"@id":"i","@type":"@id"},"has_organization_name":{"@id":"i","@type":"@id"}}}}]}}`

type resp struct {
	Took   int                 `json:"took"`
	Shards struct{ Total int } `json:"_shards"`
	Hits   struct {
		Total struct {
			Value    int
			Relation string
		}
		MaxScore *float64 `json:"max_score"`
		Hits     []struct {
			Index     string          `json:"_index"`
			ID        string          `json:"_id"`
			Score     *float64        `json:"_score"`
			Source    json.RawMessage `json:"_source"`
			Sort      []any           `json:"sort"`
			Highlight map[string][]string
		}
	}
}

func search(t *testing.T, method, target, body string) resp {
	t.Helper()
	code, b, _ := call(t, method, target, body)
	if code != 200 {
		t.Fatalf("%s %s: %d %s", method, target, code, b)
	}
	var r resp
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestEnvelopeAndDocument(t *testing.T) {
	code, body, hdr := call(t, "GET", "/ori_*/_search?q=woningbouw&size=3", "")
	if code != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
		t.Fatalf("%d %s", code, hdr)
	}
	// Both ways: nothing beyond the documented envelope and the fields of
	// ORI's MediaObject model (ocd_backend/models/definitions/schema.py).
	shape.Exact(t, body, []byte(documentedEnvelope))
	r := search(t, "GET", "/ori_*/_search?q=woningbouw&size=3", "")
	var src struct {
		Text      string `json:"text"`
		TextPages []struct {
			PageNumber int `json:"page_number"`
		} `json:"text_pages"`
	}
	json.Unmarshal(r.Hits.Hits[0].Source, &src)
	if len(src.Text) < 10_000 || len(src.TextPages) < 3 {
		t.Errorf("text %d bytes, %d pages", len(src.Text), len(src.TextPages))
	}
	if !strings.Contains(strings.ToLower(src.Text), "woningbouw") {
		t.Error("hit text lacks the query word")
	}
	if r.Hits.Total.Value == 0 || r.Hits.Total.Relation != "eq" || len(r.Hits.Hits) != 3 {
		t.Errorf("total %+v, %d hits", r.Hits.Total, len(r.Hits.Hits))
	}
}

// The documented cheap idiom: metadata only.
func TestSourceFiltering(t *testing.T) {
	r := search(t, "POST", "/ori_*/_search", `{"query":{"simple_query_string":{"query":"begroting","fields":["text","title","description","name"]}},
		"size":5,"_source":{"excludes":["text","md_text","text_pages"]}}`)
	for _, h := range r.Hits.Hits {
		var m map[string]any
		json.Unmarshal(h.Source, &m)
		if _, ok := m["text"]; ok || m["md_text"] != nil || m["text_pages"] != nil || m["name"] == nil || m["@id"] != h.ID {
			t.Errorf("source %s", h.Source)
		}
		if len(h.Source) > 2000 {
			t.Errorf("metadata source is %d bytes", len(h.Source))
		}
	}
	r = search(t, "GET", "/ori_*/_search?q=begroting&_source_includes=name,last_*&size=2", "")
	var m map[string]any
	json.Unmarshal(r.Hits.Hits[0].Source, &m)
	if len(m) != 2 || m["name"] == nil || m["last_discussed_at"] == nil {
		t.Errorf("includes: %s", r.Hits.Hits[0].Source)
	}
	r = search(t, "POST", "/ori_*/_search", `{"_source":false,"size":1}`)
	if r.Hits.Hits[0].Source != nil {
		t.Errorf("_source false: %s", r.Hits.Hits[0].Source)
	}
	r = search(t, "POST", "/ori_*/_search", `{"_source":["text_pages.page_number"],"size":1}`)
	json.Unmarshal(r.Hits.Hits[0].Source, &m)
	if _, ok := m["text_pages"]; !ok {
		t.Errorf("nested include: %s", r.Hits.Hits[0].Source[:100])
	}
}

func TestIndicesAndPatterns(t *testing.T) {
	counts := map[string]int{}
	for _, o := range corpus.Orgs() {
		counts[prefixOf(o.Type)]++
	}
	for prefix, want := range counts {
		r := search(t, "GET", "/"+prefix+"_*/_search?size=0", "")
		if r.Shards.Total != want {
			t.Errorf("%s_*: %d indices, want %d", prefix, r.Shards.Total, want)
		}
	}
	if counts["ori"] != 309 || counts["osi"] != 8 || counts["owi"] != 13 {
		t.Errorf("counts %v", counts)
	}
	code, body, hdr := call(t, "GET", "/_cat/indices?v", "")
	lines := strings.Split(strings.TrimSpace(string(body)), "\n")
	if code != 200 || len(lines) != 331 || !strings.HasPrefix(lines[0], "health status index") || !strings.HasPrefix(hdr.Get("Content-Type"), "text/plain") {
		t.Fatalf("_cat/indices: %d, %d lines", code, len(lines))
	}
	name := strings.Fields(lines[1])[2]
	// one concrete index, a two-pattern list, and terms on _index
	r := search(t, "GET", "/"+name+"/_search?size=1", "")
	if r.Shards.Total != 1 || r.Hits.Hits[0].Index != name {
		t.Errorf("concrete index: %+v", r.Shards)
	}
	r = search(t, "POST", "/ori_*/_search", `{"query":{"terms":{"_index":["`+name+`"]}},"size":1000}`)
	if r.Hits.Total.Value == 0 || r.Hits.Hits[len(r.Hits.Hits)-1].Index != name {
		t.Errorf("terms _index: %d", r.Hits.Total.Value)
	}
	r = search(t, "GET", "/osi_*,owi_*/_search?size=0", "")
	if r.Shards.Total != 21 {
		t.Errorf("list of patterns: %d", r.Shards.Total)
	}
	r = search(t, "GET", "/nomatch_*/_search", "")
	if r.Shards.Total != 0 || r.Hits.Total.Value != 0 {
		t.Errorf("wildcard without match: %+v", r)
	}
	code, body, _ = call(t, "GET", "/ori_nergens_2020/_search", "")
	assertES(t, code, body, 404, "index_not_found_exception")

	code, body, _ = call(t, "GET", "/_cat/indices?format=json", "")
	var js []map[string]string
	if json.Unmarshal(body, &js); code != 200 || len(js) != 330 || js[0]["docs.count"] == "" {
		t.Errorf("_cat json: %d", len(js))
	}
	code, body, _ = call(t, "GET", "/osi_*/_mapping", "")
	var mp map[string]struct {
		Mappings struct{ Properties map[string]any }
	}
	json.Unmarshal(body, &mp)
	if code != 200 || len(mp) != 8 {
		t.Fatalf("_mapping: %d %d", code, len(mp))
	}
	for _, m := range mp {
		for _, f := range []string{"@id", "name", "last_discussed_at", "text", "md_text", "text_pages", "has_organization_name"} {
			if m.Mappings.Properties[f] == nil {
				t.Errorf("mapping lacks %s", f)
			}
		}
	}
}

func TestQueries(t *testing.T) {
	// q=MediaObject&sort=last_discussed_at:desc (the ORI issues' link)
	r := search(t, "GET", "/ori_*/_search?q=MediaObject&sort=last_discussed_at:desc&size=20", "")
	if r.Hits.Total.Value != 10000 || r.Hits.Total.Relation != "gte" || r.Hits.MaxScore != nil {
		t.Errorf("total %+v", r.Hits.Total)
	}
	var prev float64 = 1e18
	for _, h := range r.Hits.Hits {
		v := h.Sort[0].(float64)
		if v > prev || h.Score != nil {
			t.Errorf("not sorted desc: %v after %v", v, prev)
		}
		prev = v
	}
	exact := search(t, "GET", "/ori_*/_search?q=MediaObject&size=0&track_total_hits=true", "")
	if exact.Hits.Total.Relation != "eq" || exact.Hits.Total.Value <= 10000 {
		t.Errorf("exact total %+v", exact.Hits.Total)
	}

	// one document by id: q=_id:, terms on _id, ids, and the get API
	id := r.Hits.Hits[0].ID
	for _, target := range []string{"/ori_*/_search?q=_id:" + id} {
		if x := search(t, "GET", target, ""); x.Hits.Total.Value != 1 || x.Hits.Hits[0].ID != id {
			t.Errorf("%s: %+v", target, x.Hits.Total)
		}
	}
	for _, body := range []string{`{"query":{"terms":{"_id":["` + id + `","999"]}}}`, `{"query":{"ids":{"values":["` + id + `"]}}}`} {
		if x := search(t, "POST", "/ori_*/_search", body); x.Hits.Total.Value != 1 || x.Hits.Hits[0].ID != id {
			t.Errorf("%s: %+v", body, x.Hits.Total)
		}
	}
	code, body, _ := call(t, "GET", "/"+r.Hits.Hits[0].Index+"/_doc/"+id, "")
	if code != 200 || !bytes.Contains(body, []byte(`"found":true`)) {
		t.Errorf("_doc: %d", code)
	}
	code, _, _ = call(t, "GET", "/"+r.Hits.Hits[0].Index+"/_doc/42", "")
	if code != 404 {
		t.Errorf("_doc unknown: %d", code)
	}

	// paging with from/size and search_after give the same order
	page1 := search(t, "POST", "/ori_*/_search", `{"size":5,"sort":[{"last_discussed_at":"desc"},{"_id":"asc"}],"_source":false}`)
	page2 := search(t, "POST", "/ori_*/_search", `{"from":5,"size":5,"sort":[{"last_discussed_at":"desc"},{"_id":"asc"}],"_source":false}`)
	last := page1.Hits.Hits[4].Sort
	lb, _ := json.Marshal(last)
	after := search(t, "POST", "/ori_*/_search", `{"size":5,"sort":[{"last_discussed_at":"desc"},{"_id":"asc"}],"search_after":`+string(lb)+`,"_source":false}`)
	for i := range page2.Hits.Hits {
		if page2.Hits.Hits[i].ID != after.Hits.Hits[i].ID {
			t.Errorf("search_after %d: %s vs %s", i, after.Hits.Hits[i].ID, page2.Hits.Hits[i].ID)
		}
	}

	// boolean logic: AND narrows, OR widens, NOT excludes
	a := search(t, "GET", "/ori_*/_search?q=woningbouw&size=0&track_total_hits=true", "").Hits.Total.Value
	b := search(t, "GET", "/ori_*/_search?q=begroting&size=0&track_total_hits=true", "").Hits.Total.Value
	or := search(t, "GET", "/ori_*/_search?q="+url.QueryEscape("woningbouw OR begroting")+"&size=0&track_total_hits=true", "").Hits.Total.Value
	and := search(t, "GET", "/ori_*/_search?q="+url.QueryEscape("woningbouw AND raadsvoorstel")+"&size=0", "").Hits.Total.Value
	not := search(t, "GET", "/ori_*/_search?q="+url.QueryEscape("woningbouw -raadsvoorstel")+"&size=0", "").Hits.Total.Value
	both := search(t, "GET", "/ori_*/_search?q="+url.QueryEscape("woningbouw AND begroting")+"&size=0&track_total_hits=true", "").Hits.Total.Value
	sqsAnd := search(t, "POST", "/ori_*/_search", `{"size":0,"query":{"simple_query_string":{"query":"woningbouw raadsvoorstel","default_operator":"and"}}}`).Hits.Total.Value
	if a == 0 || or != a+b-both || and == 0 || and >= a || and+not != a || sqsAnd != and {
		t.Errorf("a %d b %d or %d and %d not %d sqs %d", a, b, or, and, not, sqsAnd)
	}
	phrase := search(t, "GET", "/ori_*/_search?q="+url.QueryEscape(`"gaat over woningbouw"`)+"&size=0", "").Hits.Total.Value
	if phrase == 0 || phrase > a {
		t.Errorf("phrase %d", phrase)
	}

	// range on last_discussed_at and a bool filter on the organisation
	rr := search(t, "POST", "/ori_*/_search", `{"size":50,"query":{"bool":{"must":[{"match":{"text":"woningbouw"}}],
		"filter":[{"range":{"last_discussed_at":{"gte":"2025-01-01","lt":"now"}}}]}},"_source":["last_discussed_at"]}`)
	for _, h := range rr.Hits.Hits {
		var m map[string]string
		json.Unmarshal(h.Source, &m)
		if m["last_discussed_at"] < "2025-01-01" {
			t.Errorf("range: %s", m["last_discussed_at"])
		}
	}
	if rr.Hits.Total.Value == 0 {
		t.Error("range: no hits")
	}

	// highlight marks the query word
	hl := search(t, "POST", "/ori_*/_search", `{"size":3,"query":{"simple_query_string":{"query":"begroting","fields":["text","name"]}},"highlight":{"fields":{"text":{}}},"_source":false}`)
	if len(hl.Hits.Hits) == 0 || !strings.Contains(strings.Join(hl.Hits.Hits[0].Highlight["text"], ""), "<em>begroting</em>") {
		t.Errorf("highlight %v", hl.Hits.Hits)
	}

	// _count and _msearch
	code, body, _ = call(t, "GET", "/ori_*/_count?q=woningbouw", "")
	var cnt struct{ Count int }
	json.Unmarshal(body, &cnt)
	if code != 200 || cnt.Count != a {
		t.Errorf("_count %d, want %d", cnt.Count, a)
	}
	code, body, _ = call(t, "POST", "/_msearch", "{\"index\":\"osi_*\"}\n{\"size\":1}\n{\"index\":\"owi_*\"}\n{\"query\":{\"bad\":{}}}\n")
	var ms struct {
		Responses []struct {
			Status int
			Hits   *struct{ Hits []any }
			Error  *struct{ Type string }
		}
	}
	json.Unmarshal(body, &ms)
	if code != 200 || len(ms.Responses) != 2 || ms.Responses[0].Status != 200 || ms.Responses[1].Status != 400 || ms.Responses[1].Error == nil {
		t.Errorf("_msearch: %d %s", code, body[:min(300, len(body))])
	}
}

func assertES(t *testing.T, code int, body []byte, status int, rootType string) {
	t.Helper()
	var e struct {
		Error struct {
			RootCause []struct{ Type, Reason string } `json:"root_cause"`
			Type      string
			Reason    string
		}
		Status int
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("not ES error JSON: %s", body)
	}
	if code != status || e.Status != status || len(e.Error.RootCause) == 0 || e.Error.RootCause[0].Type != rootType || e.Error.Type == "" || e.Error.Reason == "" {
		t.Errorf("got %d %s, want %d %s", code, body, status, rootType)
	}
}

func TestBadInput(t *testing.T) {
	cases := []struct {
		name, method, target, body string
		status                     int
		root                       string
	}{
		{"unknown query", "POST", "/ori_*/_search", `{"query":{"fuzzy_magic":{}}}`, 400, "parsing_exception"},
		{"two queries in one object", "POST", "/ori_*/_search", `{"query":{"match_all":{},"match_none":{}}}`, 400, "parsing_exception"},
		{"unknown body key", "POST", "/ori_*/_search", `{"qeury":{}}`, 400, "parsing_exception"},
		{"bad json", "POST", "/ori_*/_search", `{"query":`, 400, "json_parse_exception"},
		{"result window", "GET", "/ori_*/_search?from=9995&size=10", "", 400, "illegal_argument_exception"},
		{"result window in body", "POST", "/ori_*/_search", `{"from":10000,"size":1}`, 400, "illegal_argument_exception"},
		{"negative size", "GET", "/ori_*/_search?size=-1", "", 400, "illegal_argument_exception"},
		{"size not a number", "GET", "/ori_*/_search?size=ten", "", 400, "illegal_argument_exception"},
		{"unknown parameter", "GET", "/ori_*/_search?qq=x", "", 400, "illegal_argument_exception"},
		{"sort on unmapped field", "GET", "/ori_*/_search?sort=datum:desc", "", 400, "query_shard_exception"},
		{"unbalanced quote in q", "GET", "/ori_*/_search?q=" + url.QueryEscape(`"open`), "", 400, "query_shard_exception"},
		{"unbalanced paren in q", "GET", "/ori_*/_search?q=" + url.QueryEscape(`(a OR b`), "", 400, "query_shard_exception"},
		{"dangling operator in q", "GET", "/ori_*/_search?q=" + url.QueryEscape(`woningbouw AND`), "", 400, "query_shard_exception"},
		{"bad date", "POST", "/ori_*/_search", `{"query":{"range":{"last_discussed_at":{"gte":"gisteren"}}}}`, 400, "parse_exception"},
		{"terms not an array", "POST", "/ori_*/_search", `{"query":{"terms":{"_id":"1"}}}`, 400, "parsing_exception"},
		{"search_after without sort", "POST", "/ori_*/_search", `{"search_after":[1]}`, 400, "illegal_argument_exception"},
		{"missing index", "GET", "/ori_bestaatniet/_search", "", 404, "index_not_found_exception"},
		{"missing index mapping", "GET", "/ori_bestaatniet/_mapping", "", 404, "index_not_found_exception"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body, _ := call(t, c.method, c.target, c.body)
			assertES(t, code, body, c.status, c.root)
		})
	}
	// simple_query_string never fails on syntax
	search(t, "POST", "/ori_*/_search", `{"query":{"simple_query_string":{"query":"\"open (a |"}}}`)
}

// The nginx proxy in front of ES: only reads and searches get through.
func TestProxyRules(t *testing.T) {
	cases := []struct{ method, target string }{
		{"PUT", "/ori_test"},
		{"DELETE", "/ori_*"},
		{"PATCH", "/ori_*/_doc/1"},
		{"POST", "/ori_*/_doc"},
		{"POST", "/ori_*/_update_by_query"},
		{"POST", "/ori_*/_delete_by_query"},
		{"GET", "/_cluster/health"},
		{"GET", "/_cluster/settings"},
		{"POST", "/_shutdown"},
		{"GET", "/_nodes/_shutdown"},
	}
	for _, c := range cases {
		code, body, _ := call(t, c.method, c.target, "")
		if code != 403 || !bytes.Contains(body, []byte("403 Forbidden")) {
			t.Errorf("%s %s: %d", c.method, c.target, code)
		}
	}
	code, _, hdr := call(t, "GET", "/", "")
	if code != 200 || hdr.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("root: %d CORS %q", code, hdr.Get("Access-Control-Allow-Origin"))
	}
	if code, _, _ := call(t, "GET", "/ori_*/_search", ""); code != 200 {
		t.Errorf("GET _search: %d", code)
	}
}

func TestDeterministic(t *testing.T) {
	a := New(Config{Seed: 3, Clock: fakeclock.New(fixedNow())})
	b := New(Config{Seed: 3, Clock: fakeclock.New(fixedNow())})
	c := New(Config{Seed: 4, Clock: fakeclock.New(fixedNow())})
	get := func(h http.Handler) string {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/osi_*/_search?q=begroting&size=3", nil))
		s := rec.Body.String()
		i := strings.Index(s, `"_shards"`)
		return s[i:]
	}
	if get(a) != get(b) || get(a) == get(c) {
		t.Error("same seed must give the same answer, another seed another")
	}
}
