package platformproxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/internal/testtier"
)

// allowLoopback is the global option that lets the proxies dial the
// tests' loopback upstreams.
const allowLoopback = "\tbesluitbron {\n\t\tallow_private 127.0.0.1/8\n\t}\n"

// serve loads a Caddy config with one platform route, the proxies allowed
// to dial loopback, and returns the route's base URL, e.g.
// http://127.0.0.1:port/platforms/opentk.
func serve(t *testing.T, platform, directive string) string {
	t.Helper()
	return serveWith(t, allowLoopback, platform, directive)
}

// serveWith is serve with the given global options.
func serveWith(t *testing.T, global, platform, directive string) string {
	t.Helper()
	port := testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin off
%s}
:%d {
	handle_path /platforms/%s/* {
		route {
			%s
		}
	}
}`, global, port, platform, directive))
	return fmt.Sprintf("http://127.0.0.1:%d/platforms/%s", port, platform)
}

type countingServer struct {
	*httptest.Server
	conns, requests atomic.Int64
}

func newCountingServer(t *testing.T, h http.HandlerFunc) *countingServer {
	s := &countingServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		h(w, r)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func get(t *testing.T, url string) (int, http.Header, string) {
	t.Helper()
	return getWith(t, http.DefaultClient, url)
}

func getWith(t *testing.T, c *http.Client, url string) (int, http.Header, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func TestCaddyKeepsConnectionsAndResendsOnAClosedOne(t *testing.T) {
	// Connection 0 answers once, then reads the next request and closes
	// without a byte; later connections answer.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns, requests atomic.Int64
	bodies := make(chan string, 10)
	go func() {
		for i := 0; ; i++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func(i int, c net.Conn) {
				defer c.Close()
				br := bufio.NewReader(c)
				for n := 0; ; n++ {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					b, _ := io.ReadAll(req.Body)
					requests.Add(1)
					bodies <- req.Method + " " + req.URL.Path + " " + string(b)
					if i == 0 && n == 1 {
						return
					}
					fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				}
			}(i, c)
		}
	}()
	base := serve(t, "ori", "platform_proxy ori http://"+ln.Addr().String()+"/v1/elastic")
	if code, _, body := get(t, base+"/_cat/indices"); code != 200 || body != "ok" {
		t.Fatalf("warm-up: %d %q", code, body)
	}
	<-bodies
	// A read-only search POST meets the closed pooled connection.
	resp, err := http.Post(base+"/ori_*/_search", "application/json", strings.NewReader(`{"query":{"match_all":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "ok" {
		t.Fatalf("search: %d %q", resp.StatusCode, b)
	}
	for i := 0; i < 2; i++ {
		if got := <-bodies; got != `POST /v1/elastic/ori_*/_search {"query":{"match_all":{}}}` {
			t.Errorf("upstream saw %q", got)
		}
	}
	if conns.Load() != 2 || requests.Load() != 3 {
		t.Errorf("connections %d requests %d, want 2 and 3", conns.Load(), requests.Load())
	}
	// And the new connection is pooled: more requests open none.
	for i := 0; i < 5; i++ {
		get(t, base+"/x")
		<-bodies
	}
	if conns.Load() != 2 {
		t.Errorf("connections %d after 5 more requests, want still 2", conns.Load())
	}
}

