//go:build figures

package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	obvemulator "github.com/besluitbron/besluitbron/platforms/obv/emulator"
)

// TestLoadFigures is issue 23's capacity test (docs/benchmarks.md,
// "Issue 23"): one in-process Caddy with the production chain for obv
// (client_limit, platform_cache, platform_limit, the obv emulator) and a
// connector, a warm cache entry, and N MCP clients speaking the protocol
// over loopback HTTP with pre-encoded JSON-RPC bodies:
//
//   - 2025-11-25: each client initializes (initialize, its Mcp-Session-Id,
//     notifications/initialized) and then calls tools/call on its session;
//   - 2026-07-28: stateless clients, every request carries its _meta.
//
// For N = 100, 1,000, 10,000 (BESLUITBRON_LOAD_N="100,1000" to choose) it
// reports the heap per idle session, the most cached tool calls per second
// (closed loop, 32 callers taking turns over the N sessions), and p50/p99
// at the load (every session calls once every 10 s, open loop).
//
// The registry gives one address at most 1,000 sessions (docs/mcp.md,
// "Sessions"), so the clients spread over 127.0.0.2... (net.Dialer
// LocalAddr), 500 sessions per address: the per-address rule stays as in
// production; trusted_sources would switch it off.
//
//	go test -tags figures -count=1 -v -run TestLoadFigures -timeout 30m ./mcp/
func TestLoadFigures(t *testing.T) {
	ns := []int{100, 1000, 10000}
	if v := os.Getenv("BESLUITBRON_LOAD_N"); v != "" {
		ns = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				t.Fatal(err)
			}
			ns = append(ns, n)
		}
	}
	site, port := chainSite(t, t.TempDir())
	testcaddy.Load(t, site)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	c := connect(t, base+"/mcp/raad", false, nil)
	src := decodeResult(t, mustTool(t, c, "obv_sources", nil))
	org := src["organizations"].([]any)[0].(map[string]any)["key"].(string)
	args := map[string]any{"organization": org, "limit": 10}
	mustTool(t, c, "obv_search", args)
	if text := mustTool(t, c, "obv_search", args); !strings.Contains(text, `"from_cache":true`) {
		t.Fatalf("not from the cache: %s", text)
	}
	t.Logf("GOMAXPROCS=%d", runtime.GOMAXPROCS(0))
	// Each size and era through mcp-go (the fast path off: issue 23's
	// figures) and through the fast path (issue 33), one after the other.
	fast := pooled(t, "raad").fast
	defer fast.off.Store(false)
	t.Logf("| path | era | sessions | heap per idle session | calls/s (max, closed loop) | p50 | p99 | calls/s offered (1 per session per 10 s) | p50 | p99 | errors |")
	t.Logf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, n := range ns {
		for _, run := range []struct {
			path   string
			legacy bool
		}{{"mcp-go", true}, {"fast path", true}, {"mcp-go", false}, {"fast path", false}} {
			legacy := run.legacy
			fast.off.Store(run.path == "mcp-go")
			runtime.GC()
			r := runLoad(t, base, n, legacy, func(_ int, version string, modern bool) []byte {
				return toolCallBody(org, 10, 0, version, modern)
			})
			era := "2026-07-28"
			if legacy {
				era = "2025-11-25"
			}
			perSession := "—"
			if legacy {
				perSession = fmt.Sprintf("%.1f KiB", r.heapPerSession/1024)
			}
			t.Logf("| %s | %s | %d | %s | %.0f | %s | %s | %.0f | %s | %s | %d |", run.path, era, n, perSession,
				r.maxRate, ms(r.maxP50), ms(r.maxP99), r.openRate, ms(r.openP50), ms(r.openP99), r.errors)
		}
	}
}

