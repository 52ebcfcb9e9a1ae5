package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/caddymodule/platforms"
	"github.com/besluitbron/besluitbron/caddymodule/subrequest"
	"github.com/besluitbron/besluitbron/mcp/adapters"
)

// readOnly is the annotation every BesluitBron tool carries: it reads public
// data from the open web and changes nothing. NewTool's defaults
// (destructive, not idempotent) are wrong for these tools.
func readOnly(title string) mcpgo.ToolOption {
	t, f := true, false
	return mcpgo.WithToolAnnotation(mcpgo.ToolAnnotation{
		Title:           title,
		ReadOnlyHint:    &t,
		DestructiveHint: &f,
		IdempotentHint:  &t,
		OpenWorldHint:   &t,
	})
}

// Argument groups several tools share. Bounds that differ per platform
// (limit, offset of a search) are in each tool's own input struct.

// datesIn are a search's date bounds.
type datesIn struct {
	DateFrom string `json:"date_from,omitempty" jsonschema_description:"Earliest date, YYYY-MM-DD."`
	DateTo   string `json:"date_to,omitempty" jsonschema_description:"Latest date, YYYY-MM-DD."`
}

// textPageIn is the page of full text a fetch tool returns. The connector's
// max_text_chars may cap max_chars lower: the text then ends earlier and
// next_offset says where to go on.
type textPageIn struct {
	Offset   int `json:"offset,omitempty" jsonschema_description:"Character offset in the full text to start from (use next_offset of the previous call)." jsonschema_extras:"minimum=0,maximum=1073741824,default=0"`
	MaxChars int `json:"max_chars,omitempty" jsonschema_description:"At most this many characters of text; the connector may cap it lower (max_text_chars)." jsonschema_extras:"minimum=200,maximum=100000,default=8000"`
}

