package mcp

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/internal/redistest"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/sharedstore"
)

const toolsList = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

// instance is one BesluitBron instance at the Go level: a session registry
// on the shared store and its connectors, each served as the mcp handler
// serves it (refuseUnknownSession, then mcp-go).
type instance struct {
	reg  *session.Registry
	urls map[string]string
}

func newInstance(t *testing.T, o sharedstore.Options, names ...string) *instance {
	t.Helper()
	st := redistest.Open(t, o)
	in := &instance{reg: session.NewRegistry(1000, 24*time.Hour, nil), urls: map[string]string{}}
	in.reg.Share(st)
	t.Cleanup(func() { _ = in.reg.Destruct() })
	for _, name := range names {
		c := newConnector(name, time.Hour, in.reg)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !c.refuseUnknownSession(w, r) {
				c.http.ServeHTTP(w, r)
			}
		}))
		t.Cleanup(func() { srv.Close(); _ = c.Destruct() })
		in.urls[name] = srv.URL
	}
	return in
}

func initialize(t *testing.T, url string) string {
	t.Helper()
	resp, _ := post(t, url, "", "", legacyInit, map[string]string{"Mcp-Protocol-Version": "2025-11-25"})
	sid := resp.Header.Get(session.MCPHeader)
	if resp.StatusCode != 200 || !strings.HasPrefix(sid, idPrefix) {
		t.Fatalf("initialize: HTTP %d, session %q", resp.StatusCode, sid)
	}
	return sid
}

// A session issued through connector raad on instance 1 works at raad on
// instance 2, is unknown at rijk there, and ends on instance 1 when the
// client ends it (DELETE) on instance 2. Made-up ids are refused on both.
func TestSharedSessionAcrossInstances(t *testing.T) {
	prefix := redistest.Prefix(t)
	one := newInstance(t, sharedstore.Options{Prefix: prefix}, "raad")
	two := newInstance(t, sharedstore.Options{Prefix: prefix}, "raad", "rijk")

	sid := initialize(t, one.urls["raad"])
	if code, body := send(t, "POST", two.urls["raad"], sid, toolsList); code != 200 || !strings.Contains(body, `"tools":[`) {
		t.Fatalf("raad on instance 2: HTTP %d %s", code, body)
	}
	for _, m := range []string{"POST", "GET", "DELETE"} {
		if code, _ := send(t, m, two.urls["rijk"], sid, toolsList); code != 404 {
			t.Fatalf("%s at rijk on instance 2 with raad's session: HTTP %d, want 404", m, code)
		}
	}
	for _, id := range []string{idPrefix + uuid.NewString(), idPrefix + "made-up", "made-up"} {
		for _, in := range []*instance{one, two} {
			if code, _ := send(t, "POST", in.urls["raad"], id, toolsList); code != 404 {
				t.Fatalf("made-up id %q: HTTP %d, want 404", id, code)
			}
		}
	}
	if code, _ := send(t, "POST", one.urls["raad"], sid, toolsList); code != 200 {
		t.Fatalf("raad on instance 1 after rijk's refusals: HTTP %d", code)
	}

	if code, _ := send(t, "DELETE", two.urls["raad"], sid, ""); code != 200 {
		t.Fatalf("DELETE on instance 2: HTTP %d", code)
	}
	if code, _ := send(t, "POST", two.urls["raad"], sid, toolsList); code != 404 {
		t.Fatalf("instance 2 after the DELETE: HTTP %d, want 404", code)
	}
	// Instance 1 hears of it by the end notice (a hint: poll, bounded; the
	// registry's refresh catches a lost one, see the session package).
	deadline := time.Now().Add(5 * time.Second)
	for one.reg.IssuedBy(sid, "raad") {
		if time.Now().After(deadline) {
			t.Fatal("instance 1 still knows the session the client ended on instance 2")
		}
		time.Sleep(5 * time.Millisecond) // waiting for the notice
	}
	if code, _ := send(t, "POST", one.urls["raad"], sid, toolsList); code != 404 {
		t.Fatalf("instance 1 after the DELETE on instance 2: HTTP %d, want 404", code)
	}
	for k, ttl := range redistest.Keys(t, prefix) {
		t.Fatalf("key %s (TTL %s) left after the only session ended", k, ttl)
	}
}

