package platformproxy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// recordingPlatform records what reached it: method, path, body, headers.
type recordingPlatform struct {
	*countingServer
	mu   sync.Mutex
	last []string
	hdr  http.Header
}

func newRecordingPlatform(t *testing.T) *recordingPlatform {
	p := &recordingPlatform{}
	p.countingServer = newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		p.mu.Lock()
		p.last = append(p.last, r.Method+" "+r.URL.Path+" "+string(b))
		p.hdr = r.Header.Clone()
		p.mu.Unlock()
		io.WriteString(w, "ok")
	})
	return p
}

func (p *recordingPlatform) seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.last...)
}

func send(t *testing.T, method, url, body string, chunked bool) (*http.Response, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
		if chunked {
			rd = io.MultiReader(rd) // no length known: sent chunked
		}
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func decodeRefusal(t *testing.T, resp *http.Response, body string) refusal {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("refusal Content-Type %q, want application/json", ct)
	}
	var r refusal
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("refusal body %q: %v", body, err)
	}
	return r
}

func TestOnlyReadsAndReadOnlySearchesReachThePlatform(t *testing.T) {
	pl := newRecordingPlatform(t)
	base := serve(t, "opentk", "platform_proxy opentk "+pl.URL)
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/getdoc/1", ""},
		{"HEAD", "/getdoc/1", ""},
		{"POST", "/search", "q=woningbouw"},
	} {
		if resp, _ := send(t, tc.method, base+tc.path, tc.body, false); resp.StatusCode != 200 {
			t.Errorf("%s %s: %d, want 200", tc.method, tc.path, resp.StatusCode)
		}
	}
	passed := len(pl.seen())
	for _, tc := range []struct{ method, path, allow string }{
		{"POST", "/getdoc/1", "GET, HEAD"},
		{"PUT", "/search", "GET, HEAD, POST"},
		{"DELETE", "/getdoc/1", "GET, HEAD"},
		{"PATCH", "/search", "GET, HEAD, POST"},
		{"OPTIONS", "/getdoc/1", "GET, HEAD"},
		{"TRACE", "/getdoc/1", "GET, HEAD"},
		{"get", "/getdoc/1", "GET, HEAD"}, // methods are case-sensitive
		{"post", "/search", "GET, HEAD, POST"},
		{"PROPFIND", "/", "GET, HEAD"},
		{"POST", "/search/", "GET, HEAD"}, // not a search path
	} {
		resp, body := send(t, tc.method, base+tc.path, "x=1", false)
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != tc.allow {
			t.Errorf("%s %s: %d Allow %q, want 405 Allow %q", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Allow"), tc.allow)
			continue
		}
		if r := decodeRefusal(t, resp, body); r.Error != "method_not_allowed" || r.Platform != "opentk" || r.Message == "" {
			t.Errorf("%s %s: refusal %+v", tc.method, tc.path, r)
		}
	}
	if got := pl.seen(); len(got) != passed {
		t.Errorf("refused methods reached the platform: %v", got[passed:])
	}
}

func TestRequestBodiesAreCapped(t *testing.T) {
	pl := newRecordingPlatform(t)
	small := serve(t, "opentk", "platform_proxy opentk "+pl.URL+" {\n\t\t\t\tmax_body 16\n\t\t\t}")
	at16, over := strings.Repeat("a", 16), strings.Repeat("b", 17)
	for _, chunked := range []bool{false, true} {
		resp, _ := send(t, "POST", small+"/search", at16, chunked)
		if resp.StatusCode != 200 {
			t.Errorf("chunked=%v: body at the cap: %d, want 200", chunked, resp.StatusCode)
		}
		resp, body := send(t, "POST", small+"/search", over, chunked)
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("chunked=%v: body over the cap: %d, want 413", chunked, resp.StatusCode)
			continue
		}
		if r := decodeRefusal(t, resp, body); r.Error != "body_too_large" || r.MaxBody != 16 {
			t.Errorf("chunked=%v: refusal %+v", chunked, r)
		}
	}
	// A GET with a body is capped too.
	if resp, _ := send(t, "GET", small+"/getdoc/1", over, false); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("GET with a body over the cap: %d, want 413", resp.StatusCode)
	}
	want := []string{"POST /search " + at16, "POST /search " + at16}
	if got := pl.seen(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("platform saw %q, want only the two bodies at the cap, whole", got)
	}

	// Default cap: 64 KiB.
	def := serve(t, "ori", "platform_proxy ori "+pl.URL)
	if resp, _ := send(t, "POST", def+"/_search", strings.Repeat("c", 64<<10), true); resp.StatusCode != 200 {
		t.Errorf("64 KiB search body: %d, want 200", resp.StatusCode)
	}
	if resp, _ := send(t, "POST", def+"/_search", strings.Repeat("c", 64<<10+1), true); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("64 KiB + 1 search body: %d, want 413", resp.StatusCode)
	}
}

