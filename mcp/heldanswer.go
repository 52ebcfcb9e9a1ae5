package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/subcall"
)

// A resources/read learns two things on its way that mcp-go gives its
// handlers no way to say: how long the answers it read stay fresh (the
// read's ttlMs: mcp-go sets one hint for every read) and that the
// reference names no document, or is malformed (mcp-go answers every
// handler error with -32603, not the "resource not found" of the
// protocol). A prompts/get learns the second kind too: its arguments
// are refused, which the protocol answers with invalid params (-32602),
// not mcp-go's -32603. heldOutcome carries both from the handler,
// through the request's context, to the after-read hook (the hints) and
// to the connector's ServeHTTP (the error), which holds mcp-go's answer
// to those two methods (heldWriter). docs/mcp.md, "Resources", names the
// mcp-go change that would make this unnecessary.

// heldOutcome is what one resources/read or prompts/get request learned.
type heldOutcome struct {
	mu        sync.Mutex
	answers   int
	cached    int
	fresh     time.Duration // the least fresh lifetime among the answers that said one
	freshKnow bool
	fetchedAt time.Time // the oldest answer's
	code      int       // a JSON-RPC error to answer instead of mcp-go's; 0: none
	modern    bool      // the request is of the 2026-07-28 era
	message   string
	uri       string
}

type outcomeKey struct{}

func withOutcome(ctx context.Context) (context.Context, *heldOutcome) {
	o := &heldOutcome{}
	return context.WithValue(ctx, outcomeKey{}, o), o
}

func outcomeOf(ctx context.Context) *heldOutcome {
	o, _ := ctx.Value(outcomeKey{}).(*heldOutcome)
	return o
}

// observe counts one platform answer the read was built from.
func (o *heldOutcome) observe(a *subcall.Answer, now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.answers++
	if a.FromCache() {
		o.cached++
	}
	if at := a.FetchedAt(now); o.fetchedAt.IsZero() || at.Before(o.fetchedAt) {
		o.fetchedAt = at
	}
	if d, ok := a.FreshFor(); ok && (!o.freshKnow || d < o.fresh) {
		o.fresh, o.freshKnow = d, true
	}
}

func (o *heldOutcome) fromCache() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.answers > 0 && o.cached == o.answers
}

// hints sets a read's caching hints: platform data is the same for
// everyone (public), and fresh as long as its least fresh answer; a read
// whose answers say nothing of it is revalidated (0).
func (o *heldOutcome) hints(r *mcpgo.ReadResourceResult) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var ttl int64
	if o.freshKnow {
		ttl = o.fresh.Milliseconds()
	}
	r.SetCacheHints(ttl, mcpgo.CacheScopePublic)
}

// refuse notes the JSON-RPC error the read answers with, and returns it
// as the handler's error (what mcp-go would say, should the rewrite not
// happen).
func (o *heldOutcome) refuse(ctx context.Context, code int, uri, message string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.code, o.uri, o.message = code, uri, message
	o.modern = mcpgo.IsModernProtocol(server.RequestProtocolVersion(ctx))
	return fmt.Errorf("%s", message)
}

// notFound is the error of a read whose URI names no document: the
// protocol's "resource not found" of the request's era (-32602 from
// 2026-07-28, -32002 before).
func notFound(ctx context.Context, uri, why string) error {
	msg := fmt.Sprintf("Resource not found: %s (%s)", uri, why)
	o := outcomeOf(ctx)
	if o == nil {
		return fmt.Errorf("%s: %w", msg, server.ErrResourceNotFound)
	}
	code := mcpgo.RESOURCE_NOT_FOUND
	if mcpgo.IsModernProtocol(server.RequestProtocolVersion(ctx)) {
		code = mcpgo.INVALID_PARAMS
	}
	return o.refuse(ctx, code, uri, msg)
}

// invalidURI is the error of a malformed URI, refused before any platform
// call: invalid params, saying what to fix.
func invalidURI(ctx context.Context, uri, why string) error {
	msg := fmt.Sprintf("Invalid resource URI %s: %s", uri, why)
	if o := outcomeOf(ctx); o != nil {
		return o.refuse(ctx, mcpgo.INVALID_PARAMS, uri, msg)
	}
	return fmt.Errorf("%s", msg)
}

