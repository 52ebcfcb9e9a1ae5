package app

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/besluitbron/besluitbron/internal/redistest"
)

func TestLocalStoreHasNoSharedStore(t *testing.T) {
	a := &App{}
	if err := provision(t, a); err != nil {
		t.Fatal(err)
	}
	defer a.Cleanup()
	if a.Shared() != nil {
		t.Fatal("store local opened a shared store")
	}
}

func TestRedisStoreIsSharedAcrossReloads(t *testing.T) {
	prefix := redistest.Prefix(t)
	old := &App{Store: redistest.URL(), StorePrefix: prefix, Instances: 3}
	if err := provision(t, old); err != nil {
		t.Fatal(err)
	}
	s := old.Shared()
	if s == nil || !s.Healthy() || s.Instances() != 3 {
		t.Fatalf("shared store %v", s)
	}
	next := &App{Store: redistest.URL(), StorePrefix: prefix, Instances: 3}
	if err := provision(t, next); err != nil {
		t.Fatal(err)
	}
	if next.Shared() != s {
		t.Fatal("a reload with the same settings opened a second connection")
	}
	_ = old.Cleanup()
	if !next.Shared().Healthy() {
		t.Fatal("the old config's cleanup closed the store the new one uses")
	}
	_ = next.Cleanup()
	if next.Shared() != nil {
		t.Fatal("cleanup kept the store")
	}
}

func TestCaddyfileStoreOptions(t *testing.T) {
	d := caddyfile.NewTestDispenser(`besluitbron {
		store redis://127.0.0.1:6379/2
		instances 3
		store_timeout 200ms
		store_prefix bbprod
	}`)
	a := new(App)
	if err := a.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	if a.Store != "redis://127.0.0.1:6379/2" || a.Instances != 3 || a.StoreTimeout != caddy.Duration(200*time.Millisecond) || a.StorePrefix != "bbprod" {
		t.Fatalf("%+v", a)
	}
	// An unset {$BESLUITBRON_REDIS} leaves store without a value: local.
	d = caddyfile.NewTestDispenser("besluitbron {\n store\n instances\n store_timeout\n}")
	a = new(App)
	if err := a.UnmarshalCaddyfile(d); err != nil || a.Store != "" || a.Instances != 0 || a.StoreTimeout != 0 {
		t.Fatalf("empty store: %v %+v", err, a)
	}
	for _, bad := range []string{"instances 0", "instances x", "store_timeout -1s", "store_timeout 1s 2s", "store a b"} {
		d = caddyfile.NewTestDispenser("besluitbron {\n " + bad + "\n}")
		if err := new(App).UnmarshalCaddyfile(d); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestStoreAdminShowsTheMode(t *testing.T) {
	get := func() map[string]any {
		t.Helper()
		rec := httptest.NewRecorder()
		if err := serveStoreAdmin(rec, httptest.NewRequest(http.MethodGet, StoreAdminPath, nil)); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	p := redistest.NewProxy(t)
	a := &App{Store: p.URL(), StorePrefix: redistest.Prefix(t), Instances: 2, StoreTimeout: caddy.Duration(50 * time.Millisecond)}
	if err := provision(t, a); err != nil {
		t.Fatal(err)
	}
	defer a.Cleanup()
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	if m := get(); m["mode"] != "shared" || m["instances"] != float64(2) {
		t.Fatalf("store admin = %v", m)
	}
	p.Cut()
	_ = a.Shared().Publish(context.Background(), "x", "y") // notices the cut
	if m := get(); m["mode"] != "degraded" || m["degradations"] != float64(1) {
		t.Fatalf("after a cut: %v", m)
	}
	rec := httptest.NewRecorder()
	if err := serveStoreAdmin(rec, httptest.NewRequest(http.MethodPost, StoreAdminPath, nil)); err == nil {
		t.Fatal("POST accepted")
	}
}
