package app

import (
	"fmt"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/sharedstore"
)

// This file opens the store several instances share (a Redis URL in the
// store setting). The connection lives in the app's pool under its
// settings, so a reload with the same settings keeps it (and its health)
// and a reload with other settings opens a new one.

// loadStore takes a reference to the shared store the config names.
func (a *App) loadStore(ctx caddy.Context) error {
	switch a.Store {
	case "", "local":
		return nil
	}
	if !strings.Contains(a.Store, "://") {
		return fmt.Errorf("besluitbron: store %q: write local, or a Redis URL such as redis://127.0.0.1:6379/0", a.Store)
	}
	o := sharedstore.Options{
		URL:       a.Store,
		Prefix:    a.StorePrefix,
		Timeout:   time.Duration(a.StoreTimeout),
		Instances: a.Instances,
		Logger:    ctx.Logger().With(zap.String("store", "redis")),
	}
	key := fmt.Sprintf("besluitbron.store|%s|%s|%d|%s", o.URL, o.Prefix, o.Instances, o.Timeout)
	v, _, err := pool.LoadOrNew(key, func() (caddy.Destructor, error) {
		s, err := sharedstore.Open(o)
		if err != nil {
			return nil, err
		}
		return storeDestructor{s}, nil
	})
	if err != nil {
		return fmt.Errorf("besluitbron: store: %w", err)
	}
	a.shared, a.storeKey = v.(storeDestructor).Store, key
	return nil
}

type storeDestructor struct{ *sharedstore.Store }

func (d storeDestructor) Destruct() error { return d.Close() }

// Shared returns the store several instances share, or nil when this
// instance runs alone (store local). Handlers that find one keep their
// shared state in it and fall back to their local state while it is
// degraded (Healthy false).
func (a *App) Shared() *sharedstore.Store { return a.shared }
