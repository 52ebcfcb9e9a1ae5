// Package testcaddy runs Caddy in the test process from a Caddyfile.
// Real child processes of the repository's own binaries, and the free
// loopback ports both kinds of test listen on, are internal/testproc's:
// a test package that needs only those links without Caddy.
package testcaddy

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	// The modules the tests' Caddyfiles use, not all of the standard
	// set: the rest (templates, tracing, the ACME server, FastCGI…)
	// doubled the link time of every test binary that runs Caddy, and
	// no test config names them. The real binary (cmd/caddy) has the
	// standard set, and its tests run it.
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/encode/gzip"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/encode/zstd"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/headers"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/logging"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/requestbody"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/rewrite"
	_ "github.com/caddyserver/caddy/v2/modules/logging"
	_ "github.com/caddyserver/caddy/v2/modules/metrics"
)

// Adapt turns a Caddyfile into Caddy's JSON config.
func Adapt(t testing.TB, caddyfileText string) []byte {
	t.Helper()
	adapter := caddyfile.Adapter{ServerType: httpServerType()}
	cfg, warnings, err := adapter.Adapt([]byte(caddyfileText), map[string]any{"filename": "Caddyfile"})
	if err != nil {
		t.Fatalf("adapting Caddyfile: %v\n%s", err, caddyfileText)
	}
	for _, w := range warnings {
		t.Logf("Caddyfile warning: %s", w.String())
	}
	return cfg
}

// Load runs the Caddyfile in this process, with Caddy's data and config
// directories in a fresh temporary directory, and stops it when the test
// ends. Only one config runs per process at a time, so tests that call Load
// must not run in parallel with each other.
func Load(t testing.TB, caddyfileText string) {
	t.Helper()
	LoadInDataDir(t, caddyfileText, t.TempDir())
}

// LoadInDataDir is Load with a given XDG data directory, so a test can
// stop Caddy and load it again over the same durable state.
func LoadInDataDir(t testing.TB, caddyfileText, xdgDir string) {
	t.Helper()
	t.Setenv("XDG_DATA_HOME", filepath.Join(xdgDir, "data"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(xdgDir, "config"))
	cfg := WithoutPersistence(t, Adapt(t, caddyfileText))
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatalf("loading config: %v", err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
}

// WithoutPersistence turns off Caddy's autosave of the running config:
// Caddy computes that file's path from the environment once, at process
// start, so a test's XDG directories would not contain it.
func WithoutPersistence(t testing.TB, cfg []byte) []byte {
	t.Helper()
	var c map[string]any
	if err := json.Unmarshal(cfg, &c); err != nil {
		t.Fatalf("config is not JSON: %v", err)
	}
	admin, _ := c["admin"].(map[string]any)
	if admin == nil {
		admin = map[string]any{}
		c["admin"] = admin
	}
	conf, _ := admin["config"].(map[string]any)
	if conf == nil {
		conf = map[string]any{}
		admin["config"] = conf
	}
	conf["persist"] = false
	out, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Reload loads a new config over the running one, as `caddy reload` does,
// and returns once the old config's HTTP listeners, and its admin
// endpoint's where the new config keeps the address, are closed
// (oldlisteners.go): a new connection then reaches the new config.
func Reload(t testing.TB, caddyfileText string) {
	t.Helper()
	cfg := WithoutPersistence(t, Adapt(t, caddyfileText))
	old := runningListenerSockets(adminPort(cfg)...)
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatalf("reloading config: %v", err)
	}
	waitClosed(t, old)
}
