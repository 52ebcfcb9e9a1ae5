package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/besluitbron/besluitbron/cache"
	"github.com/besluitbron/besluitbron/mcpkit"
)

// The fast path (issue 33). A cached tools/call costs little of its own
// work, but mcp-go v1.2.1 decodes its body about seven times, encodes the
// tool's input schema per call, builds a session with channels and a
// goroutine per request and encodes the result through a map
// (docs/benchmarks/mcp.md). The fast path answers the one request that
// matters for throughput, a tools/call whose platform answers are all in
// the cache, beside mcp-go: it decodes the request once, applies every
// rule mcp-go applies to such a request, runs the same tool handler and
// writes the answer mcp-go would write.
//
// It never answers anything it does not fully recognise: every check below
// that fails hands the request to mcp-go untouched, which then gives its
// own answer, error or not. So the fast path writes only successes, and
// mcp-go stays the one place that decides errors. A call whose platform
// answers are not all stored (a miss) is handed over too: the handler runs
// stored-only (cache.WithStoredOnly), so a miss costs no platform request
// and no budget before mcp-go asks again normally, and a slow call keeps
// mcp-go's cancellation (notifications/cancelled) and streaming.
//
// The differential test (fastpath_diff_test.go) holds it to mcp-go: the
// same corpus through both paths gives the same answers, and a fuzz target
// looks for any difference; an mcp-go upgrade that changes an answer fails
// there.

// fastPath is a connector's fast path.
type fastPath struct {
	c *connector
	// off hands every request to mcp-go (the differential test compares
	// both paths on one server).
	off atomic.Bool
	// served counts the calls it answered.
	served atomic.Int64
	// tools are the tools the fast path may run, by name, from the
	// connector's current tool list (configure): computed once per
	// (re)load, never per call.
	tools atomic.Pointer[map[string]fastTool]
	// serverInfo is the _meta.serverInfo mcp-go stamps on a 2026-07-28
	// result (decorateResult in its server/response.go).
	serverInfo []byte
	info       mcpgo.Implementation
	// uncachedTools are tools whose platform route answered a
	// stored-only request without a cache in front (no Cache-Status):
	// there a call cannot be known to be a hit before it is made, so
	// they go to mcp-go from then on.
	uncachedTools sync.Map // name → true
	// seen is when mcp-go last saw each 2025-era session (a request handed
	// to it): mcp-go ends a session idle for session_idle by its own clock,
	// which only requests it serves move on, so a session is handed to
	// mcp-go at least every idle/4 (mustTouch).
	seen sync.Map // session id → *atomic.Int64 (unix ns)
	idle time.Duration
	// memo keeps encoded results of the calls to the tools that declare
	// it (mcpkit.Tool.Kept; resultmemo.go); memoOff turns it off
	// (benchmarks, tests).
	memo       resultMemo
	memoOff    atomic.Bool
	memoServed atomic.Int64 // calls answered from the memo
}

// fastTool is one tool the fast path may run.
type fastTool struct {
	tool    mcpgo.Tool
	handler server.ToolHandlerFunc
	keep    mcpkit.Keeping // how the result memo may keep its result
}

// fastIneligible are the tools the fast path never runs: search_all asks
// the platforms through the fan-out engine, whose sub-requests are not
// the connector's (so not stored-only), and whose deadline makes a slow
// platform part of the answer.
var fastIneligible = map[string]bool{"search_all": true}

func newFastPath(c *connector, name, version string, idle time.Duration) *fastPath {
	info := mcpgo.Implementation{Name: name, Version: version}
	enc, _ := json.Marshal(map[string]any{mcpgo.MetaKeyServerInfo: info})
	return &fastPath{c: c, serverInfo: enc, info: info, idle: idle}
}

// setTools takes the connector's tool list (as handed to mcp-go). A tool
// with x-mcp-header parameters (Mcp-Param-* headers, checked by mcp-go per
// call) is left to mcp-go; BesluitBron's tools have none, which this
// works out once here rather than per call.
func (f *fastPath) setTools(tools []server.ServerTool) {
	m := make(map[string]fastTool, len(tools))
	for _, t := range tools {
		if fastIneligible[t.Tool.Name] || len(mcpgo.ExtractParamHeaderBindings(&t.Tool)) > 0 {
			continue
		}
		m[t.Tool.Name] = fastTool{tool: t.Tool, handler: t.Handler, keep: keepingOf()[t.Tool.Name]}
	}
	f.tools.Store(&m)
	// Results kept under the previous config never hold again (they
	// name its tool list); drop them, and the stores they hold on to.
	f.memo.clear()
}

