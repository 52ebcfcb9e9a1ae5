package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/caddymodule/platforms"
	"github.com/besluitbron/besluitbron/mcp/adapters"
)

// Default and largest page of full text a fetch tool returns, in characters.
const (
	defaultMaxChars = 8000
	hardMaxChars    = 100000
)

// readOnly is the annotation every BesluitBron tool carries: it reads public
// data from the open web and changes nothing. NewTool's defaults
// (destructive, not idempotent) are wrong for these tools.
func readOnly(title string) mcp.ToolOption {
	t, f := true, false
	return mcp.WithToolAnnotation(mcp.ToolAnnotation{
		Title:           title,
		ReadOnlyHint:    &t,
		DestructiveHint: &f,
		IdempotentHint:  &t,
		OpenWorldHint:   &t,
	})
}

// Common argument options.
func limitArg(def, max int, hint string) mcp.ToolOption {
	return mcp.WithNumber("limit", mcp.Description(fmt.Sprintf("Results per page, 1 to %d (default %d). %s", max, def, hint)),
		mcp.Min(1), mcp.Max(float64(max)), mcp.DefaultNumber(float64(def)))
}

func offsetArg() mcp.ToolOption {
	return mcp.WithNumber("offset", mcp.Description("Skip this many results (paging; use next_offset of the previous page). Default 0."), mcp.Min(0))
}

func dateArgs() []mcp.ToolOption {
	return []mcp.ToolOption{
		mcp.WithString("date_from", mcp.Description("Earliest date, YYYY-MM-DD.")),
		mcp.WithString("date_to", mcp.Description("Latest date, YYYY-MM-DD.")),
	}
}

func textPageArgs() []mcp.ToolOption {
	return []mcp.ToolOption{
		mcp.WithNumber("offset", mcp.Description("Character offset in the full text to start from (use next_offset of the previous call). Default 0."), mcp.Min(0)),
		mcp.WithNumber("max_chars", mcp.Description(fmt.Sprintf("At most this many characters of text, 200 to %d (default %d).", hardMaxChars, defaultMaxChars)),
			mcp.Min(200), mcp.Max(hardMaxChars)),
	}
}

func newTool(name, title, desc string, opts ...mcp.ToolOption) mcp.Tool {
	all := append([]mcp.ToolOption{mcp.WithDescription(desc), readOnly(title)}, opts...)
	return mcp.NewTool(name, all...)
}

// args reads a tool call's arguments with messages that say what to fix.
type args struct {
	m    map[string]any
	errs []string
}

func newArgs(req mcp.CallToolRequest, tool mcp.Tool) *args {
	a := &args{m: req.GetArguments()}
	if a.m == nil {
		switch v := req.Params.Arguments.(type) {
		case nil:
		case json.RawMessage:
			if len(v) > 0 && string(v) != "null" {
				a.errs = append(a.errs, "arguments must be a JSON object")
			}
		default:
			a.errs = append(a.errs, "arguments must be a JSON object, got "+typeName(v))
		}
		a.m = map[string]any{}
	}
	var unknown []string
	for k := range a.m {
		if _, ok := tool.InputSchema.Properties[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		var known []string
		for k := range tool.InputSchema.Properties {
			known = append(known, k)
		}
		sort.Strings(known)
		a.errs = append(a.errs, fmt.Sprintf("unknown argument(s) %s: %s takes %s", strings.Join(unknown, ", "), tool.Name, strings.Join(known, ", ")))
	}
	return a
}

func (a *args) fail(format string, v ...any) { a.errs = append(a.errs, fmt.Sprintf(format, v...)) }

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64, int, int64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func (a *args) str(name string) string {
	v, ok := a.m[name]
	if !ok || v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		a.fail("%s must be a string, got %s", name, typeName(v))
		return ""
	}
	if len(s) > 1000 {
		a.fail("%s is %d characters long: use at most 1000", name, len(s))
		return ""
	}
	return strings.TrimSpace(s)
}

func (a *args) required(name, example string) string {
	s := a.str(name)
	if s == "" && len(a.errs) == 0 {
		a.fail("%s is required, e.g. %s", name, example)
	}
	return s
}

func (a *args) integer(name string, def, min, max int) int {
	v, ok := a.m[name]
	if !ok || v == nil {
		return def
	}
	var f float64
	switch t := v.(type) {
	case float64:
		f = t
	case string:
		n, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		if err != nil {
			a.fail("%s must be a number, got %q", name, t)
			return def
		}
		f = n
	default:
		a.fail("%s must be a number, got %s", name, typeName(v))
		return def
	}
	if f != float64(int64(f)) {
		a.fail("%s must be a whole number, got %v", name, f)
		return def
	}
	if f < float64(min) || f > float64(max) {
		a.fail("%s %v is out of range: use %d to %d", name, f, min, max)
		return def
	}
	return int(f)
}