func TestCaddyAllHostsFullWaitsThen503(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 4)
	h := func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
		io.WriteString(w, "found")
	}
	a := newCountingServer(t, h)
	b := newCountingServer(t, h)
	base := serve(t, "opentk", fmt.Sprintf(`platform_proxy opentk %s %s {
				max_searches_per_host 1
				queue_wait 10ms
			}`, a.URL, b.URL+"/tkconv"))
	done := make(chan int, 2)
	for i := 0; i < 2; i++ {
		go func() {
			resp, err := http.Post(base+"/search", "application/x-www-form-urlencoded", strings.NewReader("q=stikstof"))
			if err != nil {
				done <- 0
				return
			}
			resp.Body.Close()
			done <- resp.StatusCode
		}()
		<-arrived
	}
	resp, err := http.Post(base+"/search", "application/x-www-form-urlencoded", strings.NewReader("q=stikstof"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("all hosts full after the wait: %d Retry-After %q, want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	close(release)
	for i := 0; i < 2; i++ {
		if c := <-done; c != 200 {
			t.Errorf("search %d: %d", i, c)
		}
	}
	if a.requests.Load() != 1 || b.requests.Load() != 1 {
		t.Errorf("requests a=%d b=%d: one search per host, the refused one sent nowhere", a.requests.Load(), b.requests.Load())
	}
}

func TestCaddyCallerHangUpCancelsUpstreamAndFreesPlace(t *testing.T) {
	upstreamSawEnd := make(chan struct{}, 1)
	a := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/stream" {
			io.WriteString(w, "first part ")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			upstreamSawEnd <- struct{}{}
			return
		}
		io.WriteString(w, "next")
	})
	base := serve(t, "oa", fmt.Sprintf(`platform_proxy oa %s {
				max_requests_per_host 1
				queue_wait 10ms
			}`, a.URL))
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/stream", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	<-upstreamSawEnd
	// The one place on the host is free again: the next call gets in
	// (if it were still held, queue_wait 10ms would end in a 503). The
	// place is freed when the handler returns; poll for it.
	var code int
	var body string
	for i := 0; i < 200; i++ {
		code, _, body = get(t, base+"/next")
		if code == 200 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if code != 200 || body != "next" {
		t.Fatalf("after hang-up: %d %q", code, body)
	}
	if n := a.requests.Load(); n < 2 {
		t.Errorf("upstream requests %d", n)
	}
}

func TestCaddyLongSilentAnswerCompletes(t *testing.T) {
	testtier.Full(t, "1.5 s of real silence: the kernel's keep-alive timers cannot be faked")
	a := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(1500 * time.Millisecond) // longer than every timeout configured below
		io.WriteString(w, "complete")
	})
	base := serve(t, "rechtspraak", fmt.Sprintf(`platform_proxy rechtspraak %s {
				dial_timeout 200ms
				idle_timeout 1100ms
				probe_interval 1s
				queue_wait 200ms
			}`, a.URL))
	if code, _, body := get(t, base+"/uitspraken/zoeken"); code != 200 || body != "complete" {
		t.Fatalf("got %d %q", code, body)
	}
	if a.requests.Load() != 1 {
		t.Errorf("upstream saw %d requests, want exactly 1", a.requests.Load())
	}
}

