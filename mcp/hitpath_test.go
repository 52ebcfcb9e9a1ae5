package mcp

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/besluitbron/besluitbron/cachestatus"
	"github.com/besluitbron/besluitbron/caddymodule/platformcache"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
)

// The cached-hit path of issue 23 (docs/benchmarks/mcp.md): the same
// cached obv answer as a direct /platforms request and as a stateless
// (2026-07-28) tools/call, with the tool call's bytes recorded once from
// mcp-go's own client and then replayed, so no client encodes or decodes
// anything in the measured loop.

// hitpath is a running chain with a warm cache entry and the two requests
// for it.
type hitpath struct {
	base    string
	srv     *caddyhttp.Server
	direct  string      // path and query of the direct request
	body    []byte      // the tools/call JSON-RPC body mcp-go's client sent
	headers http.Header // and its headers
	// clk, when set (a "distinct" variant), is the connector's and the
	// obv store's clock, moved by step before each tool call.
	clk *testClock
}

// step moves the clock 1.1 s, so the tool call's kept result was rendered
// more than a second ago and its cache entry's ttl and Age have moved
// since; every 100 steps it goes back to where it started (the entry
// stays fresh: a search is kept 10 minutes).
func (h *hitpath) step() {
	if h.clk != nil {
		h.clk.Step(1100*time.Millisecond, 100)
	}
}

// recordingRT keeps the last tools/call request mcp-go's client sent.
type recordingRT struct {
	rt      http.RoundTripper
	mu      sync.Mutex
	body    []byte
	headers http.Header
}

func (r *recordingRT) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Method == http.MethodPost {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(b))
		if bytes.Contains(b, []byte(`"tools/call"`)) {
			r.mu.Lock()
			r.body, r.headers = b, req.Header.Clone()
			r.mu.Unlock()
		}
	}
	return r.rt.RoundTrip(req)
}

func newHitpath(b testing.TB) *hitpath {
	site, port := chainSite(b, b.TempDir())
	testcaddy.Load(b, site)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	rec := &recordingRT{rt: &http.Transport{DisableCompression: true}}
	c := connectWith(b, base+"/mcp/raad", false, nil, &http.Client{Transport: rec})
	src := decodeResult(&testing.T{}, mustTool(b, c, "obv_sources", nil))
	org := src["organizations"].([]any)[0].(map[string]any)["key"].(string)
	args := map[string]any{"organization": org, "limit": 10}
	mustTool(b, c, "obv_search", args) // warm the cache
	if text := mustTool(b, c, "obv_search", args); !strings.Contains(text, `"from_cache":true`) {
		b.Fatalf("second call not from the cache: %s", text)
	}
	h := &hitpath{base: base, direct: fmt.Sprintf("/platforms/obv/api/search?limit=10&organization=%s", org)}
	rec.mu.Lock()
	h.body, h.headers = rec.body, rec.headers
	rec.mu.Unlock()
	if h.body == nil {
		b.Fatal("recorded no tools/call request")
	}
	h.srv = serverOnPort(b, port)
	return h
}

// serverOnPort is the running config's Caddy server listening on port.
func serverOnPort(b testing.TB, port int) *caddyhttp.Server {
	app, err := caddy.ActiveContext().App("http")
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range app.(*caddyhttp.App).Servers {
		for _, l := range s.Listen {
			if strings.HasSuffix(l, fmt.Sprintf(":%d", port)) {
				return s
			}
		}
	}
	b.Fatalf("no server on port %d", port)
	return nil
}

// discardWriter is the cheapest ResponseWriter: it keeps the status and
// counts the body.
type discardWriter struct {
	h      http.Header
	status int
	n      int
	buf    []byte // the body, when keep is set
	keep   bool
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(s int) {
	if w.status == 0 {
		w.status = s
	}
}
func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.n += len(p)
	if w.keep {
		w.buf = append(w.buf, p...)
	}
	return len(p), nil
}

// serveDirect runs the direct request through the server in process.
func (h *hitpath) serveDirect(w *discardWriter) {
	r := httptest.NewRequest(http.MethodGet, h.direct, nil)
	r.Host = strings.TrimPrefix(h.base, "http://")
	h.srv.ServeHTTP(w, r)
}

// serveTool runs the recorded tools/call through the server in process.
func (h *hitpath) serveTool(w *discardWriter) {
	r := httptest.NewRequest(http.MethodPost, "/mcp/raad", bytes.NewReader(h.body))
	r.Host = strings.TrimPrefix(h.base, "http://")
	for k, v := range h.headers {
		r.Header[k] = v
	}
	h.srv.ServeHTTP(w, r)
}

