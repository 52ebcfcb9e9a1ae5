package platformproxy

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/besluitbron/besluitbron/caddymodule/app"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/platforms"
	up "github.com/besluitbron/besluitbron/upstream"
)

// provisionAlone provisions h in a context of the running config (which
// reverse_proxy needs), as a reload provisions the new config's handlers
// while the old ones still serve.
func provisionAlone(t *testing.T, h *Handler) {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.ActiveContext())
	t.Cleanup(cancel)
	if err := h.Provision(ctx); err != nil {
		t.Fatal(err)
	}
}

func roundTrip(p *up.Proxy, path string) (*http.Response, error) {
	req, _ := http.NewRequest("GET", "http://platform"+path, nil)
	return p.RoundTrip(req)
}

func mustGet(t *testing.T, p *up.Proxy, path string) {
	t.Helper()
	resp, err := roundTrip(p, path)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// A reload provisions new handlers while the old ones finish their
// requests: the new config must share the hosts' pools (no new connection)
// and in-flight counts (OpenTK's 2 searches per host stay 2 between both
// configs, never 2 each).
func TestReloadKeepsPoolsAndNeverDoublesACap(t *testing.T) {
	arrived := make(chan string, 10)
	release := make(chan struct{})
	a := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/search" {
			arrived <- r.URL.RawQuery
			<-release
		}
		fmt.Fprint(w, "ok")
	})
	released := false
	defer func() {
		if !released {
			close(release)
		}
	}()
	cfg := func() *Handler {
		return &Handler{Platform: platforms.OpenTK, BaseURLs: []string{a.URL}, AllowPrivate: []string{"127.0.0.1/8"},
			QueueWait: caddy.Duration(time.Millisecond)}
	}
	testcaddy.Load(t, fmt.Sprintf("{\n\tadmin off\n}\n:%d {\n\trespond ok\n}\n", testproc.FreePort(t)))
	old := cfg()
	provisionAlone(t, old)
	if old.MaxSearchesPerHost != 2 {
		t.Fatalf("OpenTK's cap from the table: %d, want 2", old.MaxSearchesPerHost)
	}
	mustGet(t, old.up, "/getdoc/1")

	// Two searches hold the old config's places.
	done := make(chan error, 2)
	for i := range 2 {
		go func() {
			resp, err := roundTrip(old.up, fmt.Sprintf("/search?q=%d", i))
			if err == nil {
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			done <- err
		}()
	}
	<-arrived
	<-arrived

	// The reload: a new handler of the same platform.
	cur := cfg()
	provisionAlone(t, cur)
	if r, s := cur.up.Selector().InFlight(0); r != 2 || s != 2 {
		t.Fatalf("the new config sees %d requests, %d searches in flight on the host, want 2, 2", r, s)
	}
	third := make(chan error, 1)
	go func() {
		resp, err := roundTrip(cur.up, "/search?q=third")
		if err == nil {
			resp.Body.Close()
		}
		third <- err
	}()
	select {
	case q := <-arrived:
		t.Fatalf("search %q reached the host beside the old config's two: the cap doubled", q)
	case err := <-third:
		if !errors.Is(err, up.ErrNoPlace) {
			t.Fatalf("third search: %v, want ErrNoPlace", err)
		}
	}

	// The old config is cleaned up; its searches finish.
	if err := old.Cleanup(); err != nil {
		t.Fatal(err)
	}
	close(release)
	released = true
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	conns := a.conns.Load()
	mustGet(t, cur.up, "/getdoc/2")
	if a.conns.Load() != conns {
		t.Errorf("the new config opened a connection (%d → %d): the pooled ones were dropped at the reload", conns, a.conns.Load())
	}
	if r, s := cur.up.Selector().InFlight(0); r != 0 || s != 0 {
		t.Errorf("places left taken: %d, %d", r, s)
	}
	if err := cur.Cleanup(); err != nil {
		t.Fatal(err)
	}
}

// A config that fails to load leaves the running one as it was: its base
// URLs (for CheckURL), its pooled connections, its hosts.
func TestFailedReloadLeavesTheRunningConfigAlone(t *testing.T) {
	a := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "a") })
	b := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "b") })
	port := testproc.FreePort(t)
	config := func(base, extra string) string {
		return fmt.Sprintf(`{
	admin off
	besluitbron {
		allow_private 127.0.0.1/8
		platform ob {
			base_url %s
		}
	}
}
:%d {
	handle_path /platforms/ob/* {
		platform_proxy ob
	}
%s
}`, base, port, extra)
	}
	testcaddy.Load(t, config(a.URL, ""))
	url := fmt.Sprintf("http://127.0.0.1:%d/platforms/ob/sru", port)
	if code, _, body := get(t, url); code != 200 || body != "a" {
		t.Fatalf("%d %s", code, body)
	}
	// The base URLs links are checked against: the running config's.
	bases := func() string {
		v, err := caddy.ActiveContext().App(app.ID)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(v.(*app.App).LinkBaseURLs(platforms.OB), " ")
	}
	if !strings.Contains(bases(), a.URL) {
		t.Fatalf("running base URLs: %s", bases())
	}

	// The new config points ob elsewhere, but another handler fails.
	bad := config(b.URL, `	handle_path /platforms/tk/* {
		platform_proxy tk http://127.0.0.1:1 http://127.0.0.1:1
	}`)
	err := caddy.Load(testcaddy.WithoutPersistence(t, testcaddy.Adapt(t, bad)), true)
	if err == nil || !strings.Contains(err.Error(), "repeats host") {
		t.Fatalf("the broken config loaded: %v", err)
	}
	if code, _, body := get(t, url); code != 200 || body != "a" {
		t.Fatalf("after the failed reload: %d %s", code, body)
	}
	if a.conns.Load() != 1 || b.requests.Load() != 0 {
		t.Errorf("connections to a: %d (want the one pooled), requests to b: %d", a.conns.Load(), b.requests.Load())
	}
	if got := bases(); !strings.Contains(got, a.URL) || strings.Contains(got, b.URL) {
		t.Errorf("base URLs after the failed reload: %s", got)
	}

	// A reload that loads puts its base URL in force.
	testcaddy.Reload(t, config(b.URL, ""))
	if code, _, body := getWith(t, &http.Client{Transport: testcaddy.AcrossReloads}, url); code != 200 || body != "b" {
		t.Fatalf("after the reload: %d %s", code, body)
	}
	if got := bases(); !strings.Contains(got, b.URL) || strings.Contains(got, a.URL) {
		t.Errorf("base URLs after the reload: %s", got)
	}
}

// TestReloadAnswersFromTheNewConfig: the first new connection after
// testcaddy.Reload reaches the new config. caddy.Load returns before the
// old servers' listeners are closed, so without Reload's wait the kernel
// could hand it to the old config (internal/testcaddy/oldlisteners.go);
// every test that reloads and then asks relies on this.
func TestReloadAnswersFromTheNewConfig(t *testing.T) {
	port := testproc.FreePort(t)
	config := func(answer int) string {
		return fmt.Sprintf("{\n\tadmin off\n}\n:%d {\n\trespond \"%d\"\n}\n", port, answer)
	}
	testcaddy.Load(t, config(0))
	client := &http.Client{Transport: testcaddy.AcrossReloads}
	url := fmt.Sprintf("http://127.0.0.1:%d/", port)
	for i := 1; i <= 20; i++ {
		testcaddy.Reload(t, config(i))
		if code, _, body := getWith(t, client, url); code != 200 || body != fmt.Sprint(i) {
			t.Fatalf("reload %d: the first new connection got %d %q from an older config", i, code, body)
		}
	}
}