// mcp-go's idle sweep and shutdown end a session on this instance only
// (it knows only its own use of it); a client's DELETE ends it everywhere.
func TestSharedSessionSweepIsLocal(t *testing.T) {
	prefix := redistest.Prefix(t)
	one := newInstance(t, sharedstore.Options{Prefix: prefix})
	two := newInstance(t, sharedstore.Options{Prefix: prefix})
	ids := issuedIDs{reg: one.reg, connector: "raad", ttl: time.Hour}
	sid := ids.Generate()
	keys := redistest.Keys(t, prefix)
	if ttl := keys[prefix+":sess:"+sid]; ttl <= 59*time.Minute || ttl > time.Hour {
		t.Fatalf("key TTL %s, want the connector's idle time 1h (keys %v)", ttl, keys)
	}
	swept := idResolver{ids}.ResolveSessionIdManager(nil)
	if _, err := swept.Terminate(sid); err != nil {
		t.Fatal(err)
	}
	if !two.reg.IssuedBy(sid, "raad") {
		t.Fatal("a sweep on instance 1 ended the session on instance 2")
	}
	del, _ := http.NewRequest(http.MethodDelete, "/", nil)
	if _, err := (idResolver{ids}).ResolveSessionIdManager(del).Terminate(sid); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := (issuedIDs{reg: two.reg, connector: "raad"}).Validate(sid); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("instance 2 accepts a session ended by DELETE on instance 1")
		}
		time.Sleep(5 * time.Millisecond) // waiting for the end notice
	}
}

// Redis cut: the session this instance knows goes on; an id of our form
// issued elsewhere is accepted unverified (no honest request lost) and is
// no session for the limits; an id not of our form is still refused.
func TestSharedSessionRedisCutConnector(t *testing.T) {
	prefix := redistest.Prefix(t)
	proxy := redistest.NewProxy(t)
	one := newInstance(t, sharedstore.Options{Prefix: prefix, URL: proxy.URL(), ProbeEvery: 10 * time.Millisecond}, "raad")
	two := newInstance(t, sharedstore.Options{Prefix: prefix}, "raad")
	known := initialize(t, one.urls["raad"])
	elsewhere := initialize(t, two.urls["raad"])

	proxy.Cut()
	for _, sid := range []string{known, elsewhere, idPrefix + uuid.NewString()} {
		if code, body := send(t, "POST", one.urls["raad"], sid, toolsList); code != 200 {
			t.Fatalf("session %s while Redis is cut: HTTP %d %s", sid, code, body)
		}
	}
	if one.reg.Has(elsewhere) {
		t.Fatal("an unverified id counts as a session for the limits")
	}
	if code, _ := send(t, "POST", one.urls["raad"], idPrefix+"not-a-uuid", toolsList); code != 404 {
		t.Fatalf("an id not of our form while Redis is cut: HTTP %d, want 404", code)
	}
	fresh := initialize(t, one.urls["raad"]) // issued during the cut
	proxy.Restore()
	deadline := time.Now().Add(10 * time.Second)
	for one.reg.SharedStatus().Mode != "shared" || one.reg.SharedStatus().Pending != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no rejoin: %+v", one.reg.SharedStatus())
		}
		time.Sleep(5 * time.Millisecond) // polling for the probe's rejoin
	}
	if code, _ := send(t, "POST", two.urls["raad"], fresh, toolsList); code != 200 {
		t.Fatalf("the session issued during the cut, on instance 2 after the rejoin: HTTP %d", code)
	}
	if !one.reg.Has(elsewhere) {
		t.Fatal("after the rejoin the other instance's session is not a session here")
	}
}

// Through Caddy: with the besluitbron app's store set, the connector's
// sessions land in Redis with the connector's session_idle as TTL, and
// another instance on the same store accepts them.
func TestSharedSessionThroughCaddy(t *testing.T) {
	prefix := redistest.Prefix(t)
	f := newFakePlatforms(t)
	port := testproc.FreePort(t)
	cfg := fakeSite(t, f, port, `	handle /mcp/raad {
		mcp raad {
			platforms obv
			session_idle 30m
		}
	}`)
	cfg = strings.Replace(cfg, "persist_config off\n", fmt.Sprintf("persist_config off\n\tbesluitbron {\n\t\tstore %s\n\t\tstore_prefix %s\n\t}\n", redistest.URL(), prefix), 1)
	testcaddy.Load(t, cfg)
	sid := initialize(t, fmt.Sprintf("http://127.0.0.1:%d/mcp/raad", port))
	key := prefix + ":sess:" + sid
	if ttl := redistest.Keys(t, prefix)[key]; ttl <= 29*time.Minute || ttl > 30*time.Minute {
		t.Fatalf("%s: TTL %s, want session_idle 30m", key, ttl)
	}
	two := newInstance(t, sharedstore.Options{Prefix: prefix}, "raad")
	if code, _ := send(t, "POST", two.urls["raad"], sid, toolsList); code != 200 {
		t.Fatalf("the Caddy instance's session on instance 2: HTTP %d", code)
	}
	if st := issuedRegistry(t).SharedStatus(); st.Mode != "shared" {
		t.Fatalf("the app's registry: %+v, want shared", st)
	}
}
