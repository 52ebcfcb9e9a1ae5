package platformproxy

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	_ "github.com/besluitbron/besluitbron/caddymodule/platformcache"
)

// reflecting is a platform page that echoes its q parameter into HTML and
// sets a cookie: what an attacker would look for on a platform to run
// script, or plant a cookie, on BesluitBron's origin.
func reflecting(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html")
	if r.URL.Query().Has("cookie") {
		http.SetCookie(w, &http.Cookie{Name: "platform_session", Value: "abc", Path: "/"})
	}
	w.Header().Set("Refresh", "0; url=https://evil.example/")
	_, _ = w.Write([]byte("<html><body>Results for " + r.URL.Query().Get("q") + "</body></html>"))
}

// assertInert checks what a browser needs to treat an answer as inert on
// our origin: no sniffing, a sandboxed document (opaque origin, no
// script), no cookie set, no navigation away.
func assertInert(t *testing.T, what string, h http.Header) {
	t.Helper()
	if got := h.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("%s: X-Content-Type-Options %q, want nosniff", what, got)
	}
	sandboxed := false
	for _, v := range h.Values("Content-Security-Policy") {
		if strings.TrimSpace(v) == "sandbox" {
			sandboxed = true
		}
	}
	if !sandboxed {
		t.Errorf("%s: Content-Security-Policy %q, want one policy \"sandbox\"", what, h.Values("Content-Security-Policy"))
	}
	for _, k := range []string{"Set-Cookie", "Refresh"} {
		if v := h.Values(k); len(v) > 0 {
			t.Errorf("%s: %s %q reached the caller", what, k, v)
		}
	}
}

// TestProxiedAnswersAreInert: a platform page reflecting HTML, with a
// Set-Cookie, through platform_proxy alone and behind platform_cache (miss,
// hit, bypass): every answer carries nosniff and a sandbox CSP, and no
// cookie reaches the caller.
func TestProxiedAnswersAreInert(t *testing.T) {
	up := newCountingServer(t, reflecting)
	const xss = "%3Cscript%3Ealert(document.cookie)%3C%2Fscript%3E"

	t.Run("platform_proxy", func(t *testing.T) {
		base := serve(t, "opentk", "platform_proxy opentk "+up.URL)
		code, h, body := get(t, base+"/search/index.xml?cookie=1&q="+xss)
		if code != 200 || !strings.Contains(body, "<script>") {
			t.Fatalf("%d %q: want the platform's page", code, body)
		}
		assertInert(t, "proxied", h)
	})
	t.Run("platform_cache", func(t *testing.T) {
		base := serve(t, "opentk", "platform_cache opentk\n\t\t\tplatform_proxy opentk "+up.URL)
		// An answer that set a cookie is personal: inert, and never
		// stored (the proxy marks it no-store as it drops the cookie).
		for i := range 2 {
			_, withCookie, _ := get(t, base+"/search/index.xml?cookie=1&q="+xss)
			assertInert(t, "miss with a cookie", withCookie)
			if !strings.Contains(withCookie.Get("Cache-Status"), "fwd=miss") {
				t.Fatalf("answer %d with a cookie: Cache-Status %q, want a miss (never stored)", i+1, withCookie.Get("Cache-Status"))
			}
		}
		_, miss, _ := get(t, base+"/search/index.xml?q="+xss)
		assertInert(t, "miss", miss)
		_, hit, body := get(t, base+"/search/index.xml?q="+xss)
		if !strings.Contains(hit.Get("Cache-Status"), "hit") || !strings.Contains(body, "<script>") {
			t.Fatalf("Cache-Status %q, body %q: want a hit", hit.Get("Cache-Status"), body)
		}
		assertInert(t, "hit", hit)
		req, _ := http.NewRequest("GET", base+"/search/index.xml?q="+xss, nil)
		req.Header.Set("Cache-Control", "no-store")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if !strings.Contains(resp.Header.Get("Cache-Status"), "fwd=bypass") {
			t.Fatalf("Cache-Status %q: want a bypass", resp.Header.Get("Cache-Status"))
		}
		assertInert(t, "bypass", resp.Header)
	})
}

// TestRedirectOffPlatformIs502: a platform answer redirecting to a host
// outside the platform's base URLs would be an open redirect on our
// domain; it becomes a 502 whose JSON names the target. A redirect into
// the base URLs is rewritten to our route, as before.
func TestRedirectOffPlatformIs502(t *testing.T) {
	const evil = "https://evil.example/phish?from=besluitbron"
	up := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/tkconv/get/2023D41173":
			http.Redirect(w, r, "/tkconv/getdoc/2023D41173", http.StatusMovedPermanently)
		case "/tkconv/outside":
			http.Redirect(w, r, "/admin", http.StatusFound) // the platform's host, not below its base URL
		default:
			http.Redirect(w, r, evil, http.StatusFound)
		}
	})
	base := serve(t, "opentk", "platform_proxy opentk "+up.URL+"/tkconv")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	code, h, _ := getWith(t, client, base+"/get/2023D41173")
	if code != 301 || h.Get("Location") != "/platforms/opentk/getdoc/2023D41173" {
		t.Errorf("redirect within the base URL: %d Location %q", code, h.Get("Location"))
	}
	for path, target := range map[string]string{"/op/evil": evil, "/outside": up.URL + "/admin"} {
		code, h, body := getWith(t, client, base+path)
		if code != http.StatusBadGateway || h.Get("Location") != "" {
			t.Errorf("%s: %d Location %q, want 502 without Location", path, code, h.Get("Location"))
			continue
		}
		var r refusal
		if err := json.Unmarshal([]byte(body), &r); err != nil || r.Error != "redirect_off_platform" || r.Platform != "opentk" || !strings.Contains(r.Message, target) {
			t.Errorf("%s: body %s: want a JSON error naming %s", path, body, target)
		}
		assertInert(t, path, h)
	}
}
