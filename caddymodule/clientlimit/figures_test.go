//go:build figures

package clientlimit

// The figures of docs/benchmarks/inbound-limits.md: one client flooding a
// real Caddy process as fast as it can while a second client sends 20
// requests a second. Run with
//
//	go test -tags figures -run TestFigureFlood -v ./caddymodule/clientlimit/
//
// BESLUITBRON_FIGURE_SECONDS sets each phase's length (default 10),
// BESLUITBRON_FLOOD_CONNS the flooder's connection counts (default "1,8").

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/testproc"
)

func clientFrom(ip string, conns int) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{
		DialContext:         d.DialContext,
		MaxIdleConnsPerHost: conns,
		MaxConnsPerHost:     conns,
	}}
}

type politeResult struct {
	sent, ok int
	lat      []time.Duration
}

func (p politeResult) pct(q float64) time.Duration {
	if len(p.lat) == 0 {
		return 0
	}
	s := slices.Clone(p.lat)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// polite sends 20 requests a second from 127.0.0.3 for d.
func polite(url string, d time.Duration) politeResult {
	c := clientFrom("127.0.0.3", 1)
	var res politeResult
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		<-tick.C
		start := time.Now()
		resp, err := c.Get(url)
		res.sent++
		if err != nil {
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		res.lat = append(res.lat, time.Since(start))
		if resp.StatusCode == 200 {
			res.ok++
		}
	}
	return res
}

// flood sends requests from 127.0.0.2 over conns connections as fast as
// they are answered, until ctx ends.
func flood(ctx context.Context, url string, conns int) (total, refused int64) {
	c := clientFrom("127.0.0.2", conns)
	var wg sync.WaitGroup
	var n, r atomic.Int64
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				resp, err := c.Get(url)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				n.Add(1)
				if resp.StatusCode == http.StatusTooManyRequests {
					r.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return n.Load(), r.Load()
}

func TestFigureFlood(t *testing.T) {
	phase := 10 * time.Second
	if s, err := strconv.Atoi(os.Getenv("BESLUITBRON_FIGURE_SECONDS")); err == nil && s > 0 {
		phase = time.Duration(s) * time.Second
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "caddy")
	root, _ := exec.Command("go", "env", "GOMOD").Output()
	build := exec.Command("go", "build", "-o", bin, "./internal/cmd/caddy-clientlimit")
	build.Dir = filepath.Dir(strings.TrimSpace(string(root)))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	limited, plain := testproc.FreePort(t), testproc.FreePort(t)
	cf := filepath.Join(dir, "Caddyfile")
	// The defaults of client_limit, as in the proposed default Caddyfile.
	os.WriteFile(cf, fmt.Appendf(nil, `{
	admin off
}
http://127.0.0.1:%d {
	client_limit figures
	respond "ok"
}
http://127.0.0.1:%d {
	respond "ok"
}
`, limited, plain), 0o644)
	cmd := exec.Command(bin, "run", "--config", cf, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	for deadline := time.Now().Add(30 * time.Second); ; {
		if resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/", plain)); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("caddy did not start")
		}
		time.Sleep(50 * time.Millisecond) // polling a child process's start
	}

	connsList := []int{1, 8}
	if v := os.Getenv("BESLUITBRON_FLOOD_CONNS"); v != "" {
		connsList = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 {
				t.Fatalf("BESLUITBRON_FLOOD_CONNS %q", v)
			}
			connsList = append(connsList, n)
		}
	}
	type site struct {
		name  string
		port  int
		conns int
	}
	var sites []site
	for _, c := range connsList {
		sites = append(sites, site{"client_limit (defaults)", limited, c}, site{"no limit (plain respond)", plain, c})
	}
	for _, site := range sites {
		url := fmt.Sprintf("http://127.0.0.1:%d/", site.port)
		alone := polite(url, phase)
		ctx, cancel := context.WithCancel(context.Background())
		var total, refused int64
		done := make(chan struct{})
		go func() { total, refused = flood(ctx, url, site.conns); close(done) }()
		time.Sleep(500 * time.Millisecond) // let the flood reach full speed before measuring
		crowded := polite(url, phase)
		cancel()
		<-done
		t.Logf("%s, flooder on %d connection(s):", site.name, site.conns)
		t.Logf("  flooder (127.0.0.2): %d requests in %.1fs (%.0f/s), %d answered 429 (%.2f%%)",
			total, (phase + 500*time.Millisecond).Seconds(), float64(total)/(phase+500*time.Millisecond).Seconds(),
			refused, 100*float64(refused)/float64(max(total, 1)))
		for _, r := range []struct {
			name string
			p    politeResult
		}{{"alone", alone}, {"under flood", crowded}} {
			t.Logf("  polite client (127.0.0.3, 20/s) %s: %d/%d ok (%.1f%%), p50 %s, p99 %s, max %s", r.name,
				r.p.ok, r.p.sent, 100*float64(r.p.ok)/float64(max(r.p.sent, 1)),
				r.p.pct(0.5).Round(time.Microsecond), r.p.pct(0.99).Round(time.Microsecond), r.p.pct(1).Round(time.Microsecond))
		}
		t.Logf("  p99 under flood / alone: %.2fx", float64(crowded.pct(0.99))/float64(max(alone.pct(0.99), 1)))
	}
}
