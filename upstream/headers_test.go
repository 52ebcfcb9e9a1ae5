package upstream

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

func TestOnlyWhatAPlatformNeedsIsSent(t *testing.T) {
	var got http.Header
	a := newCounted(t, func(w http.ResponseWriter, r *http.Request) { got = r.Header.Clone() })
	p := newTestProxy(t, []string{a.URL}, Options{UserAgent: "BesluitBron/test", SearchPaths: []string{"/search"}})
	req, _ := http.NewRequest("POST", "http://placeholder/search", strings.NewReader("q=woningbouw"))
	in := http.Header{
		"Content-Type":        {"application/x-www-form-urlencoded"},
		"Accept":              {"application/json"},
		"Authorization":       {"Bearer client-secret"},
		"Cookie":              {"session=abc"},
		"Mcp-Session-Id":      {"mcp-123"},
		"Besluitbron-Session": {"made-up"},
		"Proxy-Authorization": {"Basic eA=="},
		"Proxy-Connection":    {"keep-alive"},
		"Keep-Alive":          {"timeout=5"},
		"Te":                  {"trailers"},
		"Trailer":             {"X-Late"},
		"Upgrade":             {"websocket"},
		"Idempotency-Key":     {"client-chosen"},
		"X-Forwarded-For":     {"203.0.113.1"},
		"Forwarded":           {"for=203.0.113.1"},
		// Hostile: names the Connection header lists, in another case,
		// and header keys that are not canonical (a map built by hand).
		"Connection":             {"close, X-Secret-Token", " x-other-hop "},
		"X-Secret-Token":         {"s3cret"},
		"X-Other-Hop":            {"1"},
		"cookie":                 {"lower=1"},
		"authorization":          {"lower"},
		"besluitbron-anything":   {"x"},
		"BESLUITBRON-SUBREQUEST": {"1"},
		"mcp-session-id":         {"lower"},
		"proxy-authorization":    {"lower"},
	}
	req.Header = in.Clone()
	resp, err := p.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for name := range in {
		switch http.CanonicalHeaderKey(name) {
		case "Content-Type", "Accept":
			if got.Get(name) != in.Get(name) {
				t.Errorf("%s = %q, want it passed on", name, got.Get(name))
			}
		default:
			if v, ok := got[http.CanonicalHeaderKey(name)]; ok {
				t.Errorf("%s reached the platform: %q", name, v)
			}
		}
	}
	if got.Get("User-Agent") != "BesluitBron/test" {
		t.Errorf("User-Agent %q", got.Get("User-Agent"))
	}
	// The incoming request is left as it was (a failover builds its
	// request from it again).
	if req.Header.Get("Cookie") != "session=abc" || req.Header.Get("Connection") == "" {
		t.Errorf("incoming headers changed: %v", req.Header)
	}
}

func TestClientIdempotencyKeyDoesNotMakeAPostResendable(t *testing.T) {
	// net/http resends a request carrying Idempotency-Key on a new
	// connection; a client must not be able to buy that for a POST that
	// is not a search.
	up := staleServer(t)
	p := newTestProxy(t, []string{up.URL()}, Options{SearchPaths: []string{"/search"}})
	if _, _, err := do(t, p, context.Background(), "GET", "/warm", ""); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", "http://placeholder/other", strings.NewReader("x=1"))
	req.Header.Set("Idempotency-Key", "mine")
	req.Header.Set("X-Idempotency-Key", "mine")
	if resp, err := p.RoundTrip(req); err == nil {
		resp.Body.Close()
		t.Fatal("a POST that is not a search was resent on a new connection")
	}
	if n := up.conns.Load(); n != 1 {
		t.Errorf("connections = %d, want 1 (no resend)", n)
	}
}
