package mcp

import (
	"context"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/subcall"
)

// A connector is the mcpkit.Env of its platforms' prompts and
// completions; a tool call runs on a toolCallEnv around it.
var _ mcpkit.Env = (*connector)(nil)

// Offers tells whether the connector offers platform key's tools.
func (c *connector) Offers(key string) bool { return c.offers(key) }

// Offered are the keys of the platforms the connector offers.
func (c *connector) Offered() []string { return append([]string(nil), c.settings().platforms...) }

// Now is the connector's clock.
func (c *connector) Now() time.Time { return c.now() }

// Lists is the connector's memo of lists.
func (c *connector) Lists() *adapters.Memo { return &c.lists }

// Setting is the configuration's setting of platform key.
func (c *connector) Setting(key string) any { return c.settings().adapterSettings().Of(key) }

func (c *connector) Replica(key string) any { return c.settings().replicas[key] }

// Getter runs requests on platform key's route for ctx.
func (c *connector) Getter(ctx context.Context, key string) func(adapters.Request) ([]byte, error) {
	return c.calls(ctx, key).get
}

// Memoised is memoised (completions.go).
func (c *connector) Memoised(ctx context.Context, memoKey string, load func() (any, error)) (any, bool) {
	return c.memoised(ctx, memoKey, load)
}

// Call runs one request on platform key's route for a tool.
func (c *connector) Call(ctx context.Context, key string, r adapters.Request) ([]byte, *mcpgo.CallToolResult) {
	a, fail := c.call(ctx, key, r)
	if fail != nil {
		return nil, fail
	}
	return a.Body, nil
}

// Failed is the isError result for an error of a request run through
// Getter.
func (c *connector) Failed(key string, err error) *mcpgo.CallToolResult {
	if adapters.CallFailed(err) {
		return mcpgo.NewToolResultError(failureText(key, err))
	}
	return mcpkit.ParseFailed(key, err)
}

// FetchDocument reads a document through platform key's surface.
func (c *connector) FetchDocument(ctx context.Context, key, id, kind, notFound string) (adapters.Document, *mcpgo.CallToolResult) {
	d, _, fail := c.fetchDocument(ctx, key, id, kind, notFound)
	return d, fail
}

// Chars is max_chars under the connector's cap.
func (c *connector) Chars(maxChars int) int { return c.chars(mcpkit.TextPageIn{MaxChars: maxChars}) }

// toolCallEnv is the mcpkit.Env of one tool call: the connector, keeping
// every platform answer the call gets, for its result's Meta.
type toolCallEnv struct {
	*connector
	mu      sync.Mutex
	getters []*calls
	answers []*subcall.Answer
}

// Getter runs requests on platform key's route, and keeps their answers.
func (t *toolCallEnv) Getter(ctx context.Context, key string) func(adapters.Request) ([]byte, error) {
	k := t.connector.calls(ctx, key)
	t.mu.Lock()
	t.getters = append(t.getters, k)
	t.mu.Unlock()
	return k.get
}

// Call runs one request and keeps its answer.
func (t *toolCallEnv) Call(ctx context.Context, key string, r adapters.Request) ([]byte, *mcpgo.CallToolResult) {
	a, fail := t.connector.call(ctx, key, r)
	if fail != nil {
		return nil, fail
	}
	t.keep(a)
	return a.Body, nil
}

// FetchDocument reads a document and keeps the answers it took.
func (t *toolCallEnv) FetchDocument(ctx context.Context, key, id, kind, notFound string) (adapters.Document, *mcpgo.CallToolResult) {
	d, answers, fail := t.connector.fetchDocument(ctx, key, id, kind, notFound)
	t.keep(answers...)
	return d, fail
}

// surfaceEnv is the Env a platform's surface is given for this call (a
// surface's requests name their platform); their answers are kept.
func (t *toolCallEnv) surfaceEnv(ctx context.Context) adapters.Env {
	k := t.connector.calls(ctx, "")
	t.mu.Lock()
	t.getters = append(t.getters, k)
	t.mu.Unlock()
	return adapters.Env{Get: k.getFrom, Memo: &t.lists, Now: t.now()}
}

func (t *toolCallEnv) keep(as ...*subcall.Answer) {
	t.mu.Lock()
	t.answers = append(t.answers, as...)
	t.mu.Unlock()
}

// kept are the platform answers the call got, in order.
func (t *toolCallEnv) kept() []*subcall.Answer {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]*subcall.Answer(nil), t.answers...)
	for _, k := range t.getters {
		out = append(out, k.answers...)
	}
	return out
}

// fillMeta gives a result the tool left without its Meta the meta of the
// answers behind it. A call the result memo renders (memoRenderOf) gets
// slots instead of the fields that move with the clock (resultmemo.go).
func (t *toolCallEnv) fillMeta(ctx context.Context, platform string, out any) {
	m, ok := out.(interface{ ResultMeta() *mcpkit.Meta })
	if !ok {
		return
	}
	r := memoRenderOf(ctx)
	if m.ResultMeta().Platform != "" {
		if r != nil {
			r.opaque = true // the tool's own Meta: not the memo's to fill
		}
		return
	}
	as := t.kept()
	*m.ResultMeta() = meta(t.now(), platform, as...)
	if r != nil {
		r.slot(m.ResultMeta(), as)
	}
}

// FailureText says what a failed request on platform key's route means.
func (c *connector) FailureText(key string, err error) string { return failureText(key, err) }

// ParsePage parses a search page through the connector's parse cache.
func (c *connector) ParsePage(key, parser string, body []byte, parse func([]byte) (adapters.Page, error)) (adapters.Page, error) {
	return parsePage(key, parser, body, parse)
}

// Untracked is the connector itself: it keeps no answers.
func (c *connector) Untracked() mcpkit.Env { return c }