// TestLoadFiguresDistinct is TestLoadFigures with distinct questions
// (issue 33, docs/benchmarks.md): session i asks its own obv_search
// (organisation i mod 330, limit 1, offset i / 330), each already in the
// cache and its result rendered once, so at a few thousand calls a second
// no question comes back within the second it was rendered in. Each size
// and era runs through the fast path with the memo as it was
// (memoBefore: a kept result holds within its second only) and as it is
// (the kept template), one after the other on the same server.
//
//	BESLUITBRON_LOAD_N=10000 go test -tags figures -count=1 -v -run TestLoadFiguresDistinct -timeout 30m ./mcp/
func TestLoadFiguresDistinct(t *testing.T) {
	ns := []int{10000}
	if v := os.Getenv("BESLUITBRON_LOAD_N"); v != "" {
		ns = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				t.Fatal(err)
			}
			ns = append(ns, n)
		}
	}
	site, port := chainSite(t, t.TempDir())
	// Warming 10,000 questions spends 10,000 units of obv's budget, ours
	// and the emulator's: both without a limit here.
	site = strings.Replace(site, "capacity 60", "capacity 1000000", 1)
	emu := httptest.NewServer(obvemulator.New(obvemulator.Config{NoRateLimit: true}))
	defer emu.Close()
	site = regexp.MustCompile(`reverse_proxy 127\.0\.0\.1:\d+`).ReplaceAllString(site, "reverse_proxy "+strings.TrimPrefix(emu.URL, "http://"))
	testcaddy.Load(t, site)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	c := connect(t, base+"/mcp/raad", false, nil)
	src := decodeResult(t, mustTool(t, c, "obv_sources", nil))
	var orgs []string
	for _, o := range src["organizations"].([]any) {
		orgs = append(orgs, o.(map[string]any)["key"].(string))
	}
	bodyOf := func(i int, version string, modern bool) []byte {
		return toolCallBody(orgs[i%len(orgs)], 1, i/len(orgs), version, modern)
	}
	// Warm every question: stored, into the hot set, rendered.
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true}}
	start := time.Now()
	parallel(slices.Max(ns), 16, func(i int) {
		for range 3 {
			req, _ := http.NewRequest(http.MethodPost, base+"/mcp/raad", bytes.NewReader(bodyOf(i, mcpgo.LATEST_PROTOCOL_VERSION, true)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Protocol-Version", mcpgo.LATEST_PROTOCOL_VERSION)
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "obv_search")
			resp, err := hc.Do(req)
			if err != nil {
				t.Errorf("warming %d: %v", i, err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	fast := pooled(t, "raad").fast
	fast.memo.mu.RLock()
	kept, size := len(fast.memo.m), fast.memo.bytes
	fast.memo.mu.RUnlock()
	t.Logf("GOMAXPROCS=%d; %d questions warmed in %v; %d results kept (%.1f MiB)", runtime.GOMAXPROCS(0), slices.Max(ns), time.Since(start).Round(time.Second), kept, float64(size)/(1<<20))
	defer func() { memoBefore = false }()
	t.Logf("| memo | era | sessions | calls/s (max, closed loop) | p50 | p99 | calls/s offered (1 per session per 10 s) | p50 | p99 | from the memo | errors |")
	t.Logf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, n := range ns {
		for _, run := range []struct {
			before, legacy bool
		}{{true, false}, {false, false}, {true, true}, {false, true}} {
			memoBefore = run.before
			runtime.GC()
			served, memo := fast.served.Load(), fast.memoServed.Load()
			r := runLoad(t, base, n, run.legacy, bodyOf)
			era, path := "2026-07-28", "kept template"
			if run.legacy {
				era = "2025-11-25"
			}
			if run.before {
				path = "within its second (before)"
			}
			share := float64(fast.memoServed.Load()-memo) / float64(max(fast.served.Load()-served, 1))
			t.Logf("| %s | %s | %d | %.0f | %s | %s | %.0f | %s | %s | %.0f %% | %d |", path, era, n,
				r.maxRate, ms(r.maxP50), ms(r.maxP99), r.openRate, ms(r.openP50), ms(r.openP99), 100*share, r.errors)
		}
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

type loadResult struct {
	heapPerSession    float64
	maxRate, openRate float64
	maxP50, maxP99    time.Duration
	openP50, openP99  time.Duration
	errors            int64
}

// loadClient is one simulated assistant: its source address's transport
// and, in the 2025 era, its session id.
type loadClient struct {
	hc   *http.Client
	sid  string
	body []byte // its tools/call
}

const perAddress = 500

func runLoad(t *testing.T, base string, n int, legacy bool, bodyOf func(i int, version string, modern bool) []byte) loadResult {
	var r loadResult
	// One transport per source address, shared by its clients (a pool
	// of kept-alive connections, as a NAT'd office would use).
	var hcs []*http.Client
	for i := 0; i*perAddress < n; i++ {
		local := &net.TCPAddr{IP: net.IPv4(127, 0, byte(i/250), byte(2+i%250))}
		d := &net.Dialer{LocalAddr: local, Timeout: 5 * time.Second}
		hcs = append(hcs, &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
			DialContext: d.DialContext, MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64, DisableCompression: true}})
	}
	defer func() {
		for _, hc := range hcs {
			hc.CloseIdleConnections()
		}
	}()
	clients := make([]loadClient, n)
	for i := range clients {
		clients[i].hc = hcs[i/perAddress]
	}
	url := base + "/mcp/raad"
	version := mcpgo.ProtocolVersion20251125
	if !legacy {
		version = mcpgo.LATEST_PROTOCOL_VERSION
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	if legacy {
		parallel(n, 64, func(i int) {
			sid, err := initSession(clients[i].hc, url)
			if err != nil {
				t.Fatalf("session %d: %v", i, err)
			}
			clients[i].sid = sid
		})
		for _, hc := range hcs {
			hc.CloseIdleConnections() // idle sessions, not idle connections
		}
		runtime.GC()
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		r.heapPerSession = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
	}
	for i := range clients {
		clients[i].body = bodyOf(i, version, !legacy)
	}
	call := func(cl *loadClient) (time.Duration, error) {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(cl.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", version)
		if legacy {
			req.Header.Set("Mcp-Session-Id", cl.sid)
		} else {
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "obv_search")
		}
		t0 := time.Now()
		resp, err := cl.hc.Do(req)
		if err != nil {
			return 0, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(t0)
		if err != nil {
			return d, err
		}
		if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(`\"from_cache\":true`)) {
			return d, fmt.Errorf("status %d: %.300s", resp.StatusCode, b)
		}
		return d, nil
	}
	var errs atomic.Int64
	var firstErr atomic.Value

	// Most calls per second: 32 callers in a closed loop, taking the
	// sessions in turn.
	{
		var next atomic.Int64
		var mu sync.Mutex
		var lat []time.Duration
		deadline := time.Now().Add(5 * time.Second)
		var wg sync.WaitGroup
		start := time.Now()
		for w := 0; w < 32; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var mine []time.Duration
				for time.Now().Before(deadline) {
					cl := &clients[int(next.Add(1))%n]
					d, err := call(cl)
					if err != nil {
						errs.Add(1)
						firstErr.CompareAndSwap(nil, err.Error())
						continue
					}
					mine = append(mine, d)
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			}()
		}
		wg.Wait()
		r.maxRate = float64(len(lat)) / time.Since(start).Seconds()
		r.maxP50, r.maxP99 = loadPct(lat, 50), loadPct(lat, 99)
	}

	// The load: each session calls once every 10 s (open loop:
	// calls start on schedule whether or not earlier ones finished),
	// for 10 s, so every session calls once.
	{
		const period = 10 * time.Second
		var mu sync.Mutex
		var lat []time.Duration
		var wg sync.WaitGroup
		start := time.Now()
		for i := 0; i < n; i++ {
			at := start.Add(time.Duration(i) * period / time.Duration(n))
			time.Sleep(time.Until(at))
			wg.Add(1)
			go func(cl *loadClient) {
				defer wg.Done()
				d, err := call(cl)
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					return
				}
				mu.Lock()
				lat = append(lat, d)
				mu.Unlock()
			}(&clients[i])
		}
		wg.Wait()
		r.openRate = float64(n) / period.Seconds()
		r.openP50, r.openP99 = loadPct(lat, 50), loadPct(lat, 99)
	}
	r.errors = errs.Load()
	if e := firstErr.Load(); e != nil {
		t.Logf("first error (%d in all): %v", r.errors, e)
	}
	if legacy {
		// End the sessions, so the next run's heap starts clean.
		parallel(n, 64, func(i int) {
			req, _ := http.NewRequest(http.MethodDelete, url, nil)
			req.Header.Set("Mcp-Session-Id", clients[i].sid)
			req.Header.Set("Mcp-Protocol-Version", version)
			if resp, err := clients[i].hc.Do(req); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	return r
}

// initSession opens a 2025-11-25 session as a client does: initialize,
// the session id from its answer, notifications/initialized.
func initSession(hc *http.Client, url string) (string, error) {
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"load","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(init))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		return "", fmt.Errorf("initialize: status %d, session %q", resp.StatusCode, sid)
	}
	req, _ = http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err = hc.Do(req)
	if err != nil {
		return "", err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return "", fmt.Errorf("notifications/initialized: status %d", resp.StatusCode)
	}
	return sid, nil
}

// toolCallBody is the tools/call a client sends; a 2026-07-28 client
// puts its protocol version and capabilities in _meta.
func toolCallBody(org string, limit, offset int, version string, modern bool) []byte {
	args := map[string]any{"organization": org, "limit": limit}
	if offset > 0 {
		args["offset"] = offset
	}
	params := map[string]any{"name": "obv_search", "arguments": args}
	if modern {
		params["_meta"] = map[string]any{
			"io.modelcontextprotocol/protocolVersion":    version,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "load", "version": "1"},
		}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
	return b
}

func parallel(n, workers int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

func loadPct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

var _ = context.Background
