package clientlimit

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/besluitbron/besluitbron/inbound"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

// A browser that navigates into a limit gets a page it can show, in Dutch
// and English, with the wait and a link back to what it asked for; an app
// asking for JSON, fetch() and EventSource still get the JSON body.
func TestBrowserGetsARefusalPage(t *testing.T) {
	clock := fakeclock.New(t0)
	ctx, _ := newConfig(t)
	h := provisionOn(t, ctx, clock, &Handler{Zone: "t-page", Process: off, Connector: off, Session: off, Address: lc("2/m", 1)})
	ask := func(target, accept string) *httptest.ResponseRecorder {
		t.Helper()
		r := httptest.NewRequest("GET", target, nil)
		r.RemoteAddr = "192.0.2.9:4000"
		r.Header.Set("Accept", accept)
		w, err := serve(h, r)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	if w := ask("/search?q=stikstof", browserAccept); w.Code != 200 {
		t.Fatalf("first search: %d", w.Code)
	}

	// A hostile query string comes back escaped in the link.
	w := ask(`/search?q="><script>alert(1)</script>&x=1`, browserAccept)
	page := w.Body.String()
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Content-Type") != "text/html; charset=utf-8" ||
		w.Header().Get("Retry-After") != "30" || w.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("browser refused: %d %v", w.Code, w.Header())
	}
	for _, want := range []string{
		`<html lang="nl">`, "<h1>Te veel verzoeken</h1>", "van dit adres", "over 30 seconden opnieuw",
		`<div lang="en">`, "from this address", "try again in 30 seconds",
		`href="/search?q=%22%3e%3cscript%3ealert%281%29%3c/script%3e&amp;x=1"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "<script>") || strings.Contains(page, "http-equiv") {
		t.Errorf("page carries a script or reloads by itself:\n%s", page)
	}
	if w.Header().Get("Content-Length") != "" && w.Header().Get("Content-Length") != strconv.Itoa(len(page)) {
		t.Errorf("Content-Length %s for %d bytes", w.Header().Get("Content-Length"), len(page))
	}

	// One second left: singular.
	clock.AdvanceTo(t0.Add(29 * time.Second))
	if page := ask("/search?q=x", browserAccept).Body.String(); !strings.Contains(page, "over 1 seconde opnieuw") ||
		!strings.Contains(page, "in 1 second.") {
		t.Errorf("one second left:\n%s", page)
	}

	for _, accept := range []string{"application/json", "*/*", "text/event-stream", ""} {
		w := ask("/search?q=x", accept)
		if w.Code != http.StatusTooManyRequests || w.Header().Get("Content-Type") != "application/json" ||
			!strings.HasPrefix(w.Body.String(), `{"error":"rate_limited","layer":"address","zone":"t-page",`) {
			t.Errorf("Accept %q: %d %s %s", accept, w.Code, w.Header().Get("Content-Type"), w.Body)
		}
	}
}

// The link to try again is the address the client asked for before a
// handle_path stripped it, and never leaves the site.
func TestRefusalPageLinkStaysOnTheSite(t *testing.T) {
	for _, c := range []struct{ asked, rewritten, want string }{
		{"/platforms/obv/api/search?query=x", "/api/search?query=x", `href="/platforms/obv/api/search?query=x"`},
		{"//elsewhere.example/search?q=x", "//elsewhere.example/search?q=x", `href="/elsewhere.example/search?q=x"`},
		{"/\\elsewhere.example/", "/\\elsewhere.example/", `href="/%5Celsewhere.example/"`}, // escaped: a path on this site
	} {
		orig := httptest.NewRequest("GET", "http://site.example"+c.asked, nil)
		r := orig.Clone(context.WithValue(orig.Context(), caddyhttp.OriginalRequestCtxKey, *orig))
		r.URL.Path, r.URL.RawQuery, _ = strings.Cut(c.rewritten, "?")
		r.URL.RawPath = ""
		w := httptest.NewRecorder()
		writeRefusalPage(w, r, inbound.LayerAddress, 2)
		if page := w.Body.String(); !strings.Contains(page, c.want) {
			t.Errorf("asked %q: page lacks %s:\n%s", c.asked, c.want, page)
		}
	}
}