// serve answers r (a POST whose body the connector has read, within
// max_body) when it can, and reports whether it did. Host, Origin, the
// recursion guard and the body limit are the connector's own checks,
// made before (Handler.ServeHTTP); the inbound limits and the fair queue
// run in the route before the connector, and the sub-requests carry the
// caller's session as mcp-go's would.
func (f *fastPath) serve(w http.ResponseWriter, r *http.Request, body []byte) bool {
	if f.off.Load() {
		return false
	}
	// mcp-go answers any other Content-Type with 400.
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return false
	}
	call, ok := parseFastCall(body)
	if !ok {
		return false
	}
	if fastCosts.decodes {
		mcpgoDecodes(body)
	}
	tools := f.tools.Load()
	if tools == nil {
		return false
	}
	// An unknown tool is mcp-go's -32602.
	tool, ok := (*tools)[call.name]
	if !ok {
		return false
	}
	if _, uncached := f.uncachedTools.Load(call.name); uncached {
		return false
	}
	if fastCosts.bindings {
		_ = mcpgo.ExtractParamHeaderBindings(&tool.tool)
	}
	if !f.eraAllows(r, &call) {
		return false
	}
	if tool.keep == mcpkit.NotKept || f.memoOff.Load() || fastCosts.any() {
		res, _, ok := f.run(r, tool, &call, nil, nil)
		if !ok {
			return false
		}
		f.write(w, &call, res, nil, nil)
		f.served.Add(1)
		return true
	}
	kb := memoKeyBufs.Get().(*[]byte)
	key := memoKey((*kb)[:0], r.Host, &call)
	defer func() {
		if cap(key) <= 64<<10 { // a large body's key is not kept for the next
			*kb = key
			memoKeyBufs.Put(kb)
		}
	}()
	srv, _ := r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	if f.answerKept(w, &call, key, srv, tools, tool.keep) {
		f.served.Add(1)
		f.memoServed.Add(1)
		return true
	}
	stamp := f.stamp(srv, tools, tool.keep, f.c.now())
	hits := &cache.HitRecorder{}
	render := &memoRender{}
	res, so, ok := f.run(r, tool, &call, hits, render)
	if !ok {
		return false
	}
	f.write(w, &call, res, render, func(text []byte, slots []memoSlot) {
		if !res.IsError && !so.uncached.Load() {
			f.keep(key, &stamp, tool.keep, hits, render, text, slots)
		}
	})
	f.served.Add(1)
	return true
}

var memoKeyBufs = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// eraAllows applies the rules of the request's protocol era, as mcp-go's
// handlePost and HandleMessage do (detectRequestEra, validateModernRequest,
// extractRequestProtocolInfo, validateStandardHeadersForMessage), and
// reports whether the request passes them all.
func (f *fastPath) eraAllows(r *http.Request, call *fastCall) bool {
	header := r.Header.Get(mcpgo.HeaderProtocolVersion)
	call.modern = mcpgo.IsModernProtocol(call.metaVersion) || mcpgo.IsModernProtocol(header)
	if !call.modern {
		// A 2025-era request: an Mcp-Protocol-Version mcp-go knows (or
		// none), no _meta of the new era, and a session this connector
		// issued and mcp-go has seen lately.
		if call.hasMeta || (header != "" && !mcpgo.IsValidProtocolVersion(header)) {
			return false
		}
		id := r.Header.Get(server.HeaderKeySessionID)
		m := idResolver{f.c.ids}.ResolveSessionIdManager(r)
		if terminated, err := m.Validate(id); err != nil || terminated {
			return false // mcp-go's 404
		}
		return !f.mustTouch(id)
	}
	// 2026-07-28: no Last-Event-ID; the version in both the header and
	// _meta, the same, one this transport serves; the client's
	// capabilities in _meta; Mcp-Method and Mcp-Name agreeing with the
	// body.
	if r.Header.Get(mcpgo.HeaderLastEventID) != "" || header == "" || call.metaVersion != header ||
		!mcpgo.IsValidProtocolVersion(header) || !f.c.http.SupportsProtocolVersion(header) || !call.hasCaps {
		return false
	}
	return standardHeadersAgree(r, header, call)
}

