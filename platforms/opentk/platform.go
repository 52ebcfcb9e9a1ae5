package opentk

import (
	"context"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
)

// provider is the platform as it registers itself (platforms.Provider).
type provider struct{}

func init() { platforms.Register(provider{}) }

// Platform is the platform's tableRow of the table.
func (provider) Platform() platforms.Platform { return tableRow }

// searchPaths are the searches, which run long.
var searchPaths = []string{"/search"}

var tableRow = platforms.Platform{
	Key: platforms.OpenTK, Order: 40, Authority: 4, Name: "OpenTK",
	// Two mirrors of one service, tried in this order.
	BaseURLs: []string{"https://opentk.nl", "https://berthub.eu/tkconv"},
	// One volunteer's server (berthub.eu) with no published limit:
	// 2 requests a second for all our users together, so requests
	// that skip the cache (no-store, Range, a new parameter) never
	// reach it faster, whoever sends them. The per-host search cap
	// below bounds its most expensive work besides.
	Budget: &platforms.Budget{Capacity: 2, Window: time.Second},
	// tkconv cuts searches short when more than 5 run at once; 2 per
	// host leaves room for its other users. A search takes seconds,
	// so a waiting one gets longer than the usual 15s.
	Search: platforms.Search{Paths: searchPaths, MaxPerHost: 2, QueueWait: 20 * time.Second},
	Cache: map[string]platforms.CacheKind{
		platforms.KindList:     {Paths: []string{"/commissie/*", "/commissies.html", "/kamerleden.html", "/personphoto/*"}, TTL: 24 * time.Hour},
		platforms.KindDocument: {Paths: []string{"/getraw/*", "/getdoc/*", "/document.html", "/verslag.html"}},
		platforms.KindSearch:   {Paths: []string{"/search", "/search/index.xml", "/ksds"}, TTL: 15 * time.Minute},
	},
}

// Surface is the platform's surface; it takes no settings.
func (provider) Surface(adapters.Config) adapters.Surface { return Surface() }

// Decorate gives a Tweede Kamer document OpenTK's text of the same number
// where the configuration offers OpenTK too (the Gegevensmagazijn holds
// only the file); without it, or when OpenTK fails, the document keeps
// its metadata and link.
func (provider) Decorate(key string, s adapters.Surface, cfg adapters.Config) adapters.Surface {
	if key != platforms.TK || !cfg.Offers(platforms.OpenTK) {
		return s
	}
	withText := func(ctx context.Context, env adapters.Env, d adapters.Document, err error) (adapters.Document, error) {
		if err != nil {
			return d, err
		}
		if od, err := Surface().Fetch(ctx, env, d.ID, Document); err == nil {
			d.Text = od.Text
		}
		return d, nil
	}
	fetch := s.Fetch
	s.Fetch = func(ctx context.Context, env adapters.Env, id, kind string) (adapters.Document, error) {
		d, err := fetch(ctx, env, id, kind)
		return withText(ctx, env, d, err)
	}
	kinds := make([]adapters.ResourceKind, len(s.Resources))
	for i, k := range s.Resources {
		read := k.Read
		k.Read = func(ctx context.Context, env adapters.Env, vars map[string]string) (adapters.Document, error) {
			d, err := read(ctx, env, vars)
			return withText(ctx, env, d, err)
		}
		kinds[i] = k
	}
	s.Resources = kinds
	return s
}
