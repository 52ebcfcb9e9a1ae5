package version_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/caddymodule/version"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/internal/testtier"
)

// TestTwoBuildsTwoStamps builds the repository's Caddy twice, stamped as
// ./xcaddy.sh stamps it (-ldflags -X version.Override), and runs each as a
// real process over one data directory in front of the OBV emulator:
//
//   - build A stores an answer; after kill -9 the same binary serves it
//     again with no request to the platform (a restart keeps the cache);
//   - build B, of "other source", finds the entry still on disk at start
//     (nothing is purged), drops it when it is asked for and asks the
//     platform again;
//   - each build's admin status names its own stamp.
func TestTwoBuildsTwoStamps(t *testing.T) {
	testtier.Full(t, "a Caddy binary built and run as a child process")
	const stampA, stampB = "0.1.0-dev+gaaaaaaaaaaaa", "0.1.0-dev+gaaaaaaaaaaaa.dirty.bbbbbbbbbbbb"
	bins := testproc.StampedBinaries(t, stampA, stampB) // the two links at the same time
	binA, binB := bins[0], bins[1]

	// The emulator runs in a child process of the offline build (shared
	// with the other packages' tests of this go test run), so this test
	// links without Caddy's standard modules.
	emuPort, emuDir := testproc.FreePort(t), t.TempDir()
	emu := fmt.Sprintf("http://127.0.0.1:%d", emuPort)
	emuCfg := filepath.Join(emuDir, "Caddyfile")
	if err := os.WriteFile(emuCfg, fmt.Appendf(nil, "{\n\tadmin off\n}\n:%d {\n\tbesluitbron_emulator obv\n}\n", emuPort), 0o600); err != nil {
		t.Fatal(err)
	}
	testproc.StartBinary(t, testproc.OfflineBinary(t), emuCfg, emuDir, emu+"/_emulator/stats")
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
		}
		reverse_proxy %s
	}
}
`, admin, port, emu)
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	adminURL := fmt.Sprintf("http://localhost:%d", admin)
	sources := fmt.Sprintf("http://127.0.0.1:%d/platforms/obv/api/sources", port)
	start := func(bin string) *testproc.Process {
		return testproc.StartBinary(t, bin, cfgPath, dir, adminURL+"/config/")
	}

	// Build A, first run: the platform is asked once and the answer stored.
	p := start(binA)
	checkStatus(t, adminURL, stampA, 0, 0)
	status, body := get(t, sources)
	if !strings.Contains(status, "stored") || testproc.EmulatorRequests(t, emu) != 1 {
		t.Fatalf("build A's first answer: Cache-Status %q, emulator asked %d times", status, testproc.EmulatorRequests(t, emu))
	}
	p.Kill()

	// Build A again (kill -9, restart): served from the cache, 0 requests.
	p = start(binA)
	checkStatus(t, adminURL, stampA, 1, 0)
	status, body2 := get(t, sources)
	if !strings.HasPrefix(status, "BesluitBron; hit") || body2 != body {
		t.Fatalf("restart of build A: Cache-Status %q", status)
	}
	if n := testproc.EmulatorRequests(t, emu); n != 1 {
		t.Fatalf("restart of build A asked the platform: %d requests in all, want 1", n)
	}
	p.Kill()

	// Build B: the old entry is still there at start and dropped only when
	// asked for; the platform is asked again and B's answer stored.
	p = start(binB)
	checkStatus(t, adminURL, stampB, 1, 0)
	status, _ = get(t, sources)
	if !strings.Contains(status, "fwd=miss") || !strings.Contains(status, "stored") || !strings.Contains(status, "detail=other-version") {
		t.Fatalf("build B read A's entry: Cache-Status %q", status)
	}
	if n := testproc.EmulatorRequests(t, emu); n != 2 {
		t.Fatalf("build B: %d platform requests in all, want 2", n)
	}
	checkStatus(t, adminURL, stampB, 1, 1)
	status, _ = get(t, sources)
	if !strings.HasPrefix(status, "BesluitBron; hit") || testproc.EmulatorRequests(t, emu) != 2 {
		t.Fatalf("build B's own entry: Cache-Status %q, %d platform requests", status, testproc.EmulatorRequests(t, emu))
	}
	if err := p.Stop(30 * time.Second); err != nil {
		t.Fatal(err)
	}
}

// checkStatus asserts the admin status: the version route names stamp as a
// build stamp, and the OBV cache is stamped with it, holds diskEntries on
// disk and has dropped versionDrops entries of another version so far.
func checkStatus(t *testing.T, adminURL, stamp string, diskEntries, versionDrops int64) {
	t.Helper()
	var v version.Status
	getJSON(t, adminURL+version.AdminPath, &v)
	if v.Version != stamp || v.Source != version.FromStamp {
		t.Fatalf("admin version %+v, want %q from %q", v, stamp, version.FromStamp)
	}
	var c struct {
		Version      string `json:"version"`
		DiskEntries  int64  `json:"disk_entries"`
		VersionDrops int64  `json:"version_drops"`
	}
	getJSON(t, adminURL+"/besluitbron/cache/obv", &c)
	if c.Version != stamp || c.DiskEntries != diskEntries || c.VersionDrops != versionDrops {
		t.Fatalf("cache status %+v, want version %q, %d on disk, %d version drops", c, stamp, diskEntries, versionDrops)
	}
}

func get(t *testing.T, url string) (cacheStatus, body string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return resp.Header.Get("Cache-Status"), string(b)
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	_, body := get(t, url)
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("GET %s: %q: %v", url, body, err)
	}
}