// standardHeadersAgree is mcpgo.ValidateStandardHeaders for a call
// parseFastCall took: Mcp-Method is tools/call, and Mcp-Name (decoded as
// mcp-go decodes it) is the body's params.name, which mcp-go extracts by
// decoding params again and parseFastCall read once (params has one
// member "name", written plainly).
func standardHeadersAgree(r *http.Request, version string, call *fastCall) bool {
	if !mcpgo.RequiresStandardHeaders(version) {
		return true
	}
	if r.Header.Get(mcpgo.HeaderMethod) != string(mcpgo.MethodToolsCall) {
		return false
	}
	if !mcpgo.MethodRequiresNameHeader(mcpgo.MethodToolsCall) {
		return true
	}
	name := r.Header.Get(mcpgo.HeaderName)
	if name == "" {
		return false
	}
	decoded, ok := mcpgo.DecodeHeaderValue(name)
	return ok && decoded == call.name
}

// mustTouch tells whether the 2025-era session id must go to mcp-go so
// that its idle clock moves (and notes that it does).
func (f *fastPath) mustTouch(id string) bool {
	now := f.c.now().UnixNano()
	v, ok := f.seen.Load(id)
	if !ok {
		v, _ = f.seen.LoadOrStore(id, new(atomic.Int64))
	}
	last := v.(*atomic.Int64)
	if now-last.Load() < int64(f.idle/4) {
		return false
	}
	last.Store(now)
	return true
}

// forget drops a session mcp-go ended (its unregister hook).
func (f *fastPath) forget(id string) { f.seen.Delete(id) }

// storedOnly is a fast-path call's record of its platform answers: one
// missing from the cache (missed), or one from a route without a cache
// (uncached).
type storedOnly struct{ missed, uncached atomic.Bool }

type storedOnlyKey struct{}

// storedOnlyOf returns the record of a fast-path call, nil otherwise.
func storedOnlyOf(ctx context.Context) *storedOnly {
	s, _ := ctx.Value(storedOnlyKey{}).(*storedOnly)
	return s
}

// run runs the tool's handler stored-only, and returns its result when
// every platform answer behind it came from the cache.
func (f *fastPath) run(r *http.Request, tool fastTool, call *fastCall, hits *cache.HitRecorder, render *memoRender) (res *mcpgo.CallToolResult, rec *storedOnly, ok bool) {
	var args any
	if call.args != nil {
		if json.Unmarshal(call.args, &args) != nil {
			return nil, nil, false
		}
	}
	rec = &storedOnly{}
	ctx := context.WithValue(cache.WithStoredOnly(r.Context()), storedOnlyKey{}, rec)
	if hits != nil {
		ctx = cache.WithHitRecorder(ctx, hits)
	}
	if render != nil {
		ctx = withMemoRender(ctx, render)
	}
	req := mcpgo.CallToolRequest{Header: r.Header}
	req.Method = string(mcpgo.MethodToolsCall)
	req.Params.Name = call.name
	req.Params.Arguments = args
	if fastCosts.session {
		defer mcpgoSession()()
	}
	defer func() {
		// mcp-go recovers a handler's panic (WithRecovery) into its own
		// error answer: hand the request to it.
		if p := recover(); p != nil {
			res, ok = nil, false
		}
	}()
	res, err := tool.handler(ctx, req)
	if rec.uncached.Load() {
		// The platform was asked (no cache on its route): this answer
		// is had, asking again through mcp-go would spend its budget
		// twice; the tool's next calls go to mcp-go.
		f.uncachedTools.Store(call.name, true)
	}
	switch {
	case err != nil, res == nil, rec.missed.Load():
		return nil, nil, false
	case res.ResultType != "", len(res.InputRequests) > 0, res.RequestState != "", res.Meta != nil:
		// A multi-round-trip result or one with its own metadata: mcp-go's.
		return nil, nil, false
	}
	return res, rec, true
}