// BenchmarkCachedAnswerServer is the server's side alone of the same
// cached answer, direct and as a tool call: the requests go straight into
// the Caddy server's ServeHTTP (no network, no client), so ns/op, B/op
// and allocs/op are the server's own work. Profile one side with
// -bench 'CachedAnswerServer/tool' -cpuprofile / -memprofile.
func BenchmarkCachedAnswerServer(b *testing.B) {
	h := newHitpath(b)
	w := &discardWriter{h: http.Header{}, keep: true}
	h.serveDirect(w)
	if w.status != http.StatusOK || !cachestatus.Hit(w.h.Get("Cache-Status")) {
		b.Fatalf("direct: status %d, Cache-Status %q", w.status, w.h.Get("Cache-Status"))
	}
	w = &discardWriter{h: http.Header{}, keep: true}
	h.serveTool(w)
	if w.status != http.StatusOK || !bytes.Contains(w.buf, []byte(`\"from_cache\":true`)) {
		b.Fatalf("tool: status %d, %s", w.status, w.buf)
	}
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			h.serveDirect(&discardWriter{h: http.Header{}})
		}
	})
	for i, v := range hitpathVariants {
		b.Run(v.name, func(b *testing.B) {
			defer h.set(i)()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				h.step()
				h.serveTool(&discardWriter{h: http.Header{}})
			}
		})
	}
}

// BenchmarkCachedAnswerServerPair is BenchmarkCachedAnswerServer's direct
// hit and fast-path tool call alternating in one loop, each timed on its
// own, so both see the same load on a shared machine; it reports each
// one's mean and their ratio (server CPU per call, one goroutine).
func BenchmarkCachedAnswerServerPair(b *testing.B) {
	h := newHitpath(b)
	for _, i := range pairVariants() {
		b.Run(hitpathVariants[i].name, func(b *testing.B) {
			defer h.set(i)()
			var direct, tool time.Duration
			for i := 0; i < b.N; i++ {
				h.step()
				t0 := time.Now()
				h.serveDirect(&discardWriter{h: http.Header{}})
				t1 := time.Now()
				h.serveTool(&discardWriter{h: http.Header{}})
				t2 := time.Now()
				direct, tool = direct+t1.Sub(t0), tool+t2.Sub(t1)
			}
			b.ReportMetric(float64(direct.Nanoseconds())/float64(b.N), "direct-ns")
			b.ReportMetric(float64(tool.Nanoseconds())/float64(b.N), "tool-ns")
			b.ReportMetric(float64(tool)/float64(direct), "cpu-ratio")
		})
	}
}

// pairVariants are the variants the pair benchmarks run: the fast path,
// mcp-go, the memo off, before issue 23, and the distinct question.
func pairVariants() []int {
	var out []int
	for i, v := range hitpathVariants {
		switch v.name {
		case "tool", "tool-mcpgo", "tool-nomemo", "tool-before", "tool-distinct", "tool-distinct-before":
			out = append(out, i)
		}
	}
	return out
}

// hitpathVariants are the tool call through the fast path of issue 33
// ("tool"), through mcp-go with issue 23's levers on ("tool-mcpgo") and
// all off ("tool-before"), each of those levers off alone, and the fast
// path with one of mcp-go's per-call costs added back (fastCosts: what
// each upstream proposal would save), all in one run.
var hitpathVariants = []struct {
	name                              string
	mcpgo                             bool // the fast path is off
	nomemo                            bool // the fast path's result memo is off
	distinct, memoBefore              bool // hitpath.step before each call; memoBefore
	parseCache, encodeOnce, rawSchema bool // the lever is off
	decodes, bindings, session, enc   bool // fastCosts
}{
	{name: "tool"},
	{name: "tool-mcpgo", mcpgo: true},
	{name: "tool-nomemo", nomemo: true},
	{name: "tool-before", mcpgo: true, parseCache: true, encodeOnce: true, rawSchema: true},
	// The distinct question: the clock moves 1.1 s before each call, so
	// the call's result was rendered more than a second ago: written from
	// the kept template, and as before the template (memoBefore: a
	// result kept within its second only, so the tool runs).
	{name: "tool-distinct", distinct: true},
	{name: "tool-distinct-before", distinct: true, memoBefore: true},
	{name: "tool-without-parsecache", mcpgo: true, parseCache: true},
	{name: "tool-without-encodeonce", mcpgo: true, encodeOnce: true},
	{name: "tool-without-rawschema", mcpgo: true, rawSchema: true},
	{name: "fast-plus-decodes", decodes: true},
	{name: "fast-plus-bindings", bindings: true},
	{name: "fast-plus-session", session: true},
	{name: "fast-plus-mapencode", enc: true},
}

