package mcp

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

const legacyInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

// sendClient gives up on an answer that does not end (a GET that opened a
// listening stream), so such a test fails instead of hanging. No
// keep-alive: a reload closes the old server's idle connections, and a
// POST caught on one is not retried by net/http.
var sendClient = &http.Client{Timeout: 10 * time.Second, Transport: testcaddy.AcrossReloads}

// send makes one raw 2025-era request to a connector naming session sid
// ("" for none).
func send(t *testing.T, method, url, sid, body string) (int, string) {
	t.Helper()
	hdr := map[string]string{"Mcp-Protocol-Version": "2025-11-25"}
	if sid != "" {
		hdr[session.MCPHeader] = sid
	}
	resp, b := request(t, sendClient, method, url, "", "", body, hdr)
	return resp.StatusCode, b
}

// serveConnectors serves twoConnectors (raad, alles, rijk) over fake
// platforms on a free port; base is the URL the connectors' paths follow.
func serveConnectors(t *testing.T) (f *fakePlatforms, port int, base string) {
	t.Helper()
	fixturesPresent(t)
	f = newFakePlatforms(t)
	port = testproc.FreePort(t)
	testcaddy.Load(t, fakeSite(t, f, port, twoConnectors))
	return f, port, fmt.Sprintf("http://127.0.0.1:%d/mcp/", port)
}

// registered reports whether the named connector's mcp-go server holds a
// session with id sid (mcp-go answers ErrSessionNotFound otherwise).
func registered(t *testing.T, name, sid string) bool {
	t.Helper()
	err := pooled(t, name).mcp.SendLogMessageToSpecificClient(sid, mcpgo.LoggingMessageNotification{})
	return !errors.Is(err, server.ErrSessionNotFound)
}

// A session belongs to the connector that issued it: its id works there,
// before and after a reload, and is unknown at every other connector (404
// "Invalid session ID", the MCP transport's answer to an unknown session),
// for POST, GET and DELETE alike; the other connector neither registers
// it nor can end it.
func TestSessionBelongsToItsConnector(t *testing.T) {
	f, port, base := serveConnectors(t)
	raad, rijk := base+"raad", base+"rijk"
	const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

	resp, _ := post(t, raad, "", "", legacyInit, nil)
	sid := resp.Header.Get(session.MCPHeader)
	issued := issuedRegistry(t)
	if !issued.IssuedBy(sid, "raad") || issued.IssuedBy(sid, "rijk") || !issued.Has(sid) {
		t.Fatalf("id %q: issued by raad %v, by rijk %v, known %v", sid,
			issued.IssuedBy(sid, "raad"), issued.IssuedBy(sid, "rijk"), issued.Has(sid))
	}

	check := func(stage string) {
		t.Helper()
		if code, body := send(t, "POST", raad, sid, list); code != 200 || !strings.Contains(body, `"tools":[`) {
			t.Fatalf("%s: own connector: HTTP %d %s", stage, code, body)
		}
		for _, m := range []string{"POST", "GET", "DELETE"} {
			if code, body := send(t, m, rijk, sid, list); code != 404 || !strings.Contains(body, "Invalid session ID") {
				t.Fatalf("%s: %s with raad's id at rijk: HTTP %d %q, want 404 Invalid session ID", stage, m, code, body)
			}
		}
		if registered(t, "rijk", sid) {
			t.Fatalf("%s: rijk registered raad's session", stage)
		}
		if !issued.IssuedBy(sid, "raad") {
			t.Fatalf("%s: rijk's DELETE ended raad's session", stage)
		}
		if code, body := send(t, "POST", raad, sid, list); code != 200 {
			t.Fatalf("%s: own connector after rijk's refusals: HTTP %d %s", stage, code, body)
		}
	}
	check("before reload")

	testcaddy.Reload(t, fakeSite(t, f, port, strings.Replace(twoConnectors, "platforms tk opentk ob rechtspraak", "platforms tk ob", 1)))
	check("after reload")

	// The owner ends it; then it is unknown there too.
	if code, body := send(t, "DELETE", raad, sid, ""); code != 200 {
		t.Fatalf("DELETE at raad: HTTP %d %s", code, body)
	}
	if issued.Has(sid) {
		t.Fatal("ended session still issued")
	}
	if code, _ := send(t, "POST", raad, sid, list); code != 404 {
		t.Fatalf("ended session at raad: HTTP %d", code)
	}
}

// Hostile: thousands of made-up session ids at one connector, as POST,
// GET and DELETE, and GETs that name no session, are all refused and leave
// the registry and the connector's sessions as they were. (Before, a GET
// opened and registered a listening session for any id it named, and an
// id-less GET had a new id issued.)
func TestMadeUpSessionsDoNotGrowRegistry(t *testing.T) {
	_, _, base := serveConnectors(t)
	rijk := base + "rijk"
	issued := issuedRegistry(t)
	before := issued.Len()
	const n = 1000
	for i := range n {
		id := fmt.Sprintf("mcp-session-%08x-0000-4000-8000-000000000000", i)
		for _, m := range []string{"POST", "GET", "DELETE"} {
			if code, body := send(t, m, rijk, id, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); code != 404 {
				t.Fatalf("%s with made-up id: HTTP %d %s", m, code, body)
			}
		}
		if code, body := send(t, "GET", rijk, "", ""); code != 400 {
			t.Fatalf("GET without an id: HTTP %d %s", code, body)
		}
		if i%100 == 0 && registered(t, "rijk", id) {
			t.Fatalf("rijk registered made-up %s", id)
		}
	}
	if got := issued.Len(); got != before {
		t.Fatalf("registry went from %d to %d ids", before, got)
	}
	// The honest client next to them still gets its session.
	resp, _ := post(t, rijk, "", "", legacyInit, nil)
	if sid := resp.Header.Get(session.MCPHeader); !issued.IssuedBy(sid, "rijk") {
		t.Fatalf("honest initialize at rijk: id %q not issued", sid)
	}
}
