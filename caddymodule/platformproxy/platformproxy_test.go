package platformproxy

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// seen is what an upstream received.
type seen struct {
	mu       sync.Mutex
	requests []*http.Request
}

func (s *seen) handler(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Clone(r.Context()))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, body)
	})
}

func (s *seen) last(t *testing.T) *http.Request {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		t.Fatal("upstream saw no request")
	}
	return s.requests[len(s.requests)-1]
}

func TestProxyRewritesToBaseURL(t *testing.T) {
	var up seen
	upstream := httptest.NewServer(up.handler("from upstream"))
	defer upstream.Close()

	port := testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin off
%s}
:%d {
	handle_path /platforms/ori/* {
		route {
			platform_proxy ori %s/v1/elastic {
				contact ops@example.org
			}
		}
	}
}`, allowLoopback, port, upstream.URL))

	req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d/platforms/ori/ori_*/_search?q=woningbouw&size=2", port), nil)
	req.Header.Set("X-Forwarded-For", "203.0.113.9")
	req.Header.Set("User-Agent", "curl/8")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "from upstream" {
		t.Fatalf("got %d %q", resp.StatusCode, body)
	}
	got := up.last(t)
	if got.URL.Path != "/v1/elastic/ori_*/_search" {
		t.Errorf("upstream path = %q, want the base URL's prefix plus the rest", got.URL.Path)
	}
	if got.URL.RawQuery != "q=woningbouw&size=2" {
		t.Errorf("upstream query = %q, want it kept", got.URL.RawQuery)
	}
	if want := strings.TrimPrefix(upstream.URL, "http://"); got.Host != want {
		t.Errorf("upstream Host = %q, want %q", got.Host, want)
	}
	ua := got.Header.Get("User-Agent")
	if !strings.HasPrefix(ua, "BesluitBron/") || !strings.Contains(ua, "ops@example.org") {
		t.Errorf("User-Agent = %q, want BesluitBron and the contact address", ua)
	}
	if xff := got.Header.Get("X-Forwarded-For"); xff != "" {
		t.Errorf("X-Forwarded-For = %q passed on to the platform", xff)
	}
}

func TestProxyTwoHostsWithOwnPrefixes(t *testing.T) {
	var a, b seen
	ua := httptest.NewServer(a.handler("a"))
	defer ua.Close()
	ub := httptest.NewServer(b.handler("b"))
	defer ub.Close()
	h := &Handler{Platform: "opentk", BaseURLs: []string{ua.URL, ub.URL + "/tkconv"}}
	port := testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin off
%s}
:%d {
	handle_path /platforms/opentk/* {
		route {
			platform_proxy opentk %s %s
		}
	}
}`, allowLoopback, port, h.BaseURLs[0], h.BaseURLs[1]))
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/platforms/opentk/getdoc/2023D41173", port))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if p := a.last(t).URL.Path; p != "/getdoc/2023D41173" {
		t.Errorf("first host path = %q", p)
	}

	// The second host gets its own prefix.
	u, err := parseBaseURL(ub.URL + "/tkconv")
	if err != nil {
		t.Fatal(err)
	}
	if u.prefix != "/tkconv" || u.scheme != "http" {
		t.Errorf("parsed %+v", u)
	}
}

func TestParseBaseURL(t *testing.T) {
	for _, tc := range []struct {
		in, dial, host, prefix string
	}{
		{"https://api.openraadsinformatie.nl/v1/elastic", "api.openraadsinformatie.nl:443", "api.openraadsinformatie.nl", "/v1/elastic"},
		{"https://berthub.eu/tkconv/", "berthub.eu:443", "berthub.eu", "/tkconv"},
		{"http://127.0.0.1:9101", "127.0.0.1:9101", "127.0.0.1:9101", ""},
	} {
		u, err := parseBaseURL(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if u.dial != tc.dial || u.host != tc.host || u.prefix != tc.prefix {
			t.Errorf("%s: got dial %q host %q prefix %q", tc.in, u.dial, u.host, u.prefix)
		}
	}
	for _, bad := range []string{"ftp://x", "https://", "https://x/?q=1", "://", "https://u:p@x"} {
		if _, err := parseBaseURL(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func TestUnmarshalCaddyfile(t *testing.T) {
	good := `platform_proxy opentk https://opentk.nl https://berthub.eu/tkconv {
		contact ops@example.org
		dial_timeout 3s
		idle_timeout 1m
		max_idle_conns_per_host 8
	}`
	var h Handler
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(good)); err != nil {
		t.Fatal(err)
	}
	if h.Platform != "opentk" || len(h.BaseURLs) != 2 || h.Contact != "ops@example.org" || h.MaxIdleConnsPerHost != 8 {
		t.Errorf("parsed %+v", h)
	}
	for name, bad := range map[string]string{
		"no platform":     `platform_proxy`,
		"unknown option":  "platform_proxy obv {\n frobnicate\n}",
		"bad duration":    "platform_proxy obv {\n dial_timeout soon\n}",
		"bad count":       "platform_proxy obv {\n max_idle_conns_per_host -1\n}",
		"extra arguments": "platform_proxy obv {\n contact a b\n}",
	} {
		var h Handler
		if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(bad)); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}
