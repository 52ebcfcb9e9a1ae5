// Package multiinstance runs several BesluitBron instances as real
// processes on one Redis and one set of emulators, as an operator would
// (README "Several instances on one Redis"), and checks what they share:
// the cache tier, coalescing of misses, MCP sessions, purges and the
// store's mode. The mechanisms have their own tests at the Go level; this
// is the house put together.
package multiinstance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/redistest"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// house is one set of emulators and n instances on one Redis prefix.
type house struct {
	emulators map[string]string // platform → base URL
	instances []instance
}

type instance struct {
	base, admin string
	proc        *testproc.Process
}

var emulatorPlatforms = []string{"ori", "obv", "tk", "opentk", "ob", "rechtspraak", "oa"}

// houseOptions change startHouse's defaults.
type houseOptions struct {
	redisURL string            // default redistest.URL(); "none": each instance alone (store local)
	urls     map[string]string // platform → base URL replacing its emulator
}

// startHouse starts the emulators in one process and n instances of the
// default Caddyfile pointed at them, sharing a Redis prefix.
func startHouse(t *testing.T, n int) *house {
	return startHouseWith(t, n, houseOptions{})
}

func startHouseWith(t *testing.T, n int, o houseOptions) *house {
	t.Helper()
	if o.redisURL == "" {
		o.redisURL = redistest.URL()
	}
	prefix := redistest.Prefix(t)
	bin := testproc.OfflineBinary(t)
	dir := t.TempDir()
	h := &house{emulators: map[string]string{}}
	var cf strings.Builder
	cf.WriteString("{\n\tadmin off\n\tpersist_config off\n}\n")
	for _, p := range emulatorPlatforms {
		port := testproc.FreePort(t)
		h.emulators[p] = fmt.Sprintf("http://127.0.0.1:%d", port)
		fmt.Fprintf(&cf, "http://127.0.0.1:%d {\n\tbesluitbron_emulator %s\n}\n", port, p)
	}
	emuFile := filepath.Join(dir, "Caddyfile.emulators")
	if err := os.WriteFile(emuFile, []byte(cf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	testproc.StartBinary(t, bin, emuFile, filepath.Join(dir, "emu"), h.emulators["obv"]+"/_emulator/stats")

	caddyfile, err := filepath.Abs("../../Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		port, adminPort := testproc.FreePort(t), testproc.FreePort(t)
		in := instance{base: fmt.Sprintf("http://127.0.0.1:%d", port), admin: fmt.Sprintf("http://127.0.0.1:%d", adminPort)}
		env := []string{
			fmt.Sprintf("BESLUITBRON_PORT=%d", port),
			fmt.Sprintf("BESLUITBRON_ADMIN=127.0.0.1:%d", adminPort),
			"BESLUITBRON_REDIS=" + strings.TrimPrefix(o.redisURL, "none"),
			"BESLUITBRON_STORE_PREFIX=" + prefix,
			fmt.Sprintf("BESLUITBRON_INSTANCES=%d", n),
			"BESLUITBRON_CACHE_DIR=" + filepath.Join(dir, fmt.Sprintf("cache-%d", i)),
			"BESLUITBRON_ALLOW_PRIVATE=127.0.0.1/8",
			// The harvest's pages would join the counts these tests hold.
			"BESLUITBRON_CASELAW=off",
			// These tests count requests; a Redis call past the default
			// 150 ms made an instance ask alone (200 concurrent misses over
			// three instances reached the platform 3 times, not once, on a
			// machine busy with other builds). A cut closes connections,
			// so calls then fail at once whatever the deadline.
			"BESLUITBRON_STORE_TIMEOUT=5s",
		}
		for _, p := range emulatorPlatforms {
			u := h.emulators[p]
			if o.urls[p] != "" {
				u = o.urls[p]
			}
			env = append(env, "BESLUITBRON_"+strings.ToUpper(p)+"_URL="+u)
		}
		in.proc = testproc.StartBinary(t, bin, caddyfile, filepath.Join(dir, fmt.Sprintf("xdg-%d", i)), in.admin+"/besluitbron/store", env...)
		h.instances = append(h.instances, in)
	}
	// The admin endpoint answers before the config's apps started: wait
	// (bounded) until each instance serves and its store is joined.
	for i, in := range h.instances {
		ok := false
		for try := 0; try < 400 && !ok; try++ {
			if resp, err := http.Get(in.base + "/status.json"); err == nil {
				resp.Body.Close()
				want := "shared"
				if o.redisURL == "none" {
					want = "local"
				}
				ok = storeMode(in.admin) == want
			}
			if !ok {
				time.Sleep(25 * time.Millisecond) // polling a child process's start
			}
		}
		if !ok {
			t.Fatalf("instance %d did not start serving with a joined store (store: %s):\n%s", i+1, storeMode(in.admin), in.proc.Log())
		}
	}
	return h
}

// from returns a client whose connections come from the loopback address
// 127.0.0.<n>: each test speaks as its own address, so one test's burst
// does not meet another's inbound limit (which is global across the
// instances, as it must be).
func from(n int) *http.Client { return clientAt(0, byte(n)) }

// clientAt returns a client whose connections come from 127.0.a.b; a
// call may wait in a budget's queue up to its max_wait (2 min).
func clientAt(a, b byte) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, a, b)}}
	return &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 64}}
}