// chars is max_chars under the connector's cap.
func (c *connector) chars(p textPageIn) int {
	if m := c.settings().maxTextChars; m > 0 && p.MaxChars > m {
		return m
	}
	return p.MaxChars
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

func (h *health) record(platform string, a *subrequest.Answer, failure string, retry int, now time.Time) {
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
	if a != nil && a.FromCache() {
		p.CacheHits++
	}
	switch {
	case failure == "":
		p.State, p.LastOKAt, p.LastError, p.RetryAfterS = "ok", now, "", 0
	case a != nil && (a.OverBudget() || a.Status == http.StatusTooManyRequests):
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
func (c *connector) call(ctx context.Context, platform string, req adapters.Request) (*subrequest.Answer, *mcpgo.CallToolResult) {
	p, _ := platforms.Get(platform)
	o, ok := subrequest.OriginFrom(ctx)
	if !ok {
		return nil, mcpgo.NewToolResultError("internal error: the tool call has no Caddy server to send its platform request to")
	}
	a, err := subrequest.Do(ctx, o, platform, req)
	now := time.Now()
	if err != nil {
		msg := fmt.Sprintf("%s could not be asked: %v.", p.Name, err)
		switch {
		case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
			msg = fmt.Sprintf("The request to %s was cancelled before it answered (%v).", p.Name, err)
		case errors.Is(err, subrequest.ErrAnswerTooLarge):
			msg = fmt.Sprintf("%s answered more than the %d MiB BesluitBron holds for one call; nothing of it is used. Ask for less (a smaller limit, a narrower search).", p.Name, subrequest.MaxAnswerBytes>>20)
		}
		c.health.record(platform, a, msg, 0, now)
		return nil, mcpgo.NewToolResultError(msg)
	}
	if a.Status >= 200 && a.Status < 300 {
		c.health.record(platform, a, "", 0, now)
		return a, nil
	}
	retry, hasRetry := subrequest.RetryAfter(a.Header, now)
	detail := bodyMessage(a.Body)
	var msg string
	switch {
	case a.OverBudget():
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
	return nil, mcpgo.NewToolResultError(msg)
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

// resultMeta opens every tool result: which platform answered, whether
// all answers it was built from came from BesluitBron's cache, and how
// long they waited for the platform's budget.
type resultMeta struct {
	Platform    string `json:"platform" jsonschema_description:"Platform key the result comes from (besluitbron for the connector's own)."`
	FromCache   bool   `json:"from_cache" jsonschema_description:"Every platform answer behind this result came from BesluitBron's cache."`
	QueueWaitMS int64  `json:"queue_wait_ms" jsonschema_description:"Milliseconds the platform calls waited for the platform's budget."`
	CacheStatus string `json:"cache_status,omitempty" jsonschema_description:"The Cache-Status of each platform answer, comma-separated."`
}

// meta says, for the answers a result was built from, whether they all
// came from the cache and how long they waited for budget.
func meta(platform string, as ...*subrequest.Answer) resultMeta {
	m := resultMeta{Platform: platform, FromCache: len(as) > 0}
	var statuses []string
	for _, a := range as {
		if a == nil {
			continue
		}
		m.FromCache = m.FromCache && a.FromCache()
		m.QueueWaitMS += a.QueueWaitMS
		if a.Cache != "" {
			statuses = append(statuses, a.Cache)
		}
	}
	m.CacheStatus = strings.Join(statuses, ", ")
	return m
}

// pageOut is a search tool's page of hits.
type pageOut struct {
	resultMeta
	Total       int            `json:"total" jsonschema_description:"Hits in all (see total_is_approximate)."`
	TotalApprox bool           `json:"total_is_approximate,omitempty" jsonschema_description:"total is the platform's estimate."`
	HasMore     bool           `json:"has_more" jsonschema_description:"More hits follow this page."`
	NextOffset  int            `json:"next_offset,omitempty" jsonschema_description:"offset of the next page, when has_more."`
	Results     []adapters.Hit `json:"results" jsonschema_description:"The hits of this page."`
}

// page renders a search page that started at offset.
func page(platform string, p adapters.Page, offset int, as ...*subrequest.Answer) *pageOut {
	out := &pageOut{resultMeta: meta(platform, as...), Total: p.Total, TotalApprox: p.TotalApprox, HasMore: p.HasMore, Results: p.Hits}
	if out.Results == nil {
		out.Results = []adapters.Hit{}
	}
	if p.HasMore {
		out.NextOffset = offset + len(p.Hits)
	}
	return out
}

// docOut is a fetched document with one bounded page of its text.
type docOut struct {
	resultMeta
	Document   adapters.Document `json:"document" jsonschema_description:"The document's metadata."`
	Text       string            `json:"text" jsonschema_description:"One page of the document's text."`
	TextOffset int               `json:"text_offset" jsonschema_description:"Character offset of text in the full text."`
	TotalChars int               `json:"total_chars" jsonschema_description:"Characters of the full text."`
	NextOffset int               `json:"next_offset,omitempty" jsonschema_description:"offset to pass for the next page of text, when there is more."`
	Note       string            `json:"note,omitempty" jsonschema_description:"What to do for more text."`
}

// doc renders a fetched document with the page of text from offset.
func doc(platform string, d adapters.Document, offset, max int, as ...*subrequest.Answer) *docOut {
	tp := adapters.PageText(d.Text, offset, max)
	out := &docOut{resultMeta: meta(platform, as...), Document: d, Text: tp.Text, TextOffset: tp.Offset, TotalChars: tp.TotalChars}
	if tp.NextOffset > 0 {
		out.NextOffset = tp.NextOffset
		out.Note = fmt.Sprintf("Text cut at %d of %d characters; call again with offset=%d for more.", tp.NextOffset, tp.TotalChars, tp.NextOffset)
	}
	return out
}

// structured is a tool's result: the typed output as structuredContent,
// and the same JSON as text for clients that read only text.
func structured(out any) *mcpgo.CallToolResult {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return mcpgo.NewToolResultError("internal error rendering the result: " + err.Error())
	}
	return mcpgo.NewToolResultStructured(out, strings.TrimSpace(buf.String()))
}

// invalid is the isError result for arguments an adapter refused.
func invalid(err error) *mcpgo.CallToolResult {
	return mcpgo.NewToolResultError("Invalid arguments: " + err.Error() + ".")
}

// parseFailed is the isError result for an answer that did not parse.
func parseFailed(platform string, err error) *mcpgo.CallToolResult {
	p, _ := platforms.Get(platform)
	return mcpgo.NewToolResultError(fmt.Sprintf("%s answered, but not in the expected form: %v", p.Name, err))
}
