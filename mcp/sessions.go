package mcp

import (
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/besluitbron/besluitbron/caddymodule/session"
)

// idPrefix is the prefix of the session ids connectors issue.
const idPrefix = "mcp-session-"

// issuedIDs is mcp-go's SessionIdManager backed by the process-wide
// session.Issued registry: ids issued before a config reload stay valid
// after it, and the fair queue and inbound limits recognise them.
type issuedIDs struct {
	reg *session.Registry
}

// Generate issues a new random session id.
func (m issuedIDs) Generate() string {
	id := idPrefix + uuid.NewString()
	m.reg.Add(id)
	return id
}

// Validate accepts only ids this process issued and did not end.
func (m issuedIDs) Validate(id string) (isTerminated bool, err error) {
	if id == "" {
		return false, fmt.Errorf("missing session id")
	}
	if !strings.HasPrefix(id, idPrefix) || len(id) > 100 {
		return false, fmt.Errorf("invalid session id")
	}
	if !m.reg.Has(id) {
		return false, fmt.Errorf("session not found")
	}
	return false, nil
}

// Terminate ends a session (DELETE by the client, idle expiry, shutdown).
func (m issuedIDs) Terminate(id string) (isNotAllowed bool, err error) {
	m.reg.Remove(id)
	return false, nil
}