func TestCaddyRedirectsAndPrivateAddresses(t *testing.T) {
	other := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {})
	a := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/tkconv/get/2023D41173":
			http.Redirect(w, r, "/tkconv/getdoc/2023D41173", http.StatusMovedPermanently)
		default:
			http.Redirect(w, r, other.URL+"/x", http.StatusFound)
		}
	})
	t.Run("loopback refused without allow_private", func(t *testing.T) {
		base := serveWith(t, "", "opentk", "platform_proxy opentk "+a.URL+"/tkconv")
		if code, _, _ := get(t, base+"/get/2023D41173"); code != 502 {
			t.Errorf("loopback upstream without allow_private: %d, want 502", code)
		}
		if a.conns.Load() != 0 {
			t.Error("the loopback upstream was contacted")
		}
	})
	t.Run("redirects within the platform rewritten, others refused", func(t *testing.T) {
		base := serveWith(t, "", "opentk", "platform_proxy opentk "+a.URL+"/tkconv {\n allow_private 127.0.0.1/32\n}")
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := client.Get(base + "/get/2023D41173")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 301 || resp.Header.Get("Location") != "/platforms/opentk/getdoc/2023D41173" {
			t.Errorf("got %d Location %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		resp, err = client.Get(base + "/elsewhere")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		// Off the platform: refused, never passed on (an open redirect).
		if resp.StatusCode != 502 || resp.Header.Get("Location") != "" {
			t.Errorf("got %d Location %q, want 502 without Location", resp.StatusCode, resp.Header.Get("Location"))
		}
		if other.requests.Load() != 0 || a.requests.Load() != 2 {
			t.Errorf("other host saw %d, platform saw %d: redirects must not be followed", other.requests.Load(), a.requests.Load())
		}
	})
}

func TestUnmarshalCaddyfileUpstreamOptions(t *testing.T) {
	good := `platform_proxy opentk https://opentk.nl https://berthub.eu/tkconv {
		probe_interval 15s
		response_header_timeout 90s
		attempts 2
		max_requests_per_host 8
		max_searches_per_host 3
		queue_wait 20s
		search_paths /search /search/*
		allow_private 10.0.0.0/8 192.168.1.5
		redirect_prefix off
		tls_ca /etc/ssl/mirror.pem
	}`
	var h Handler
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(good)); err != nil {
		t.Fatal(err)
	}
	if h.Attempts != 2 || h.MaxRequestsPerHost != 8 || h.MaxSearchesPerHost != 3 || len(h.SearchPaths) != 2 ||
		len(h.AllowPrivate) != 2 || h.RedirectPrefix != "off" || h.TLSCA != "/etc/ssl/mirror.pem" ||
		time.Duration(h.QueueWait) != 20*time.Second || time.Duration(h.ProbeInterval) != 15*time.Second ||
		time.Duration(h.ResponseHeaderTimeout) != 90*time.Second {
		t.Errorf("parsed %+v", h)
	}
	var off Handler
	if err := off.UnmarshalCaddyfile(caddyfile.NewTestDispenser("platform_proxy ori {\n search_paths off\n}")); err != nil || len(off.SearchPaths) != 1 || off.SearchPaths[0] != "off" {
		t.Errorf("search_paths off: %v %#v", err, off.SearchPaths)
	}
	// "off" survives the Caddyfile -> JSON adaptation.
	port := testproc.FreePort(t)
	js := string(testcaddy.Adapt(t, fmt.Sprintf(":%d {\n\tplatform_proxy ori {\n\t\tsearch_paths off\n\t}\n}", port)))
	if !strings.Contains(js, `"search_paths":["off"]`) {
		t.Errorf("adapted JSON lost search_paths off: %s", js)
	}
	for name, bad := range map[string]string{
		"bad cidr":         "platform_proxy obv {\n allow_private 10.0.0.0/99\n}",
		"no cidr":          "platform_proxy obv {\n allow_private\n}",
		"bad pattern":      "platform_proxy obv {\n search_paths [\n}",
		"relative pattern": "platform_proxy obv {\n search_paths search\n}",
		"zero attempts":    "platform_proxy obv {\n attempts 0\n}",
		"zero wait":        "platform_proxy obv {\n queue_wait 0s\n}",
		"zero header wait": "platform_proxy obv {\n response_header_timeout 0s\n}",
		"bad prefix":       "platform_proxy obv {\n redirect_prefix platforms\n}",
	} {
		var h Handler
		if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(bad)); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

// {http.platform_proxy.sent} tells the handlers around the proxy, and
// handle_errors, whether any platform received the request: 0 for a
// refused dial, 1 for a request the platform read and then hung up on.
func TestCaddySentPlaceholder(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			http.ReadRequest(bufio.NewReader(c)) // read it, answer nothing
			c.Close()
		}
	}()
	port := testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin off
%s}
:%d {
	handle_path /platforms/rechtspraak/* {
		platform_proxy rechtspraak http://%s
	}
	handle_path /platforms/oa/* {
		platform_proxy oa %s
	}
	handle_errors {
		respond "{err.status_code} sent={http.platform_proxy.sent}"
	}
}`, allowLoopback, port, ln.Addr(), closedPortURL(t)))
	for path, want := range map[string]string{
		"/platforms/rechtspraak/uitspraken/zoeken": "502 sent=1",
		"/platforms/oa/api/search":                 "502 sent=0",
	} {
		if _, _, body := get(t, fmt.Sprintf("http://127.0.0.1:%d%s", port, path)); body != want {
			t.Errorf("%s: %q, want %q", path, body, want)
		}
	}
}

func closedPortURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}