func (a *args) boolean(name string, def bool) bool {
	v, ok := a.m[name]
	if !ok || v == nil {
		return def
	}
	switch t := v.(type) {
	case bool:
		return t
	case string:
		if b, err := strconv.ParseBool(t); err == nil {
			return b
		}
	}
	a.fail("%s must be true or false, got %s", name, typeName(v))
	return def
}

func (a *args) strList(name string) []string {
	v, ok := a.m[name]
	if !ok || v == nil {
		return nil
	}
	switch t := v.(type) {
	case string:
		if s := strings.TrimSpace(t); s != "" {
			return []string{s}
		}
		return nil
	case []any:
		var out []string
		for _, x := range t {
			s, ok := x.(string)
			if !ok {
				a.fail("%s must be a list of strings", name)
				return nil
			}
			out = append(out, strings.TrimSpace(s))
		}
		if len(out) > 20 {
			a.fail("%s has %d items: use at most 20", name, len(out))
			return nil
		}
		return out
	}
	a.fail("%s must be a string or a list of strings, got %s", name, typeName(v))
	return nil
}

func (a *args) err() *mcp.CallToolResult {
	if len(a.errs) == 0 {
		return nil
	}
	return mcp.NewToolResultError("Invalid arguments: " + strings.Join(a.errs, "; ") + ".")
}

// textPage reads offset and max_chars of a fetch tool.
func (a *args) textPage(maxCap int) (offset, max int) {
	offset = a.integer("offset", 0, 0, 1<<30)
	max = a.integer("max_chars", defaultMaxChars, 200, hardMaxChars)
	if maxCap > 0 && max > maxCap {
		max = maxCap
	}
	return offset, max
}

// health keeps what the connector saw of each platform.
type health struct {
	mu sync.Mutex
	m  map[string]*platformHealth
}

type platformHealth struct {
	State       string    `json:"state"` // ok, failing, over_budget, unknown
	LastCallAt  time.Time `json:"last_call_at,omitempty"`
	LastOKAt    time.Time `json:"last_ok_at,omitempty"`
	LastError   string    `json:"last_error,omitempty"`
	RetryAfterS int       `json:"retry_after_seconds,omitempty"`
	Calls       int64     `json:"calls"`
	Errors      int64     `json:"errors"`
	CacheHits   int64     `json:"cache_hits"`
}

func (h *health) record(platform string, a *answer, failure string, retry int, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = map[string]*platformHealth{}
	}
	p := h.m[platform]
	if p == nil {
		p = &platformHealth{}
		h.m[platform] = p
	}
	p.Calls++
	p.LastCallAt = now
	if a != nil && a.fromCache() {
		p.CacheHits++
	}
	switch {
	case failure == "":
		p.State, p.LastOKAt, p.LastError, p.RetryAfterS = "ok", now, "", 0
	case a != nil && (a.overBudget() || a.Status == http.StatusTooManyRequests):
		p.State, p.LastError, p.RetryAfterS, p.Errors = "over_budget", failure, retry, p.Errors+1
	case a != nil && a.Status < 500 && a.Status != 0:
		// The platform answered; the question was wrong (404, 400).
		p.State, p.LastOKAt = "ok", now
	default:
		p.State, p.LastError, p.Errors = "failing", failure, p.Errors+1
	}
}

func (h *health) get(platform string) platformHealth {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p := h.m[platform]; p != nil {
		return *p
	}
	return platformHealth{State: "unknown"}
}

// call runs one sub-request for a tool and turns every failure into an
// isError result that says what happened and when to try again.
func (c *connector) call(ctx context.Context, platform string, req adapters.Request) (*answer, *mcp.CallToolResult) {
	p, _ := platforms.Get(platform)
	o, ok := originFrom(ctx)
	if !ok {
		return nil, mcp.NewToolResultError("internal error: the tool call has no Caddy server to send its platform request to")
	}
	a, err := subrequest(ctx, o, platform, req)
	now := time.Now()
	if err != nil {
		msg := fmt.Sprintf("%s could not be asked: %v.", p.Name, err)
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			msg = fmt.Sprintf("The request to %s was cancelled before it answered (%v).", p.Name, err)
		}
		c.health.record(platform, a, msg, 0, now)
		return nil, mcp.NewToolResultError(msg)
	}
	if a.Status >= 200 && a.Status < 300 {
		c.health.record(platform, a, "", 0, now)
		return a, nil
	}
	retry, hasRetry := retryAfter(a.Header, now)
	detail := bodyMessage(a.Body)
	var msg string
	switch {
	case a.overBudget():
		// BesluitBron's own budget turned the call away (not the
		// platform): the wait is this session's own, from Retry-After.
		if !hasRetry {
			retry = 60
		}
		msg = fmt.Sprintf("%s is over budget, retry in %d s: BesluitBron's request budget for %s has no room for this call now (HTTP %d); other platforms keep answering.", p.Name, retry, p.Name, a.Status)
		detail = "" // the body is Caddy's, not the platform's
	case a.Status == http.StatusTooManyRequests:
		if !hasRetry {
			retry = 60
		}
		msg = fmt.Sprintf("%s is over budget, retry in %d s: the platform itself answered HTTP 429; other platforms keep answering.", p.Name, retry)
	case a.Status == http.StatusNotFound:
		msg = fmt.Sprintf("Not found on %s (HTTP 404): check the id or take one from a search result.", p.Name)
	case a.Status == http.StatusBadRequest || a.Status == http.StatusUnprocessableEntity:
		msg = fmt.Sprintf("%s refused the request (HTTP %d)", p.Name, a.Status)
	case a.Status == http.StatusLoopDetected:
		msg = "internal error: the platform route led back to an MCP connector"
	case a.Status >= 500:
		if !hasRetry {
			retry = 60
		}
		msg = fmt.Sprintf("%s is unreachable or failing (HTTP %d). Try again in about %d seconds; other platforms keep answering.", p.Name, a.Status, retry)
	default:
		msg = fmt.Sprintf("%s answered HTTP %d", p.Name, a.Status)
	}
	if detail != "" {
		msg = strings.TrimSuffix(msg, ".") + ". The platform said: " + detail
	}
	c.health.record(platform, a, msg, retry, now)
	return nil, mcp.NewToolResultError(msg)
}