var client = from(1)

func get(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func TestThreeInstancesShareCacheSessionsAndStore(t *testing.T) {
	h := startHouse(t, 3)
	t.Run("a miss on one instance is a hit on the others", func(t *testing.T) {
		tk := h.emulators["tk"]
		before := testproc.EmulatorRequests(t, tk)
		path := "/platforms/tk/OData/v5/Fractie?$top=3"
		resp, _ := get(t, h.instances[0].base+path)
		if resp.StatusCode != 200 {
			t.Fatalf("instance 1: %d", resp.StatusCode)
		}
		for i, in := range h.instances[1:] {
			resp, _ := get(t, in.base+path)
			if cs := resp.Header.Get("Cache-Status"); resp.StatusCode != 200 || !strings.Contains(cs, "hit") {
				t.Fatalf("instance %d: %d, Cache-Status %q", i+2, resp.StatusCode, cs)
			}
		}
		if got := testproc.EmulatorRequests(t, tk) - before; got != 1 {
			t.Fatalf("the platform saw %d requests, want 1", got)
		}
	})

	t.Run("200 identical concurrent misses over three instances make one upstream call", func(t *testing.T) {
		rs := h.emulators["tk"]
		before := testproc.EmulatorRequests(t, rs)
		path := "/platforms/tk/OData/v5/Fractie?$top=5&$skip=1"
		var wg sync.WaitGroup
		statuses := make([]int, 200)
		clients := []*http.Client{from(11), from(12), from(13), from(14)} // 50 each: within an address's burst
		for i := range statuses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := clients[i%4].Get(h.instances[i%3].base + path)
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				statuses[i] = resp.StatusCode
			}()
		}
		wg.Wait()
		for i, s := range statuses {
			if s != 200 {
				t.Fatalf("request %d: status %d", i, s)
			}
		}
		if got := testproc.EmulatorRequests(t, rs) - before; got != 1 {
			t.Fatalf("the platform saw %d requests, want 1", got)
		}
	})

	t.Run("a purge on one instance clears the shared tier for all", func(t *testing.T) {
		tk := h.emulators["tk"]
		path := "/platforms/tk/OData/v5/Fractie?$top=4"
		if resp, _ := get(t, h.instances[0].base+path); resp.StatusCode != 200 {
			t.Fatalf("instance 1: %d", resp.StatusCode)
		}
		req, _ := http.NewRequest(http.MethodDelete, h.instances[0].admin+"/besluitbron/cache/tk", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("purge: %v %v", err, resp)
		}
		resp.Body.Close()
		// Instance 3 hears of the purge by a notice and then clears its
		// local tiers (a local hit never asks Redis): wait until its
		// figures count the purge applied, bounded.
		applied := false
		for try := 0; try < 100 && !applied; try++ {
			_, figures := get(t, h.instances[2].admin+"/besluitbron/cache/tk")
			var st struct {
				Shared struct {
					PurgesReceived int64 `json:"purges_received"`
				} `json:"shared"`
			}
			if err := json.Unmarshal([]byte(figures), &st); err != nil {
				t.Fatalf("instance 3's cache figures: %v: %s", err, figures)
			}
			if applied = st.Shared.PurgesReceived >= 1; !applied {
				time.Sleep(20 * time.Millisecond) // polling for the notice
			}
		}
		if !applied {
			t.Fatal("instance 3 never applied the purge made on instance 1")
		}
		before := testproc.EmulatorRequests(t, tk)
		resp2, _ := get(t, h.instances[2].base+path)
		if resp2.StatusCode != 200 {
			t.Fatalf("instance 3 after the purge: %d", resp2.StatusCode)
		}
		if cs := resp2.Header.Get("Cache-Status"); strings.Contains(cs, "hit") {
			t.Fatalf("after the purge instance 3 answered from cache: %q", cs)
		}
		if got := testproc.EmulatorRequests(t, tk) - before; got != 1 {
			t.Fatalf("after the purge the platform saw %d requests, want 1", got)
		}
	})

	t.Run("an MCP session issued by one instance is valid on every other, for its connector only", func(t *testing.T) {
		id := mcpInitialize(t, h.instances[0].base+"/mcp/alles")
		if s := mcpCall(t, h.instances[1].base+"/mcp/alles", id, "tools/list"); s != 200 {
			t.Fatalf("tools/list on instance 2 with instance 1's session: %d", s)
		}
		if s := mcpCall(t, h.instances[2].base+"/mcp/raad", id, "tools/list"); s != http.StatusNotFound {
			t.Fatalf("the session on another connector: %d, want 404", s)
		}
		if s := mcpCall(t, h.instances[2].base+"/mcp/alles", "made-up-"+id, "tools/list"); s != http.StatusNotFound {
			t.Fatalf("a made-up session: %d, want 404", s)
		}
		req, _ := http.NewRequest(http.MethodDelete, h.instances[2].base+"/mcp/alles", nil)
		req.Header.Set("Mcp-Session-Id", id)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 && resp.StatusCode != 204 {
			t.Fatalf("DELETE on instance 3: %d", resp.StatusCode)
		}
		// The other instances hear of the end by a notice (on a Redis
		// Cluster it crosses nodes): wait for it, bounded.
		s := 0
		for try := 0; try < 100; try++ {
			if s = mcpCall(t, h.instances[0].base+"/mcp/alles", id, "tools/list"); s == http.StatusNotFound {
				break
			}
			time.Sleep(20 * time.Millisecond) // polling for the notice
		}
		if s != http.StatusNotFound {
			t.Fatalf("the session after DELETE on instance 3, on instance 1: %d, want 404", s)
		}
	})
}

const protocol = "2025-06-18"

func mcpPost(t *testing.T, url, session, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewBufferString(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", protocol)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func mcpInitialize(t *testing.T, url string) string {
	t.Helper()
	resp := mcpPost(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+protocol+`","capabilities":{},"clientInfo":{"name":"multiinstance","version":"1"}}}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || id == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, id)
	}
	resp = mcpPost(t, url, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	return id
}

func mcpCall(t *testing.T, url, session, method string) int {
	t.Helper()
	resp := mcpPost(t, url, session, `{"jsonrpc":"2.0","id":2,"method":"`+method+`","params":{}}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func storeMode(admin string) string {
	resp, err := http.Get(admin + "/besluitbron/store")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var st struct{ Mode string }
	_ = json.NewDecoder(resp.Body).Decode(&st)
	return st.Mode
}
