// Package emulator emulates Open Raadsinformatie "Classic" offline: the
// read-only nginx proxy in front of Elasticsearch 7 that served
// https://api.openraadsinformatie.nl/v1/elastic/ until November 2026.
//
// It serves, below that base URL: GET and POST /<index pattern>/_search
// (q= Lucene syntax or the Query DSL: simple_query_string, query_string,
// match, multi_match, term(s) on _id/_index/..., ids, range on
// last_discussed_at, exists, bool, nested; from/size, sort, search_after,
// _source includes/excludes, highlight, track_total_hits), _msearch,
// _count, /<index>/_doc/<id>, /_cat/indices, /<pattern>/_mapping and the
// proxy's rules (PUT/DELETE and POST other than _search/_msearch: 403;
// _shutdown and _cluster: 403). Errors have the ES7 shape
// {"error":{"root_cause":[{"type","reason"}],"type","reason"},"status"}.
//
// One index per source of corpus.Orgs(): ori_<key>_<timestamp> for
// municipalities, osi_ for provinces, owi_ for water boards, each holding
// 40 to 200 MediaObjects generated on first use.
package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// Config configures the emulator.
type Config struct {
	// Seed selects the generated data.
	Seed int64
	// Clock is the clock; nil means clock.Wall. Documents run up to its
	// day when the emulator is built; a search's "took" follows it.
	Clock clock.Clock
}

// MaxResultWindow is index.max_result_window: from+size may not exceed it.
const MaxResultWindow = 10000

type handler struct {
	c   *corpusData
	now func() time.Time
}

// New returns the emulator's handler.
func New(cfg Config) http.Handler {
	now := clock.Or(cfg.Clock).Now
	end := now().UTC()
	end = time.Date(end.Year(), end.Month(), end.Day(), 0, 0, 0, 0, time.UTC)
	c := corpora.Get(corpusKey{cfg.Seed, end}, func() *corpusData { return newCorpus(cfg.Seed, end) })
	return &handler{c: c, now: now}
}

// corpora holds the corpus of each seed and day for every handler of the
// process: a corpus never changes once built (each index's documents are
// built once, on first use), and a test binary makes many emulators with
// the same seed.
var corpora corpus.Shared[corpusKey, *corpusData]

type corpusKey struct {
	seed int64
	end  time.Time
}

const forbiddenBody = "<html>\r\n<head><title>403 Forbidden</title></head>\r\n<body>\r\n<center><h1>403 Forbidden</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"

func forbidden(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html")
	w.WriteHeader(http.StatusForbidden)
	io.WriteString(w, forbiddenBody)
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	p := r.URL.Path
	if strings.Contains(p, "_shutdown") || strings.Contains(p, "_cluster") {
		forbidden(w)
		return
	}
	segs := strings.Split(strings.Trim(p, "/"), "/")
	last := segs[len(segs)-1]
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodPost:
		if last != "_search" && last != "_msearch" {
			forbidden(w)
			return
		}
	case http.MethodOptions:
		w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		w.Header().Set("Access-Control-Allow-Headers", "Content-Type")
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		forbidden(w)
		return
	}
	switch {
	case p == "/" || p == "":
		writeJSON(w, 200, map[string]any{"name": "ori-es-1", "cluster_name": "ori", "cluster_uuid": "q3W2x0dpT1yq2Fh6G2nKxg",
			"version": map[string]any{"number": "7.17.9", "build_flavor": "default", "build_type": "docker", "lucene_version": "8.11.1",
				"minimum_wire_compatibility_version": "6.8.0", "minimum_index_compatibility_version": "6.0.0-beta1"},
			"tagline": "You Know, for Search"})
	case len(segs) == 2 && segs[0] == "_cat" && segs[1] == "indices":
		h.catIndices(w, r, "")
	case len(segs) == 3 && segs[0] == "_cat" && segs[1] == "indices":
		h.catIndices(w, r, segs[2])
	case last == "_search":
		pattern := "_all"
		if len(segs) == 2 {
			pattern = segs[0]
		} else if len(segs) != 1 {
			h.noHandler(w, r)
			return
		}
		h.search(w, r, pattern)
	case last == "_msearch":
		pattern := ""
		if len(segs) == 2 {
			pattern = segs[0]
		}
		h.msearch(w, r, pattern)
	case last == "_count" && len(segs) <= 2:
		pattern := "_all"
		if len(segs) == 2 {
			pattern = segs[0]
		}
		h.count(w, r, pattern)
	case last == "_mapping" && len(segs) <= 2:
		pattern := "_all"
		if len(segs) == 2 {
			pattern = segs[0]
		}
		h.mapping(w, pattern, false)
	case len(segs) == 3 && segs[1] == "_doc":
		h.getDoc(w, segs[0], segs[2])
	case len(segs) == 1 && !strings.HasPrefix(segs[0], "_"):
		h.mapping(w, segs[0], true)
	default:
		h.noHandler(w, r)
	}
}