// bodyMessage pulls a short human message out of an error body.
func bodyMessage(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return ""
	}
	var j struct {
		Error any    `json:"error"`
		Hint  string `json:"hint"`
	}
	if json.Unmarshal(b, &j) == nil && j.Error != nil {
		var s string
		switch e := j.Error.(type) {
		case string:
			s = e
		default:
			eb, _ := json.Marshal(e)
			s = string(eb)
		}
		if j.Hint != "" {
			s += " (" + j.Hint + ")"
		}
		return adapters.Cut(s, 300)
	}
	return adapters.Snippet(string(b), 200)
}

// cacheInfo says, for the answers a result was built from, whether they
// all came from the cache and how long they waited for budget.
func cacheInfo(as ...*answer) map[string]any {
	all := len(as) > 0
	var wait int64
	var statuses []string
	for _, a := range as {
		if a == nil {
			continue
		}
		all = all && a.fromCache()
		wait += a.QueueWaitMS
		if a.Cache != "" {
			statuses = append(statuses, a.Cache)
		}
	}
	out := map[string]any{"from_cache": all, "queue_wait_ms": wait}
	if len(statuses) > 0 {
		out["cache_status"] = strings.Join(statuses, ", ")
	}
	return out
}

// jsonResult renders v (a map) merged with the cache info as compact JSON.
func jsonResult(platform string, v map[string]any, as ...*answer) *mcp.CallToolResult {
	out := map[string]any{"platform": platform}
	for k, x := range cacheInfo(as...) {
		out[k] = x
	}
	for k, x := range v {
		out[k] = x
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return mcp.NewToolResultError("internal error rendering the result: " + err.Error())
	}
	return mcp.NewToolResultText(strings.TrimSpace(buf.String()))
}

// pageResult renders a search page.
func pageResult(platform string, p adapters.Page, offset int, extra map[string]any, as ...*answer) *mcp.CallToolResult {
	v := map[string]any{"total": p.Total, "has_more": p.HasMore, "results": p.Hits}
	if p.TotalApprox {
		v["total_is_approximate"] = true
	}
	if p.HasMore {
		v["next_offset"] = offset + len(p.Hits)
	}
	for k, x := range extra {
		v[k] = x
	}
	return jsonResult(platform, v, as...)
}

// docResult renders a fetched document with one bounded page of its text.
func docResult(platform string, d adapters.Document, offset, max int, as ...*answer) *mcp.CallToolResult {
	tp := adapters.PageText(d.Text, offset, max)
	v := map[string]any{"document": d, "text": tp.Text, "text_offset": tp.Offset, "total_chars": tp.TotalChars}
	if tp.NextOffset > 0 {
		v["next_offset"] = tp.NextOffset
		v["note"] = fmt.Sprintf("Text cut at %d of %d characters; call again with offset=%d for more.", tp.NextOffset, tp.TotalChars, tp.NextOffset)
	}
	return jsonResult(platform, v, as...)
}

// parseFailed is the isError result for an answer that did not parse.
func parseFailed(platform string, err error) *mcp.CallToolResult {
	p, _ := platforms.Get(platform)
	return mcp.NewToolResultError(fmt.Sprintf("%s answered, but not in the expected form: %v", p.Name, err))
}

// toolSet collects a platform's tools.
type toolSet []server.ServerTool

func (ts *toolSet) add(t mcp.Tool, h func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult) {
	*ts = append(*ts, server.ServerTool{Tool: t, Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		a := newArgs(req, t)
		if r := a.err(); r != nil {
			return r, nil
		}
		r := h(ctx, req, a)
		if r == nil {
			r = a.err()
		}
		if r == nil {
			r = mcp.NewToolResultError("internal error: the tool gave no result")
		}
		return r, nil
	}})
}