// set turns the variant's levers off and hands the connector's tools to
// mcp-go again (the input schema's form is fixed there); undo turns them
// on again.
func (h *hitpath) set(v int) (undo func()) {
	x := hitpathVariants[v]
	hitpathOff.parseCache, hitpathOff.encodeOnce, hitpathOff.rawSchema = x.parseCache, x.encodeOnce, x.rawSchema
	fastCosts.decodes, fastCosts.bindings, fastCosts.session, fastCosts.mapEncode = x.decodes, x.bindings, x.session, x.enc
	h.fast(!x.mcpgo, !x.nomemo)
	h.retool()
	memoBefore = x.memoBefore
	if x.distinct {
		h.clk = newTestClock(time.Now())
		h.clocks(h.clk.Now)
	}
	return func() {
		if h.clk != nil {
			h.clocks(time.Now)
			h.clk = nil
		}
		memoBefore = false
		hitpathOff.parseCache, hitpathOff.encodeOnce, hitpathOff.rawSchema = false, false, false
		fastCosts.decodes, fastCosts.bindings, fastCosts.session, fastCosts.mapEncode = false, false, false, false
		h.fast(true, true)
		h.retool()
	}
}

// clocks sets the connector's and the obv store's clock.
func (h *hitpath) clocks(now func() time.Time) {
	v, _, err := connectors.LoadOrNew("raad", nil)
	if err != nil {
		panic(err)
	}
	defer connectors.Delete("raad")
	v.(*connector).setClock(now)
	platformcache.StoreOf("obv").SetClock(now)
}

// fast turns the connector's fast path and its result memo on or off.
func (h *hitpath) fast(on, memo bool) {
	v, _, err := connectors.LoadOrNew("raad", nil)
	if err != nil {
		panic(err)
	}
	defer connectors.Delete("raad")
	v.(*connector).fast.off.Store(!on)
	v.(*connector).fast.memoOff.Store(!memo)
}

func (h *hitpath) retool() {
	v, _, err := connectors.LoadOrNew("raad", nil)
	if err != nil {
		panic(err)
	}
	defer connectors.Delete("raad")
	c := v.(*connector)
	c.mcp.SetTools(c.toolsFor(c.settings().platforms)...)
}

// BenchmarkCachedAnswerHTTP is the same pair end to end over HTTP: one
// keep-alive client alternates the direct request and the recorded
// tools/call (pre-encoded bytes, so only the server's work differs) and
// reports each one's median latency and their ratio.
func BenchmarkCachedAnswerHTTP(b *testing.B) {
	h := newHitpath(b)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
	direct := h.base + h.direct
	do := func(req *http.Request) {
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("%s %s: %d %v %s", req.Method, req.URL, resp.StatusCode, resp.Header, body)
		}
	}
	toolReq := func() *http.Request {
		req, _ := http.NewRequest(http.MethodPost, h.base+"/mcp/raad", bytes.NewReader(h.body))
		for k, v := range h.headers {
			req.Header[k] = v
		}
		return req
	}
	directReq := func() *http.Request {
		req, _ := http.NewRequest(http.MethodGet, direct, nil)
		return req
	}
	for _, i := range pairVariants() {
		b.Run(hitpathVariants[i].name, func(b *testing.B) {
			defer h.set(i)()
			var dl, tl []time.Duration
			for i := 0; i < b.N; i++ {
				h.step()
				t0 := time.Now()
				do(directReq())
				t1 := time.Now()
				do(toolReq())
				t2 := time.Now()
				dl, tl = append(dl, t1.Sub(t0)), append(tl, t2.Sub(t1))
			}
			pd, pt := p50(dl), p50(tl)
			b.ReportMetric(float64(pd.Microseconds()), "direct-p50-µs")
			b.ReportMetric(float64(pt.Microseconds()), "tool-p50-µs")
			b.ReportMetric(float64(pt)/float64(pd), "p50-ratio")
		})
	}
}

func p50(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