// write writes the answer mcp-go writes for a successful tools/call: 200,
// Content-Type application/json, the JSON-RPC response and a newline
// (json.Encoder); on a 2026-07-28 request the result carries resultType
// "complete" and _meta.serverInfo (mcp-go's decorateResult), on a 2025-era
// one neither. The result is this call's own (each handler call builds a
// new one), and is only read here. A result rendered for the memo
// (render not nil) has placeholders in its Meta: they are filled with the
// values meta gave this call, and encoded, when not nil, is handed the
// result's own encoding (the same for both eras) cut at them.
func (f *fastPath) write(w http.ResponseWriter, call *fastCall, res *mcpgo.CallToolResult, render *memoRender, encoded func([]byte, []memoSlot)) {
	buf := encodeBufs.Get().(*bytes.Buffer)
	defer putEncodeBuf(buf)
	buf.Reset()
	f.writeHead(buf, call)
	start := buf.Len()
	if fastCosts.mapEncode || !writeResultBody(buf, res) {
		// Content this writer does not know: encode as mcp-go does.
		buf.Reset()
		if call.modern {
			res.SetResultType(mcpgo.ResultTypeComplete)
			res.EnsureResultMeta().SetServerInfo(f.info)
		}
		var id any
		_ = json.Unmarshal(call.id, &id)
		_ = json.NewEncoder(buf).Encode(mcpgo.NewJSONRPCResultResponse(mcpgo.NewRequestId(id), res))
		if render != nil {
			text, slots := cutSlots(buf.Bytes())
			out := fillSlots(nil, text, slots, render.fill)
			buf.Reset()
			buf.Write(out)
		}
	} else {
		if render != nil {
			text, slots := cutSlots(buf.Bytes()[start:])
			if slots != nil { // text is cutSlots' own copy
				buf.Truncate(start)
				buf.Write(fillSlots(buf.AvailableBuffer(), text, slots, render.fill))
			}
			if encoded != nil {
				encoded(text, slots)
			}
		}
		buf.WriteString("}}\n")
	}
	sendJSON(w, buf)
}

// writeHead writes the response up to the result's own members.
func (f *fastPath) writeHead(buf *bytes.Buffer, call *fastCall) {
	buf.WriteString(`{"jsonrpc":"2.0","id":`)
	buf.Write(call.id)
	buf.WriteString(`,"result":{`)
	if call.modern {
		buf.WriteString(`"_meta":`)
		buf.Write(f.serverInfo)
		buf.WriteString(`,"resultType":"complete",`)
	}
}

func sendJSON(w http.ResponseWriter, buf *bytes.Buffer) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

func putEncodeBuf(buf *bytes.Buffer) {
	if buf.Cap() <= 1<<20 {
		buf.Reset()
		encodeBufs.Put(buf)
	}
}

// writeResultBody writes a tool result's content, structuredContent and
// isError (CallToolResult.MarshalJSON's fields, in one pass instead of
// through a map), and reports false for content it leaves to that encoder.
func writeResultBody(buf *bytes.Buffer, res *mcpgo.CallToolResult) bool {
	buf.WriteString(`"content":[`)
	for i, c := range res.Content {
		if i > 0 {
			buf.WriteByte(',')
		}
		switch v := c.(type) {
		case mcpgo.TextContent:
			if v.Annotations != nil || v.Meta != nil {
				return false
			}
			buf.WriteString(`{"type":"text","text":`)
			if !writeJSONString(buf, v.Text) {
				return false
			}
			buf.WriteByte('}')
		default:
			b, err := json.Marshal(c)
			if err != nil {
				return false
			}
			buf.Write(b)
		}
	}
	buf.WriteByte(']')
	switch {
	case len(res.RawStructuredContent) > 0:
		buf.WriteString(`,"structuredContent":`)
		buf.Write(res.RawStructuredContent)
	case res.StructuredContent != nil:
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return false
		}
		buf.WriteString(`,"structuredContent":`)
		buf.Write(b)
	}
	if res.IsError {
		buf.WriteString(`,"isError":true`)
	}
	return true
}
