package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/registry"
	"github.com/besluitbron/besluitbron/cachestatus"
	"github.com/besluitbron/besluitbron/caddymodule/subrequest"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/subcall"
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

// chars is max_chars under the connector's cap.
func (c *connector) chars(p mcpkit.TextPageIn) int {
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

func (h *health) record(platform string, a *subcall.Answer, failure string, retry int, now time.Time) {
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
func (c *connector) call(ctx context.Context, platform string, req adapters.Request) (*subcall.Answer, *mcpgo.CallToolResult) {
	a, err := c.ask(ctx, platform, req)
	if err != nil {
		return nil, mcpgo.NewToolResultError(failureText(platform, err))
	}
	return a, nil
}

// ask runs one sub-request for a tool: the answer when the route answered
// 2xx, else an error (an *adapters.RouteError when the route answered),
// kept in the connector's health either way.
func (c *connector) ask(ctx context.Context, platform string, req adapters.Request) (*subcall.Answer, error) {
	o, ok := subrequest.OriginFrom(ctx)
	if !ok {
		return nil, errNoOrigin
	}
	a, err := subrequest.Do(ctx, o, platform, req)
	if so := storedOnlyOf(ctx); so != nil && a != nil {
		// A fast-path call (fastpath.go): the cache's 504 for an answer
		// it does not hold is no platform failure, and is kept out of
		// the health; the call goes to mcp-go, which asks again.
		if a.Status == http.StatusGatewayTimeout && cachestatus.Detail(a.Cache) == cachestatus.DetailNotStored {
			so.missed.Store(true)
			return nil, errNotStored
		}
		if a.Cache == "" {
			so.uncached.Store(true)
		}
	}
	if re := c.observe(platform, a, err); re != nil {
		return nil, re
	}
	if err != nil {
		return nil, err
	}
	if out := outcomeOf(ctx); out != nil {
		out.observe(a, c.now())
	}
	return a, nil
}

// observe keeps a platform call's outcome in the connector's health and
// returns the route's refusal, if it answered other than 2xx.
func (c *connector) observe(platform string, a *subcall.Answer, err error) *adapters.RouteError {
	now := c.now()
	if err != nil {
		c.health.record(platform, a, failureText(platform, err), 0, now)
		return nil
	}
	if re := a.Err(platform, now); re != nil {
		c.health.record(platform, a, failureText(platform, re), retryOf(re), now)
		return re
	}
	c.health.record(platform, a, "", 0, now)
	return nil
}

// errNotStored: a fast-path call's platform answer is not in the cache.
var errNotStored = errors.New("the platform's answer is not in BesluitBron's cache")

// errNoOrigin: a tool call reached the tools without the Caddy server
// that serves the platform routes.
var errNoOrigin = errors.New("the tool call has no Caddy server to send its platform request to")

// retryOf is the wait a tool result names for a route's refusal: its
// Retry-After, or a minute where a wait helps and none was sent.
func retryOf(re *adapters.RouteError) int {
	switch {
	case re.RetryKnown:
		return re.RetryAfter
	case re.Kind == adapters.KindOverBudget, re.Kind == adapters.KindRateLimited, re.Kind == adapters.KindUnavailable:
		return 60
	}
	return 0
}

// failureText says what a failed platform call means to a model, and when
// to try again.
func failureText(platform string, err error) string {
	p, _ := platforms.Get(platform)
	var re *adapters.RouteError
	switch {
	case errors.Is(err, errNoOrigin):
		return "internal error: " + err.Error()
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("The request to %s was cancelled before it answered (%v).", p.Name, err)
	case errors.Is(err, subcall.ErrAnswerTooLarge):
		return fmt.Sprintf("%s answered more than the %d MiB BesluitBron holds for one call; nothing of it is used. Ask for less (a smaller limit, a narrower search).", p.Name, subcall.MaxAnswerBytes>>20)
	case !errors.As(err, &re):
		return fmt.Sprintf("%s could not be asked: %v.", p.Name, err)
	}
	retry := retryOf(re)
	var msg string
	switch re.Kind {
	case adapters.KindOverBudget:
		// BesluitBron's own budget turned the call away (not the
		// platform): the wait is this session's own, from Retry-After.
		msg = fmt.Sprintf("%s is over budget, retry in %d s: BesluitBron's request budget for %s has no room for this call now (HTTP %d); other platforms keep answering.", p.Name, retry, p.Name, re.Status)
	case adapters.KindRateLimited:
		msg = fmt.Sprintf("%s is over budget, retry in %d s: the platform itself answered HTTP 429; other platforms keep answering.", p.Name, retry)
	case adapters.KindNotFound:
		msg = fmt.Sprintf("Not found on %s (HTTP %d): check the id or take one from a search result.", p.Name, re.Status)
	case adapters.KindLoop:
		msg = "internal error: the platform route led back to an MCP connector"
	case adapters.KindUnavailable:
		msg = fmt.Sprintf("%s is unreachable or failing (HTTP %d). Try again in about %d seconds; other platforms keep answering.", p.Name, re.Status, retry)
	case adapters.KindRefused:
		msg = fmt.Sprintf("%s refused the request (HTTP %d)", p.Name, re.Status)
	}
	if re.Detail != "" {
		msg = strings.TrimSuffix(msg, ".") + ". The platform said: " + re.Detail
	}
	return msg
}

// meta says, for the answers a result was built from, whether they all
// came from the cache and how long they waited for budget. now is the
// connector's clock (fetched_at is now less the oldest answer's Age).
func meta(now time.Time, platform string, as ...*subcall.Answer) mcpkit.Meta {
	m := mcpkit.Meta{Platform: platform, FromCache: len(as) > 0}
	var statuses []string
	var fetched time.Time
	for _, a := range as {
		if a == nil {
			continue
		}
		if at := a.FetchedAt(now); fetched.IsZero() || at.Before(fetched) {
			fetched = at
		}
		m.FromCache = m.FromCache && a.FromCache()
		m.QueueWaitMS += a.QueueWaitMS
		if a.Cache != "" {
			statuses = append(statuses, a.Cache)
		}
	}
	m.CacheStatus = strings.Join(statuses, ", ")
	if !fetched.IsZero() {
		m.FetchedAt = fetched.UTC().Format(time.RFC3339)
	}
	return m
}

// structured is a tool's result: the typed output as structuredContent,
// and the same JSON as text for clients that read only text.
// It is encoded once for both (encode.go); a result that names documents
// also carries a resource_link per document.
func structured(out any) *mcpgo.CallToolResult {
	res := structuredResult(out)
	if l, ok := out.(resourceLinker); ok && !res.IsError {
		for _, link := range l.ResourceLinks() {
			res.Content = append(res.Content, link)
		}
	}
	return res
}

// platformSurfaces give hits and documents their resource URIs
// (Surface.Link) and read the references a prompt names
// (Surface.Recognize): both depend on the platform alone, never on the
// operator's settings. Built at first use, once every platform has
// registered (in the inits of the product's list, which may run after
// this package's).
var platformSurfaces = sync.OnceValue(func() map[string]adapters.Surface {
	return registry.Surfaces(registry.Settings{})
})

// resourceLinker is a result that names documents: each becomes a
// resource_link content item beside the text, which a client can attach
// to a conversation or read with resources/read.
type resourceLinker interface{ ResourceLinks() []mcpgo.ResourceLink }
