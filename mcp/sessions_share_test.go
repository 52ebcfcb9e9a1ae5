package mcp

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/caddymodule/session"
)

// initializeFrom sends a legacy initialize to c as a client at addr and
// returns the session id it was issued.
func initializeFrom(t *testing.T, c *connector, addr string) string {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(legacyInit))
	req.RemoteAddr = addr
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	rec := httptest.NewRecorder()
	c.http.ServeHTTP(rec, req)
	sid := rec.Header().Get(session.MCPHeader)
	if rec.Code != http.StatusOK || sid == "" {
		t.Fatalf("initialize from %s: HTTP %d, session %q: %s", addr, rec.Code, sid, rec.Body)
	}
	return sid
}

// TestMintingAddressCannotEvictHonestSessions: one address mints
// initialize calls, many times the registry's size; an honest session from
// another address survives, and so do the minting address's own first
// sessions: past its share, the address's newest session gives way.
func TestMintingAddressCannotEvictHonestSessions(t *testing.T) {
	const capIDs = 1000
	reg := session.NewRegistry(capIDs, time.Hour, nil)
	c := newConnector("share-"+strings.ToLower(t.Name()), time.Hour, reg)
	t.Cleanup(func() { _ = c.Destruct() })

	honest := initializeFrom(t, c, "192.0.2.7:40000")
	var minted []string
	for i := range 3 * capIDs {
		minted = append(minted, initializeFrom(t, c, "198.51.100.9:"+strconv.Itoa(10000+i%50000)))
	}
	if !reg.IssuedBy(honest, c.name) {
		t.Fatalf("the honest session from another address was evicted by %d sessions minted from one address", len(minted))
	}
	share := capIDs / session.AddrShareDivisor
	live := 0
	for _, id := range minted {
		if reg.HasLocal(id) {
			live++
		}
	}
	if live != share {
		t.Errorf("the minting address holds %d sessions, want its share %d", live, share)
	}
	for _, id := range minted[:share-1] {
		if !reg.HasLocal(id) {
			t.Errorf("the address's early session %s was evicted; its newest should go first", id)
		}
	}
	if !reg.HasLocal(minted[len(minted)-1]) {
		t.Error("the latest minted session is not live")
	}
	// A second honest client after the flood still gets (and keeps) its
	// session.
	if late := initializeFrom(t, c, "203.0.113.5:50000"); !reg.IssuedBy(late, c.name) || !reg.IssuedBy(honest, c.name) {
		t.Error("a session issued after the flood, or the first honest one, is not live")
	}
}