func (h *handler) noHandler(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, 400, map[string]any{"error": map[string]any{
		"root_cause": []any{map[string]any{"type": "illegal_argument_exception", "reason": "request [" + r.URL.Path + "] contains unrecognized parameter or path"}},
		"type":       "illegal_argument_exception", "reason": "request [" + r.URL.Path + "] contains unrecognized parameter or path"},
		"status": 400})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	w.Write(b)
}

func writeError(w http.ResponseWriter, e *esError) {
	writeJSON(w, e.status, errorBody(e))
}

func errorBody(e *esError) map[string]any {
	root := map[string]any{"type": e.typ, "reason": e.reason}
	for k, v := range e.rootExtras {
		root[k] = v
	}
	outer := map[string]any{"root_cause": []any{root}, "type": e.typ, "reason": e.reason}
	if e.outerType != "" {
		outer["type"], outer["reason"] = e.outerType, e.outerRsn
		outer["phase"], outer["grouped"] = "query", true
		outer["failed_shards"] = []any{map[string]any{"shard": 0, "index": nil, "node": "ori-es-1", "reason": root}}
	}
	for k, v := range e.extraFlds {
		outer[k] = v
	}
	return map[string]any{"error": outer, "status": e.status}
}

func indexNotFound(name string) *esError {
	return &esError{status: 404, typ: "index_not_found_exception", reason: "no such index [" + name + "]",
		rootExtras: map[string]any{"resource.type": "index_or_alias", "resource.id": name, "index_uuid": "_na_", "index": name},
		extraFlds:  map[string]any{"resource.type": "index_or_alias", "resource.id": name, "index_uuid": "_na_", "index": name}}
}

// resolve expands an index pattern ("ori_*", "ori_soest*,osi_*",
// "_all", a concrete name, "-exclusion") to indices.
func (h *handler) resolve(pattern string) ([]*index, *esError) {
	if pattern == "" || pattern == "_all" || pattern == "*" {
		return h.c.indices, nil
	}
	chosen := map[*index]bool{}
	for _, part := range strings.Split(pattern, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		exclude := strings.HasPrefix(part, "-") && len(chosen) > 0
		part = strings.TrimPrefix(part, "-")
		if !strings.Contains(part, "*") && !exclude {
			ix, ok := h.c.byName[part]
			if !ok {
				return nil, indexNotFound(part)
			}
			chosen[ix] = true
			continue
		}
		for _, ix := range h.c.indices {
			if wildcard(part, ix.name) {
				if exclude {
					delete(chosen, ix)
				} else {
					chosen[ix] = true
				}
			}
		}
	}
	var out []*index
	for _, ix := range h.c.indices {
		if chosen[ix] {
			out = append(out, ix)
		}
	}
	return out, nil
}

// ---- search request ----

type sortKey struct {
	field string
	desc  bool
}

type searchReq struct {
	query       qnode
	from, size  int
	sort        []sortKey
	searchAfter []any
	srcOff      bool
	includes    []string
	excludes    []string
	highlight   map[string]any
	trackTotal  int // -1 = exact
	totalAsInt  bool
}

