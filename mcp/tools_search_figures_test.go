//go:build figures

package mcp

import (
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// figureSite is every platform's emulator behind platform_cache (as the
// offline house routes them, without budgets), with /mcp/alles; stalled
// names a platform whose upstream accepts connections and never answers.
func figureSite(t *testing.T, stalled string) (url string, bases map[string]string) {
	port := testproc.FreePort(t)
	dir := t.TempDir()
	bases = map[string]string{}
	var emus, routes strings.Builder
	for _, k := range emulated {
		up := ""
		if k == stalled {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			go func() { // accept, read nothing, answer nothing
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					t.Cleanup(func() { c.Close() })
				}
			}()
			up = ln.Addr().String()
		} else {
			p := testproc.FreePort(t)
			up = fmt.Sprintf("127.0.0.1:%d", p)
			fmt.Fprintf(&emus, "http://:%d {\n\tbesluitbron_emulator %s\n}\n", p, k)
			bases[k] = "http://" + up
		}
		fmt.Fprintf(&routes, "\troute /platforms/%s/* {\n\t\turi strip_prefix /platforms/%s\n\t\tplatform_cache %s {\n\t\t\tdir %s/%s\n\t\t}\n\t\treverse_proxy %s {\n\t\t\theader_up Host {upstream_hostport}\n\t\t}\n\t}\n", k, k, k, dir, k, up)
	}
	testcaddy.Load(t, fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
}
%s
http://:%d {
%s
%s
}
`, emus.String(), port, routes.String(), emulatorConnectors))
	return fmt.Sprintf("http://127.0.0.1:%d/mcp/alles", port), bases
}

func pct(d []time.Duration, p float64) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// TestSearchAllFigures measures search_all over the seven emulators
// (docs/benchmarks.md, "Fan-out search (issue 14)"). Figures only: run
// with -tags figures.
func TestSearchAllFigures(t *testing.T) {
	words := []string{"woningbouw", "klimaatadaptatie", "energietransitie", "jeugdzorg", "participatiewet", "omgevingsvisie",
		"bestemmingsplan", "begroting", "jaarrekening", "stikstof", "verkeersveiligheid", "Wmo"}
	timeSearch := func(c *client.Client, q string) time.Duration {
		start := time.Now()
		if text, isErr := callTool(t, c, "search_all", map[string]any{"query": q}); isErr {
			t.Fatal(text)
		}
		return time.Since(start)
	}
	url, bases := figureSite(t, "")
	c := connect(t, url, false, nil)
	timeSearch(c, "gemeenteraad") // the emulators build their data (not counted)
	var cold, warm []time.Duration
	for _, w := range words {
		cold = append(cold, timeSearch(c, w))
	}
	for range 3 {
		for _, w := range words {
			warm = append(warm, timeSearch(c, w))
		}
	}
	t.Logf("FIGURE cold: n=%d p50=%v p95=%v", len(cold), pct(cold, .5), pct(cold, .95))
	t.Logf("FIGURE warm: n=%d p50=%v p95=%v", len(warm), pct(warm, .5), pct(warm, .95))

	// 100 clients ask the same new question at once.
	before := map[string]int64{}
	for k, b := range bases {
		before[k] = testproc.EmulatorRequests(t, b)
	}
	clients := make([]*client.Client, 100)
	for i := range clients {
		clients[i] = connect(t, url, false, nil)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var all []time.Duration
	for _, cl := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := timeSearch(cl, "afvalinzameling")
			mu.Lock()
			all = append(all, d)
			mu.Unlock()
		}()
	}
	wg.Wait()
	var per []string
	for _, k := range emulated {
		if b, ok := bases[k]; ok {
			per = append(per, fmt.Sprintf("%s=%d", k, testproc.EmulatorRequests(t, b)-before[k]))
		}
	}
	t.Logf("FIGURE 100 concurrent same question: platform requests %s; p50=%v p95=%v", strings.Join(per, " "), pct(all, .5), pct(all, .95))

	// One platform stalled: the deadline holds.
	url, _ = figureSite(t, "opentk")
	c = connect(t, url, false, nil)
	// New questions: the caches outlive the first site's config.
	var stalled []time.Duration
	for _, w := range []string{"riolering", "sportpark", "kinderopvang", "armoedebeleid", "dijkversterking", "zonnepark"} {
		stalled = append(stalled, timeSearch(c, w))
	}
	text, _ := callTool(t, c, "search_all", map[string]any{"query": "ruimtelijke", "platforms": "opentk,obv"})
	t.Logf("FIGURE stalled outcome: %.500s", text)
	t.Logf("FIGURE opentk stalled: n=%d p50=%v p95=%v max=%v", len(stalled), pct(stalled, .5), pct(stalled, .95), pct(stalled, 1))
}