// heldRequest tells whether a POST body is one request whose answer the
// connector holds (resources/read, prompts/get: the methods whose errors
// it rewrites), and its id, method and, for a read, URI.
func heldRequest(body []byte) (id json.RawMessage, method, uri string, ok bool) {
	if !bytes.Contains(body, []byte(`resources/read`)) && !bytes.Contains(body, []byte(`prompts/get`)) {
		return nil, "", "", false
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			URI string `json:"uri"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || len(m.ID) == 0 {
		return nil, "", "", false
	}
	switch mcpgo.MCPMethod(m.Method) {
	case mcpgo.MethodResourcesRead:
		return m.ID, m.Method, m.Params.URI, true
	case mcpgo.MethodPromptsGet:
		return m.ID, m.Method, "", true
	}
	return nil, "", "", false
}

// invalidPromptArgs is the error of a prompts/get whose arguments are
// refused: invalid params, saying what to fix.
func invalidPromptArgs(ctx context.Context, prompt string, err error) error {
	msg := fmt.Sprintf("invalid arguments for prompt %s: %v", prompt, err)
	if o := outcomeOf(ctx); o != nil {
		return o.refuse(ctx, mcpgo.INVALID_PARAMS, "", msg)
	}
	return fmt.Errorf("%s", msg)
}

// encodeColons is a besluitbron:// URI with its colons percent-encoded,
// as RFC 6570 expands a variable: people write an ECLI as it is
// (besluitbron://rechtspraak/ECLI:NL:HR:2014:952), and no template has a
// colon of its own after the scheme, so the reference they mean is the
// encoded one. Other URIs are returned as they are.
func encodeColons(uri string) string {
	const prefix = adapters.Scheme + "://"
	if !strings.HasPrefix(uri, prefix) || !strings.Contains(uri[len(prefix):], ":") {
		return uri
	}
	return prefix + strings.ReplaceAll(uri[len(prefix):], ":", "%3A")
}

// withURI is a resources/read body with params.uri set to uri, the rest
// as it was.
func withURI(body []byte, uri string) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	var params map[string]json.RawMessage
	if err := json.Unmarshal(m["params"], &params); err != nil {
		return nil, err
	}
	u, _ := json.Marshal(uri)
	params["uri"] = u
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	m["params"] = p
	return json.Marshal(m)
}

// heldWriter holds mcp-go's answer to a resources/read or prompts/get
// until the connector knows whether to send it or the request's own
// error. An event
// stream is passed through as it comes (the error then stays mcp-go's).
type heldWriter struct {
	w      http.ResponseWriter
	header http.Header
	status int
	buf    bytes.Buffer
	stream bool
}

func newHeldWriter(w http.ResponseWriter) *heldWriter {
	return &heldWriter{w: w, header: http.Header{}}
}

func (rw *heldWriter) Header() http.Header {
	if rw.stream {
		return rw.w.Header()
	}
	return rw.header
}

func (rw *heldWriter) WriteHeader(status int) {
	if rw.status != 0 {
		return
	}
	rw.status = status
	if strings.HasPrefix(rw.header.Get("Content-Type"), "text/event-stream") {
		rw.stream = true
		for k, v := range rw.header {
			rw.w.Header()[k] = v
		}
		rw.w.WriteHeader(status)
	}
}

func (rw *heldWriter) Write(p []byte) (int, error) {
	if rw.status == 0 {
		rw.WriteHeader(http.StatusOK)
	}
	if rw.stream {
		return rw.w.Write(p)
	}
	return rw.buf.Write(p)
}

func (rw *heldWriter) Flush() {
	if rw.stream {
		_ = http.NewResponseController(rw.w).Flush()
	}
}

// finish sends what the request comes to: its own error when the handler
// refused it, else mcp-go's answer as held, with a read's URI (readURI,
// "" for a prompt) added to an error that names none.
func (rw *heldWriter) finish(o *heldOutcome, id json.RawMessage, readURI string) {
	if rw.stream {
		return
	}
	o.mu.Lock()
	code, msg, uri, modern := o.code, o.message, o.uri, o.modern
	o.mu.Unlock()
	if code == 0 {
		for k, v := range rw.header {
			rw.w.Header()[k] = v
		}
		if rw.status == 0 {
			rw.status = http.StatusOK
		}
		body := rw.buf.Bytes()
		if readURI != "" {
			body = withErrorURI(body, readURI)
		}
		if len(body) != rw.buf.Len() {
			rw.w.Header().Del("Content-Length")
		}
		rw.w.WriteHeader(rw.status)
		_, _ = rw.w.Write(body)
		return
	}
	status := http.StatusOK
	if modern && code == mcpgo.INVALID_PARAMS {
		// 2026-07-28 sends invalid params with 400, as mcp-go does for
		// its own (httpStatusForJSONRPCError).
		status = http.StatusBadRequest
	}
	for _, k := range []string{"Mcp-Session-Id"} {
		if v := rw.header.Get(k); v != "" {
			rw.w.Header().Set(k, v)
		}
	}
	e := map[string]any{"code": code, "message": msg}
	if uri != "" {
		e["data"] = map[string]string{"uri": uri}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
	rw.w.Header().Set("Content-Type", "application/json")
	rw.w.WriteHeader(status)
	_, _ = rw.w.Write(append(body, '\n'))
}

// withErrorURI is a resources/read answer with data.uri set on its error
// when the error has no data: mcp-go's own "resource not found" (a URI
// no template matches) names no URI, which SEP-2164 asks for, and any
// other refusal of a read is about that URI too. Anything else (a
// result, an error with data, what is not JSON) is returned as it is.
func withErrorURI(body []byte, uri string) []byte {
	if !bytes.Contains(body, []byte(`"error"`)) {
		return body
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil || m["error"] == nil {
		return body
	}
	var e map[string]json.RawMessage
	if json.Unmarshal(m["error"], &e) != nil || e == nil || e["data"] != nil {
		return body
	}
	e["data"], _ = json.Marshal(map[string]string{"uri": uri})
	var err error
	if m["error"], err = json.Marshal(e); err != nil {
		return body
	}
	out, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return append(out, '\n')
}