var searchParams = map[string]bool{"q": true, "from": true, "size": true, "sort": true, "_source": true, "_source_includes": true,
	"_source_excludes": true, "_source_include": true, "_source_exclude": true, "default_operator": true, "df": true,
	"track_total_hits": true, "rest_total_hits_as_int": true, "pretty": true, "human": true, "allow_no_indices": true,
	"ignore_unavailable": true, "analyze_wildcard": true, "lenient": true, "timeout": true, "request_cache": true,
	"expand_wildcards": true, "typed_keys": true, "error_trace": true, "filter_path": true, "search_type": true,
	"preference": true, "routing": true, "batched_reduce_size": true, "ccs_minimize_roundtrips": true, "track_scores": true,
	"version": true, "seq_no_primary_term": true, "explain": true, "stored_fields": true, "docvalue_fields": true,
	"terminate_after": true, "stats": true, "suggest_field": true, "allow_partial_search_results": true}

func (h *handler) parseSearch(r *http.Request, body []byte) (*searchReq, *esError) {
	sr := &searchReq{size: 10, trackTotal: 10000}
	qv := r.URL.Query()
	for k := range qv {
		if !searchParams[k] {
			return nil, illegalArg("request [%s] contains unrecognized parameter: [%s]", r.URL.Path, k)
		}
	}
	if len(bytes.TrimSpace(body)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return nil, &esError{status: 400, typ: "json_parse_exception", reason: "Unexpected character in request body: " + err.Error()}
		}
		if e := h.applyBody(sr, m); e != nil {
			return nil, e
		}
	}
	if q := qv.Get("q"); qv.Has("q") {
		var fields []string
		if df := qv.Get("df"); df != "" {
			fields = []string{df}
		}
		node, err := parseLucene(q, fields, strings.EqualFold(qv.Get("default_operator"), "and"), false)
		if err != nil {
			return nil, err.(*esError)
		}
		sr.query = node
	}
	for _, k := range []string{"from", "size"} {
		if s := qv.Get(k); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				return nil, illegalArg("Failed to parse int parameter [%s] with value [%s]", k, s)
			}
			if k == "from" {
				sr.from = n
			} else {
				sr.size = n
			}
		}
	}
	if s := qv.Get("sort"); s != "" {
		sr.sort = nil
		for _, part := range strings.Split(s, ",") {
			f, dir, _ := strings.Cut(part, ":")
			sr.sort = append(sr.sort, sortKey{f, dir == "desc"})
		}
	}
	if s := qv.Get("_source"); qv.Has("_source") {
		switch s {
		case "false":
			sr.srcOff = true
		case "true", "":
		default:
			sr.includes = strings.Split(s, ",")
		}
	}
	for _, k := range []string{"_source_includes", "_source_include"} {
		if s := qv.Get(k); s != "" {
			sr.includes = strings.Split(s, ",")
		}
	}
	for _, k := range []string{"_source_excludes", "_source_exclude"} {
		if s := qv.Get(k); s != "" {
			sr.excludes = strings.Split(s, ",")
		}
	}
	if s := qv.Get("track_total_hits"); s != "" {
		if e := setTrackTotal(sr, s); e != nil {
			return nil, e
		}
	}
	sr.totalAsInt = qv.Get("rest_total_hits_as_int") == "true"
	if sr.query == nil {
		sr.query = matchAllQ{}
	}
	if sr.from < 0 {
		return nil, illegalArg("[from] parameter cannot be negative, found [%d]", sr.from)
	}
	if sr.size < 0 {
		return nil, illegalArg("[size] parameter cannot be negative, found [%d]", sr.size)
	}
	if sr.from+sr.size > MaxResultWindow {
		e := shardErr("illegal_argument_exception", fmt.Sprintf("Result window is too large, from + size must be less than or equal to: [%d] but was [%d]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.", MaxResultWindow, sr.from+sr.size))
		return nil, e
	}
	for _, k := range sr.sort {
		switch k.field {
		case "last_discussed_at", "_score", "_id", "_doc", "@id", "_index":
		default:
			return nil, shardErr("query_shard_exception", "No mapping found for ["+k.field+"] in order to sort on")
		}
	}
	if sr.searchAfter != nil && len(sr.searchAfter) != len(sr.sort) {
		return nil, illegalArg("search_after has %d value(s) but sort has %d.", len(sr.searchAfter), len(sr.sort))
	}
	return sr, nil
}

