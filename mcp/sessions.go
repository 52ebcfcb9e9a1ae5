package mcp

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/caddymodule/session"
)

// idPrefix is the prefix of the session ids connectors issue.
const idPrefix = "mcp-session-"

// issuedIDs is one connector's mcp-go SessionIdManager, backed by the
// besluitbron app's session registry (app.App.Sessions, shared by every
// config) under the connector's name: the connector accepts only the ids it issued itself (an id from /mcp/raad is
// unknown at /mcp/rijk), ids issued before a config reload stay valid
// after it (the pooled connector keeps its name), and the fair queue and
// inbound limits recognise them as real sessions. With a shared store
// (issue 13) the registry makes them valid on every instance.
type issuedIDs struct {
	reg       *session.Registry // as session.IDs, plus Key for the sub-requests (module.go)
	connector string
	ttl       time.Duration // the connector's idle time: the id's lifetime in a shared store
	// end makes Terminate end the session everywhere: set for a client's
	// DELETE (idResolver), not for mcp-go's idle sweep or shutdown, which
	// only know of this instance's use of the session.
	end bool
	// addr is the client address of the request being served (the
	// initialize that asks for an id): the registry bounds each address's
	// share of the sessions (session.AddrShareDivisor), so one address
	// minting initialize calls cannot push out other addresses' sessions.
	addr string
}

// Generate issues a new random session id, owned by this connector, to
// the requesting address.
func (m issuedIDs) Generate() string {
	id := idPrefix + uuid.NewString()
	m.reg.IssueTo(id, m.connector, m.addr, m.ttl)
	return id
}

// Validate accepts only ids this connector issued and did not end. mcp-go
// answers an error with 404 "Invalid session ID", the MCP transport's
// answer to a session the server does not know, so the client starts a
// new one. An id the registry cannot verify (unknown here while the shared
// store is degraded) is accepted if it has the form of ours: it may be a
// session another instance issued, and it counts as no session anywhere
// else (inbound limits, fair queue), so a made-up one gains nothing.
func (m issuedIDs) Validate(id string) (isTerminated bool, err error) {
	if id == "" {
		return false, fmt.Errorf("missing session id")
	}
	if !strings.HasPrefix(id, idPrefix) || len(id) > 100 {
		return false, fmt.Errorf("invalid session id")
	}
	switch m.reg.Check(id, m.connector) {
	case session.Known:
		return false, nil
	case session.Unverified:
		if _, err := uuid.Parse(id[len(idPrefix):]); err == nil {
			return false, nil
		}
	}
	return false, fmt.Errorf("session not found")
}

// Terminate ends a session: a client's DELETE everywhere, an idle sweep or
// shutdown here only (another instance may still serve it; the shared
// store expires it by its own TTL). Only this connector's own ids are
// removed; ServeHTTP has already answered 404 to a DELETE naming any
// other.
func (m issuedIDs) Terminate(id string) (isNotAllowed bool, err error) {
	if m.end {
		m.reg.End(id, m.connector)
	} else {
		m.reg.Remove(id, m.connector)
	}
	return false, nil
}

// idResolver hands mcp-go the connector's manager per request, so a
// client's DELETE (a request) can be told from the idle sweep and
// shutdown (no request), and an id is issued to the address that asked.
type idResolver struct{ ids issuedIDs }

func (r idResolver) ResolveSessionIdManager(req *http.Request) server.SessionIdManager {
	m := r.ids
	m.end = req != nil && req.Method == http.MethodDelete
	if req != nil {
		m.addr = session.ClientIP(req)
	}
	return m
}

// refuseUnknownSession answers a legacy-era GET or DELETE that names no
// session this connector issued, and reports whether it did. mcp-go checks
// the id of a POST, but a GET opens (and registers) a listening session
// for any id, or issues one when the request names none, and a DELETE
// ends whatever it names; so without this a made-up or foreign id would
// become a session here, and an id-less GET would fill the registry. The
// answers are the MCP transport's: 400 without an id, 404 for an id the
// server does not know. Modern-era (2026-07-28) requests carry no session
// and go on to mcp-go, which answers them 405.
func (c *connector) refuseUnknownSession(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodDelete {
		return false
	}
	if mcpgo.IsModernProtocol(r.Header.Get(mcpgo.HeaderProtocolVersion)) {
		return false
	}
	id := r.Header.Get(session.MCPHeader)
	if id == "" {
		http.Error(w, "Bad Request: Mcp-Session-Id header required", http.StatusBadRequest)
		return true
	}
	if _, err := c.ids.Validate(id); err != nil {
		http.Error(w, "Invalid session ID", http.StatusNotFound)
		return true
	}
	return false
}

var (
	_ server.SessionIdManager         = issuedIDs{}
	_ server.SessionIdManagerResolver = idResolver{}
)