func TestClientHeadersDoNotReachThePlatform(t *testing.T) {
	pl := newRecordingPlatform(t)
	base := serve(t, "ori", "platform_proxy ori "+pl.URL)
	// Written by hand, so the names keep the client's case.
	c, err := net.Dial("tcp", strings.TrimPrefix(strings.SplitN(base, "/platforms", 2)[0], "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `{"query":{"match_all":{}}}`
	fmt.Fprintf(c, "POST /platforms/ori/ori_x/_search HTTP/1.1\r\nHost: example\r\n"+
		"content-type: application/json\r\ncontent-length: %d\r\n"+
		"authorization: Bearer client-secret\r\nCOOKIE: a=1\r\nproxy-authorization: Basic eA==\r\n"+
		"mcp-session-id: mcp-1\r\nbesluitbron-session: made-up\r\nBesluitbron-Whatever: 1\r\n"+
		"Connection: keep-alive, X-Secret-Token\r\nx-secret-token: s3cret\r\nkeep-alive: timeout=5\r\n"+
		"te: trailers\r\nupgrade: h2c\r\nx-forwarded-for: 203.0.113.9\r\nidempotency-key: k\r\n\r\n%s",
		len(body), body)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	pl.mu.Lock()
	got := pl.hdr
	pl.mu.Unlock()
	for _, name := range []string{"Authorization", "Cookie", "Proxy-Authorization", "Mcp-Session-Id", "Besluitbron-Session",
		"Besluitbron-Whatever", "X-Secret-Token", "Keep-Alive", "Te", "Upgrade", "X-Forwarded-For", "Idempotency-Key"} {
		if v, ok := got[name]; ok {
			t.Errorf("%s reached the platform: %q", name, v)
		}
	}
	if got.Get("Content-Type") != "application/json" || !strings.HasPrefix(got.Get("User-Agent"), "BesluitBron/") {
		t.Errorf("needed headers lost: %v", got)
	}
	if s := pl.seen(); len(s) != 1 || s[0] != "POST /ori_x/_search "+body {
		t.Errorf("platform saw %q", s)
	}
}

func TestMaxBodyAndProbeIntervalConfig(t *testing.T) {
	var h Handler
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("platform_proxy ori {\n max_body 1MiB\n}")); err != nil || h.MaxBody != 1<<20 {
		t.Errorf("max_body 1MiB: %v %d", err, h.MaxBody)
	}
	for _, bad := range []string{"0", "lots", "-1", "1MiB 2"} {
		var h Handler
		if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("platform_proxy ori {\n max_body " + bad + "\n}")); err == nil {
			t.Errorf("max_body %s: want an error", bad)
		}
	}
	// Probes that would start only after the idle timeout never probe an
	// idle connection: refused at load.
	port := testproc.FreePort(t)
	cfg := testcaddy.WithoutPersistence(t, testcaddy.Adapt(t, fmt.Sprintf(":%d {\n\tplatform_proxy ori {\n\t\tidle_timeout 10s\n\t\tprobe_interval 10s\n\t}\n}", port)))
	err := caddy.Load(cfg, true)
	t.Cleanup(func() { _ = caddy.Stop() })
	if err == nil || !strings.Contains(err.Error(), "probe_interval") {
		t.Errorf("probe_interval ≥ idle_timeout: %v, want a config error", err)
	}
}