func setTrackTotal(sr *searchReq, s string) *esError {
	switch s {
	case "true":
		sr.trackTotal = -1
	case "false":
		sr.trackTotal = 0
	default:
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return illegalArg("[track_total_hits] parameter must be positive or equals to -1, got %s", s)
		}
		sr.trackTotal = n
	}
	return nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "START_OBJECT"
	case []any:
		return "START_ARRAY"
	case string:
		return "VALUE_STRING"
	case json.Number:
		return "VALUE_NUMBER"
	case bool:
		return "VALUE_BOOLEAN"
	}
	return "VALUE_NULL"
}

func (h *handler) applyBody(sr *searchReq, m map[string]any) *esError {
	for k, v := range m {
		switch k {
		case "query":
			q, err := h.parseDSL(v)
			if err != nil {
				return err.(*esError)
			}
			sr.query = q
		case "from", "size":
			n, err := strconv.Atoi(scalar(v))
			if err != nil {
				return parsingErr("[%s] failed to parse field [%s]", k, k)
			}
			if k == "from" {
				sr.from = n
			} else {
				sr.size = n
			}
		case "sort":
			var list []any
			switch x := v.(type) {
			case []any:
				list = x
			default:
				list = []any{x}
			}
			for _, e := range list {
				switch x := e.(type) {
				case string:
					sr.sort = append(sr.sort, sortKey{x, x == "_score"})
				case map[string]any:
					for f, spec := range x {
						desc := f == "_score"
						switch s := spec.(type) {
						case string:
							desc = s == "desc"
						case map[string]any:
							if o, ok := s["order"]; ok {
								desc = o == "desc"
							}
						}
						sr.sort = append(sr.sort, sortKey{f, desc})
					}
				default:
					return parsingErr("[sort] malformed")
				}
			}
		case "search_after":
			list, ok := v.([]any)
			if !ok {
				return parsingErr("[search_after] must be an array")
			}
			sr.searchAfter = list
		case "_source":
			switch x := v.(type) {
			case bool:
				sr.srcOff = !x
			case string:
				sr.includes = []string{x}
			case []any:
				sr.includes = stringList(x)
			case map[string]any:
				for sk, sv := range x {
					switch sk {
					case "includes", "include":
						sr.includes = stringList(sv)
					case "excludes", "exclude":
						sr.excludes = stringList(sv)
					default:
						return parsingErr("Unknown key for a %s in [%s].", jsonKind(sv), sk)
					}
				}
			}
		case "highlight":
			hl, ok := v.(map[string]any)
			if !ok {
				return parsingErr("[highlight] malformed")
			}
			sr.highlight = hl
		case "track_total_hits":
			if e := setTrackTotal(sr, scalar(v)); e != nil {
				return e
			}
		case "timeout", "min_score", "explain", "version", "seq_no_primary_term", "stored_fields", "docvalue_fields",
			"track_scores", "terminate_after", "aggs", "aggregations", "collapse", "post_filter":
			if k == "aggs" || k == "aggregations" || k == "collapse" || k == "post_filter" {
				return parsingErr("[%s] is not supported by the ORI emulator", k)
			}
		default:
			return parsingErr("Unknown key for a %s in [%s].", jsonKind(v), k)
		}
	}
	return nil
}

type hit struct {
	d     *doc
	score float64
	seq   int
}

