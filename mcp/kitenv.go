package mcp

import (
	"context"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/mcpkit"
)

// A connector is the mcpkit.Env of its platforms' prompts and completions.
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

// Getter runs requests on platform key's route for ctx.
func (c *connector) Getter(ctx context.Context, key string) func(adapters.Request) ([]byte, error) {
	return c.calls(ctx, key).get
}

// Memoised is memoised (completions.go).
func (c *connector) Memoised(ctx context.Context, memoKey string, load func() (any, error)) (any, bool) {
	return c.memoised(ctx, memoKey, load)
}
