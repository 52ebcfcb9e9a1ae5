package platformcache

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/besluitbron/besluitbron/caddymodule/emulator"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/internal/testtier"
)

// TestRealProcessKill9RestartAndDamage runs the repository's Caddy binary
// in front of the OBV emulator (served by this test process): an entry
// answered a moment before kill -9 is served after the restart with no
// request to the emulator; so after a graceful restart; a damaged file is
// set aside and Caddy starts anyway.
func TestRealProcessKill9RestartAndDamage(t *testing.T) {
	testtier.Full(t, "a Caddy binary built and run as a child process")
	emuPort := testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf("{\n\tadmin off\n}\n:%d {\n\tbesluitbron_emulator obv\n}\n", emuPort))
	emu := fmt.Sprintf("http://127.0.0.1:%d", emuPort)
	admin, port := testproc.FreePort(t), testproc.FreePort(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "Caddyfile")
	cfg := fmt.Sprintf(`{
	admin localhost:%d
}
:%d {
	route /platforms/obv/* {
		uri strip_prefix /platforms/obv
		platform_cache obv {
			list {
				path /api/sources
			}
			search {
				path /api/search
			}
		}
		reverse_proxy %s
	}
}
`, admin, port, emu)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	base := fmt.Sprintf("http://127.0.0.1:%d/platforms/obv", port)
	health := fmt.Sprintf("http://localhost:%d/config/", admin)
	start := func() *testproc.Process { return testproc.Start(t, cfgPath, dir, health) }

	p := start()
	resp, body := fetch(t, "GET", base+"/api/sources")
	if !strings.Contains(resp.Header.Get("Cache-Status"), "stored") {
		t.Fatalf("first answer not stored: %q", resp.Header.Get("Cache-Status"))
	}
	resp, _ = fetch(t, "GET", base+"/api/search?query=begroting&organization=soest")
	if !strings.Contains(resp.Header.Get("Cache-Status"), "stored") {
		t.Fatalf("search not stored: %q", resp.Header.Get("Cache-Status"))
	}
	p.Kill() // kill -9 right after the answers

	p = start()
	resp, body2 := fetch(t, "GET", base+"/api/sources")
	if body2 != body || !strings.HasPrefix(resp.Header.Get("Cache-Status"), "BesluitBron; hit") {
		t.Fatalf("after kill -9: %q %q", resp.Header.Get("Cache-Status"), body2)
	}
	if n := testproc.EmulatorRequests(t, emu); n != 2 {
		t.Fatalf("emulator asked %d times, want 2", n)
	}
	if err := p.Stop(30 * time.Second); err != nil {
		t.Fatal(err)
	}

	p = start()
	resp, _ = fetch(t, "GET", base+"/api/search?organization=soest&query=begroting")
	if n := testproc.EmulatorRequests(t, emu); !strings.HasPrefix(resp.Header.Get("Cache-Status"), "BesluitBron; hit") || n != 2 {
		t.Fatalf("after graceful restart: %q, emulator asked %d times", resp.Header.Get("Cache-Status"), n)
	}
	p.Kill()

	file := filepath.Join(dir, "data", "caddy", "besluitbron", "cache", "obv.db")
	if err := os.WriteFile(file, []byte(strings.Repeat("garbage", 5000)), 0o600); err != nil {
		t.Fatal(err)
	}
	p = start()
	resp, _ = fetch(t, "GET", base+"/api/sources")
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Cache-Status"), "fwd=miss") {
		t.Fatalf("after damage: %d %q", resp.StatusCode, resp.Header.Get("Cache-Status"))
	}
	if aside, _ := filepath.Glob(file + ".damaged-*"); len(aside) != 1 {
		t.Fatalf("damaged file not set aside: %v", aside)
	}
	if !strings.Contains(p.Log(), "durable cache file is damaged") {
		t.Fatalf("damage not logged:\n%s", p.Log())
	}
	p.Kill()
}