func (h *handler) execute(indices []*index, sr *searchReq) (total int, hits []hit) {
	seq := 0
	for _, ix := range indices {
		for _, d := range append(h.c.docs(ix), ix.orgDoc) {
			ok, score := h.c.match(sr.query, d)
			if ok {
				hits = append(hits, hit{d, score, seq})
			}
			seq++
		}
	}
	total = len(hits)
	keys := sr.sort
	if len(keys) == 0 {
		keys = []sortKey{{"_score", true}}
	}
	less := func(a, b hit) int {
		for _, k := range keys {
			c := compareBy(k.field, a, b)
			if k.desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return 0
	}
	sort.SliceStable(hits, func(i, j int) bool {
		c := less(hits[i], hits[j])
		if c == 0 {
			return hits[i].seq < hits[j].seq
		}
		return c < 0
	})
	if sr.searchAfter != nil {
		cut := sort.Search(len(hits), func(i int) bool {
			return compareAfter(keys, hits[i], sr.searchAfter) > 0
		})
		hits = hits[cut:]
	}
	return total, hits
}

func compareBy(field string, a, b hit) int {
	switch field {
	case "_score":
		return cmpF(a.score, b.score)
	case "last_discussed_at":
		return a.d.discussed.Compare(b.d.discussed)
	case "_id", "@id":
		return strings.Compare(a.d.id, b.d.id)
	case "_index":
		return strings.Compare(a.d.idx.name, b.d.idx.name)
	}
	return cmpF(float64(a.seq), float64(b.seq))
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func sortValue(field string, x hit) any {
	switch field {
	case "_score":
		return x.score
	case "last_discussed_at":
		return x.d.discussed.UnixMilli()
	case "_id", "@id":
		return x.d.id
	case "_index":
		return x.d.idx.name
	}
	return x.seq
}

// compareAfter compares hit x with the search_after values in sort order:
// > 0 when x comes after them.
func compareAfter(keys []sortKey, x hit, after []any) int {
	for i, k := range keys {
		var c int
		switch v := sortValue(k.field, x).(type) {
		case string:
			c = strings.Compare(v, scalar(after[i]))
		case int64:
			n, _ := strconv.ParseFloat(scalar(after[i]), 64)
			c = cmpF(float64(v), n)
		case float64:
			n, _ := strconv.ParseFloat(scalar(after[i]), 64)
			c = cmpF(v, n)
		case int:
			n, _ := strconv.ParseFloat(scalar(after[i]), 64)
			c = cmpF(float64(v), n)
		}
		if k.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

func readBody(r *http.Request) ([]byte, *esError) {
	if r.Body == nil {
		return nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, 100<<20))
	if err != nil {
		return nil, &esError{status: 400, typ: "parse_exception", reason: "failed to read request body: " + err.Error()}
	}
	return b, nil
}

func (h *handler) search(w http.ResponseWriter, r *http.Request, pattern string) {
	body, e := readBody(r)
	if e != nil {
		writeError(w, e)
		return
	}
	resp, e := h.searchOnce(r, pattern, body)
	if e != nil {
		writeError(w, e)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.Write(resp)
}

func (h *handler) searchOnce(r *http.Request, pattern string, body []byte) ([]byte, *esError) {
	start := h.now()
	indices, e := h.resolve(pattern)
	if e != nil {
		return nil, e
	}
	sr, e := h.parseSearch(r, body)
	if e != nil {
		return nil, e
	}
	total, hits := h.execute(indices, sr)
	page := hits[min(sr.from, len(hits)):]
	if len(page) > sr.size {
		page = page[:sr.size]
	}
	var buf bytes.Buffer
	took := h.now().Sub(start).Milliseconds()
	fmt.Fprintf(&buf, `{"took":%d,"timed_out":false,"_shards":{"total":%d,"successful":%d,"skipped":0,"failed":0},"hits":{`, took, len(indices), len(indices))
	value, relation := total, "eq"
	if sr.trackTotal >= 0 && total > sr.trackTotal {
		value, relation = sr.trackTotal, "gte"
	}
	switch {
	case sr.totalAsInt:
		fmt.Fprintf(&buf, `"total":%d,`, value)
	case sr.trackTotal != 0:
		fmt.Fprintf(&buf, `"total":{"value":%d,"relation":"%s"},`, value, relation)
	}
	sorted := len(sr.sort) > 0
	if sorted || len(hits) == 0 {
		buf.WriteString(`"max_score":null,"hits":[`)
	} else {
		maxScore := 0.0
		for _, x := range hits {
			maxScore = max(maxScore, x.score)
		}
		fmt.Fprintf(&buf, `"max_score":%s,"hits":[`, fmtScore(maxScore))
	}
	for i, x := range page {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"_index":%q,"_type":"_doc","_id":%q,"_score":`, x.d.idx.name, x.d.id)
		if sorted {
			buf.WriteString("null")
		} else {
			buf.WriteString(fmtScore(x.score))
		}
		if !sr.srcOff {
			buf.WriteString(`,"_source":`)
			h.writeSource(&buf, x.d, sr.includes, sr.excludes)
		}
		if sr.highlight != nil {
			if hl := h.highlight(x.d, sr); len(hl) > 0 {
				b, _ := json.Marshal(hl)
				buf.WriteString(`,"highlight":`)
				buf.Write(b)
			}
		}
		if sorted {
			vals := make([]any, len(sr.sort))
			for k, key := range sr.sort {
				vals[k] = sortValue(key.field, x)
			}
			b, _ := json.Marshal(vals)
			buf.WriteString(`,"sort":`)
			buf.Write(b)
		}
		buf.WriteByte('}')
	}
	buf.WriteString("]}}")
	return buf.Bytes(), nil
}

func fmtScore(f float64) string { return strconv.FormatFloat(f, 'f', -1, 32) }

// writeSource writes the document's _source with ORI's field order,
// applying includes and excludes (top-level fields, * wildcards; a pattern
// "a.b" selects field a).
func (h *handler) writeSource(buf *bytes.Buffer, d *doc, includes, excludes []string) {
	want := func(field string) bool {
		sel := func(pats []string) bool {
			for _, p := range pats {
				top, _, _ := strings.Cut(p, ".")
				if wildcard(p, field) || (top != p && wildcard(top, field)) {
					return true
				}
			}
			return false
		}
		if len(includes) > 0 && !sel(includes) {
			return false
		}
		return !sel(excludes)
	}
	type kv struct {
		k string
		v func() any
	}
	if d.org {
		h.writeOrgSource(buf, d, want)
		return
	}
	var text string
	var textDone bool
	getText := func() string {
		if !textDone {
			text, textDone = h.c.text(d), true
		}
		return text
	}
	fields := []kv{
		{"@context", func() any { return mediaObjectContext }},
		{"@id", func() any { return d.id }},
		{"@type", func() any { return "MediaObject" }},
		{"name", func() any { return d.name }},
		{"content_type", func() any { return "application/pdf" }},
		{"original_url", func() any { return originalURL(d) }},
		{"url", func() any { return resolveURL(d) }},
		{"size_in_bytes", func() any { return d.size }}, // MediaObject.size_in_bytes (schema.py)
		{"last_discussed_at", func() any { return utcISO(d.discussed) }},
		{"is_referenced_by", func() any { return d.meeting }},
		{"has_organization_name", func() any { return d.idx.orgID }},
		{"text", func() any { return getText() }},
		{"md_text", func() any { return mdText(d, getText()) }},
		{"text_pages", func() any {
			var out []map[string]any
			for i, p := range pages(getText()) {
				out = append(out, map[string]any{"page_number": i + 1, "text": p})
			}
			return out
		}},
	}
	buf.WriteByte('{')
	first := true
	for _, f := range fields {
		if !want(f.k) {
			continue
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(f.k)
		vb, _ := json.Marshal(f.v())
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(vb)
	}
	buf.WriteByte('}')
}

// writeOrgSource writes an Organization object's _source: the fields
// ORI's Organization model (ocd_backend/models/definitions/org.py) sets
// from the Almanak (transformers/allmanak_organization.py), without the
// contact details.
func (h *handler) writeOrgSource(buf *bytes.Buffer, d *doc, want func(string) bool) {
	src := map[string]any{}
	for _, f := range []string{"@id", "@type", "name", "classification", "collection"} {
		if want(f) {
			src[f], _ = h.c.keyword(d, f)
		}
	}
	if want("@context") {
		src["@context"] = organizationContext
	}
	b, _ := json.Marshal(src)
	buf.Write(b)
}

func utcISO(t time.Time) string {
	return t.Format("2006-01-02T15:04:05+00:00")
}

func mdText(d *doc, text string) []string {
	var out []string
	for i, p := range pages(text) {
		if i == 0 {
			p = "# " + d.name + "\n\n" + p
		}
		out = append(out, p)
	}
	return out
}

func (h *handler) highlight(d *doc, sr *searchReq) map[string][]string {
	fields, _ := sr.highlight["fields"].(map[string]any)
	pre, post := "<em>", "</em>"
	if l := stringList(sr.highlight["pre_tags"]); len(l) > 0 {
		pre = l[0]
	}
	if l := stringList(sr.highlight["post_tags"]); len(l) > 0 {
		post = l[0]
	}
	words := map[string]bool{}
	collectWords(sr.query, words)
	if len(words) == 0 {
		return nil
	}
	out := map[string][]string{}
	for f := range fields {
		var src string
		switch f {
		case "name":
			src = d.name
		case "text", "md_text", "text_pages.text", "*":
			src = d.head
			f = map[bool]string{true: "text", false: f}[f == "*"]
		default:
			continue
		}
		var frag strings.Builder
		hitAny := false
		for _, w := range strings.Fields(src) {
			if frag.Len() > 0 {
				frag.WriteByte(' ')
			}
			tw := tokens(w)
			if len(tw) == 1 && words[tw[0]] {
				// keep punctuation around the word outside the tags
				core := strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
				i := strings.Index(w, core)
				frag.WriteString(w[:i] + pre + core + post + w[i+len(core):])
				hitAny = true
			} else {
				frag.WriteString(w)
			}
		}
		if hitAny {
			out[f] = []string{frag.String()}
		}
	}
	return out
}

func collectWords(q qnode, into map[string]bool) {
	switch q := q.(type) {
	case textQ:
		for _, w := range q.words {
			into[w] = true
		}
	case boolQ:
		for _, l := range [][]qnode{q.must, q.should, q.filter} {
			for _, x := range l {
				collectWords(x, into)
			}
		}
	}
}

func (h *handler) msearch(w http.ResponseWriter, r *http.Request, pattern string) {
	body, e := readBody(r)
	if e != nil {
		writeError(w, e)
		return
	}
	lines := strings.Split(strings.TrimSpace(string(body)), "\n")
	if len(lines)%2 != 0 || len(lines) == 0 || lines[0] == "" {
		writeError(w, illegalArg("The msearch request must be terminated by a newline [\\n]"))
		return
	}
	start := h.now()
	var buf bytes.Buffer
	buf.WriteString(`{"took":0,"responses":[`)
	for i := 0; i < len(lines); i += 2 {
		if i > 0 {
			buf.WriteByte(',')
		}
		var header map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &header); err != nil {
			writeError(w, &esError{status: 400, typ: "json_parse_exception", reason: err.Error()})
			return
		}
		p := pattern
		if ix := stringList(header["index"]); len(ix) > 0 {
			p = strings.Join(ix, ",")
		}
		if p == "" {
			p = "_all"
		}
		sub, _ := http.NewRequest(http.MethodPost, "/"+p+"/_search", nil)
		resp, e := h.searchOnce(sub, p, []byte(lines[i+1]))
		if e != nil {
			b, _ := json.Marshal(errorBody(e))
			buf.Write(b)
			continue
		}
		buf.Write(resp[:len(resp)-1])
		buf.WriteString(`,"status":200}`)
	}
	buf.WriteString("]}")
	out := bytes.Replace(buf.Bytes(), []byte(`{"took":0,`), []byte(fmt.Sprintf(`{"took":%d,`, h.now().Sub(start).Milliseconds())), 1)
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.Write(out)
}

func (h *handler) count(w http.ResponseWriter, r *http.Request, pattern string) {
	indices, e := h.resolve(pattern)
	if e != nil {
		writeError(w, e)
		return
	}
	body, e := readBody(r)
	if e != nil {
		writeError(w, e)
		return
	}
	sr, e := h.parseSearch(r, body)
	if e != nil {
		writeError(w, e)
		return
	}
	n, _ := h.execute(indices, sr)
	writeJSON(w, 200, map[string]any{"count": n, "_shards": map[string]any{"total": len(indices), "successful": len(indices), "skipped": 0, "failed": 0}})
}

func (h *handler) getDoc(w http.ResponseWriter, indexName, id string) {
	ix, ok := h.c.byName[indexName]
	if !ok {
		writeError(w, indexNotFound(indexName))
		return
	}
	d := h.c.lookupID(id)
	if d == nil || d.idx != ix {
		writeJSON(w, 404, map[string]any{"_index": indexName, "_type": "_doc", "_id": id, "found": false})
		return
	}
	seq := d.n
	if d.org {
		seq = ix.docCount // indexed after its documents
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, `{"_index":%q,"_type":"_doc","_id":%q,"_version":1,"_seq_no":%d,"_primary_term":1,"found":true,"_source":`, ix.name, d.id, seq)
	h.writeSource(&buf, d, nil, nil)
	buf.WriteByte('}')
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.Write(buf.Bytes())
}

func (h *handler) catIndices(w http.ResponseWriter, r *http.Request, pattern string) {
	indices, e := h.resolve(pattern)
	if e != nil {
		writeError(w, e)
		return
	}
	sorted := append([]*index(nil), indices...)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a].name < sorted[b].name })
	cols := []string{"health", "status", "index", "uuid", "pri", "rep", "docs.count", "docs.deleted", "store.size", "pri.store.size"}
	var rows [][]string
	for _, ix := range sorted {
		size := fmt.Sprintf("%.1fmb", float64(ix.docCount)*0.21)
		rows = append(rows, []string{"green", "open", ix.name, ix.uuid, "1", "0", strconv.Itoa(ix.docCount), "0", size, size})
	}
	if r.URL.Query().Get("format") == "json" {
		out := []map[string]string{}
		for _, row := range rows {
			m := map[string]string{}
			for i, c := range cols {
				m[c] = row[i]
			}
			out = append(out, m)
		}
		writeJSON(w, 200, out)
		return
	}
	if r.URL.Query().Has("v") {
		rows = append([][]string{cols}, rows...)
	}
	widths := make([]int, len(cols))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], len(c))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		for i, c := range row {
			if i > 0 {
				b.WriteByte(' ')
			}
			if i == len(row)-1 {
				b.WriteString(c)
			} else {
				fmt.Fprintf(&b, "%-*s", widths[i], c)
			}
		}
		b.WriteByte('\n')
	}
	w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
	io.WriteString(w, b.String())
}

// mappingProps follows es_mappings/ori_template.json's MediaObject fields.
var mappingProps = map[string]any{
	"@context":              map[string]any{"type": "keyword", "index": false},
	"@id":                   map[string]any{"type": "keyword"},
	"@type":                 map[string]any{"type": "keyword"},
	"name":                  map[string]any{"type": "text", "fields": map[string]any{"keyword": map[string]any{"type": "keyword", "ignore_above": 256}}},
	"content_type":          map[string]any{"type": "keyword"},
	"original_url":          map[string]any{"type": "keyword"},
	"url":                   map[string]any{"type": "keyword"},
	"size_in_bytes":         map[string]any{"type": "long"},
	"last_discussed_at":     map[string]any{"type": "date"},
	"is_referenced_by":      map[string]any{"type": "keyword"},
	"has_organization_name": map[string]any{"type": "keyword"},
	"text":                  map[string]any{"type": "text", "analyzer": "dutch"},
	"md_text":               map[string]any{"type": "text", "analyzer": "dutch"},
	"text_pages": map[string]any{"type": "nested", "properties": map[string]any{
		"page_number": map[string]any{"type": "integer"},
		"text":        map[string]any{"type": "text", "analyzer": "dutch"}}},
}

func (h *handler) mapping(w http.ResponseWriter, pattern string, full bool) {
	indices, e := h.resolve(pattern)
	if e != nil {
		writeError(w, e)
		return
	}
	out := map[string]any{}
	for _, ix := range indices {
		m := map[string]any{"mappings": map[string]any{"properties": mappingProps}}
		if full {
			m["aliases"] = map[string]any{}
			m["settings"] = map[string]any{"index": map[string]any{
				"creation_date": strconv.FormatInt(ix.created.UnixMilli(), 10), "number_of_shards": "1",
				"number_of_replicas": "0", "uuid": ix.uuid, "provided_name": ix.name,
				"max_result_window": strconv.Itoa(MaxResultWindow),
				"version":           map[string]any{"created": "7170999"}}}
		}
		out[ix.name] = m
	}
	writeJSON(w, 200, out)
}
