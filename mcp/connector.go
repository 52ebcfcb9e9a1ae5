package mcp

import (
	"context"
	"strings"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/registry"
	"github.com/besluitbron/besluitbron/caddymodule/app"
	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/caddymodule/version"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

// settings are the parts of a connector's config its tools read; a reload
// swaps them in place.
type settings struct {
	platforms    []string
	maxTextChars int
	// searchDeadline is search_all's deadline; 0: fanout.DefaultDeadline.
	searchDeadline time.Duration
	// values are the platforms' settings, as each read its options
	// (the app's with this connector's laid over them).
	values map[string]any
	// replicas are what the app keeps of platforms itself (a replica of
	// a feed, which answers words), by key.
	replicas map[string]any
	// linkBases returns the base URLs a link into the platform may point
	// into (the config's besluitbron app: app.LinkBaseURLs); nil refuses
	// every link.
	linkBases func(key string) []string
	// loadStatus are the app's keepers of the load status of the
	// platforms that publish one, by key; none where this config does not
	// refresh it.
	loadStatus map[string]*app.LoadStatusKeeper
	// surfaces are the platforms' surfaces under these settings, which
	// the fetch tools read documents through (fetchDocument).
	surfaces map[string]adapters.Surface
}

// seen records the server and Host of a request the connector served,
// through which the load status keepers ask their platforms (one
// route caller serves them all).
func (s *settings) seen(srv *caddyhttp.Server, host string) {
	for _, k := range s.loadStatus {
		k.Seen(srv, host)
		return
	}
}

// linkBasesOf returns the base URLs links into the platform are checked
// against in the current config.
func (s *settings) linkBasesOf(key string) []string {
	if s.linkBases == nil {
		return nil
	}
	return s.linkBases(key)
}

// connector is one named MCP endpoint's state, shared across config
// reloads through the connectors UsagePool: the mcp-go server objects (and
// so their sessions), the health the tools observed, and memoised lists.
type connector struct {
	name   string
	ids    issuedIDs // this connector's session ids
	mcp    *server.MCPServer
	http   *server.StreamableHTTPServer
	cfg    atomic.Pointer[settings]
	health health
	lists  adapters.Memo
	search atomic.Pointer[engineSlot] // search_all's engine for the current settings
	fast   *fastPath                  // cached tools/call answered beside mcp-go (fastpath.go)
	// clock is the clock of the tools (health, list memos, snapshots,
	// fetched_at): time.Now when nil, or a test's own (setClock).
	clock atomic.Pointer[func() time.Time]
}

// now is the connector's clock.
func (c *connector) now() time.Time {
	if p := c.clock.Load(); p != nil {
		return (*p)()
	}
	return time.Now()
}

// setClock sets the connector's clock (tests; safe while requests run).
func (c *connector) setClock(now func() time.Time) { c.clock.Store(&now) }

// newConnector builds the mcp-go server and its Streamable HTTP transport.
// Localhost protection is off: the handler checks Host and Origin itself
// (Handler.checkHostOrigin), since Caddy does the host routing.
func newConnector(name string, idle time.Duration, reg *session.Registry) *connector {
	c := &connector{name: name, ids: issuedIDs{reg: reg, connector: name, ttl: idle}}
	c.fast = newFastPath(c, "besluitbron-"+name, version.Current(), idle)
	// The fast path runs tool handlers beside mcp-go, without mcp-go's
	// hooks: hooks on tool calls (AddBeforeCallTool, AddAfterCallTool,
	// AddOnError) would not see its calls, so none are set.
	hooks := &server.Hooks{}
	hooks.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) { c.fast.forget(s.SessionID()) })
	hooks.AddAfterReadResource(func(ctx context.Context, _ any, _ *mcpgo.ReadResourceRequest, r *mcpgo.ReadResourceResult) {
		if o := outcomeOf(ctx); o != nil && r != nil {
			o.hints(r)
		}
	})
	c.mcp = server.NewMCPServer("besluitbron-"+name, version.Current(),
		server.WithToolCapabilities(true),
		server.WithResourceCapabilities(false, true),
		server.WithResourceRecovery(),
		server.WithRecovery(),
		server.WithInstructions(instructions()),
		// Lists and reads are the same for every client: public. Lists
		// change with a reload, so they are revalidated (0); a read's own
		// lifetime is the cache's (heldOutcome.hints).
		server.WithCacheHints(0, mcpgo.CacheScopePublic),
		server.WithHooks(hooks),
		withPromptsAndCompletions(c),
	)
	c.http = server.NewStreamableHTTPServer(c.mcp,
		server.WithSessionIdManagerResolver(idResolver{c.ids}),
		server.WithDisableLocalhostProtection(true),
		server.WithSessionIdleTTL(idle),
		server.WithHeartbeatInterval(0),
	)
	return c
}

// instructions is the text a client gives its model first: what
// BesluitBron answers from, each registered platform in its own words
// (mcpkit.Instructor), in table order, and how the tools behave.
func instructions() string {
	var parts []string
	for _, in := range platforms.Each[mcpkit.Instructor]() {
		parts = append(parts, in.Instruction())
	}
	if n := len(parts); n > 1 {
		parts[n-2] += " and " + parts[n-1]
		parts = parts[:n-1]
	}
	return "BesluitBron answers questions about Dutch public decision-making from public platforms: " + strings.Join(parts, ", ") + ". " + instructionsTail
}

const instructionsTail = `Laws, regulations and rulings name what they rest on as references (platform and id) the matching fetch tool reads as given. Search tools return compact titles, dates, ids, snippets and links; fetch tools return full text in bounded pages. Every result says whether it came from BesluitBron's cache (from_cache) and how long it waited for the platform's budget (queue_wait_ms). Repeating a question is cheap; full text and searches over all sources are the slow paths.`

// configure applies a (re)loaded config: platforms, limits, tools.
func (c *connector) configure(s settings) {
	s.surfaces = registry.Surfaces(s.adapterSettings())
	c.cfg.Store(&s)
	tools := c.toolsFor(s.platforms)
	c.mcp.SetTools(tools...)
	c.fast.setTools(tools)
	c.mcp.SetResourceTemplates(c.resourcesFor(&s)...)
	c.mcp.SetResources(c.listsFor(&s)...)
	c.mcp.SetPrompts(c.promptsFor(s.platforms)...)
}

func (c *connector) settings() *settings { return c.cfg.Load() }

func (c *connector) offers(key string) bool {
	for _, k := range c.settings().platforms {
		if k == key {
			return true
		}
	}
	return false
}

// Destruct shuts the transport down (its idle sweeper and sessions) when
// the last config using this connector is unloaded.
func (c *connector) Destruct() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.http.Shutdown(ctx)
}
