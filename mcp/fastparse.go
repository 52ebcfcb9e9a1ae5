package mcp

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// fastCall is a tools/call the fast path recognised, decoded once.
type fastCall struct {
	id     json.RawMessage // as sent: an integer or a plain string (plainID)
	name   string
	args   json.RawMessage // the arguments object; nil when none was sent
	params json.RawMessage // params as sent, for the Mcp-Name check
	// metaVersion is _meta's protocol version; hasMeta tells whether
	// params had a _meta, hasCaps whether it declared the client's
	// capabilities (an object).
	metaVersion      string
	hasMeta, hasCaps bool
	modern           bool // set by eraAllows
}

// parseFastCall decodes a JSON-RPC tools/call in exactly the form the fast
// path takes, and reports false for anything else (which mcp-go then
// answers). mcp-go decodes with encoding/json into structs, whose field
// names match case-insensitively and whose unknown fields are ignored;
// taking only the exact lower-case names, and no other member, means every
// one of mcp-go's decodes of the body reads the same values as this one.
// Where a member appears twice, both take the last.
func parseFastCall(body []byte) (fastCall, bool) {
	var call fastCall
	var env map[string]json.RawMessage
	if json.Unmarshal(body, &env) != nil || len(env) != 4 {
		return call, false
	}
	// jsonrpc "2.0" (else -32600), a request with an id (a notification
	// has none), method tools/call, params an object.
	if string(env["jsonrpc"]) != `"2.0"` || string(env["method"]) != `"tools/call"` || !plainID(env["id"]) {
		return call, false
	}
	call.id, call.params = env["id"], env["params"]
	var params map[string]json.RawMessage
	if json.Unmarshal(call.params, &params) != nil || params == nil {
		return call, false
	}
	for k, v := range params {
		switch k {
		case "name":
			// A tool name as the table writes them: no escapes to read.
			if !plainName(v) {
				return call, false
			}
			call.name = string(v[1 : len(v)-1])
		case "arguments":
			// An object; anything else is left to mcp-go and the
			// tool's argument check.
			if len(v) == 0 || v[0] != '{' {
				return call, false
			}
			call.args = v
		case "_meta":
			if !call.parseMeta(v) {
				return call, false
			}
		default:
			// task (task-augmented execution), inputResponses or
			// requestState (multi round trip), or anything unknown.
			return call, false
		}
	}
	return call, call.name != ""
}

// parseMeta reads a request's _meta: only the protocol version, the client's
// capabilities and its identity, each in its proper form. Anything else (a
// progressToken asks for progress notifications; a log level, a trace
// context or an extension changes what mcp-go does) is mcp-go's.
func (call *fastCall) parseMeta(raw json.RawMessage) bool {
	var meta map[string]json.RawMessage
	if json.Unmarshal(raw, &meta) != nil || meta == nil {
		return false
	}
	call.hasMeta = true
	for k, v := range meta {
		switch k {
		case mcpgo.MetaKeyProtocolVersion:
			if json.Unmarshal(v, &call.metaVersion) != nil || call.metaVersion == "" {
				return false
			}
		case mcpgo.MetaKeyClientCapabilities:
			// mcp-go refuses capabilities that do not decode (-32602);
			// {} always does, and is what most clients send.
			if len(v) == 0 || v[0] != '{' {
				return false
			}
			if string(v) != "{}" {
				var caps mcpgo.ClientCapabilities
				if json.Unmarshal(v, &caps) != nil {
					return false
				}
			}
			call.hasCaps = true
		case mcpgo.MetaKeyClientInfo:
			// mcp-go reads a client's identity that does not decode as
			// none, which changes no answer.
			if len(v) == 0 || v[0] != '{' {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// plainID tells whether a JSON-RPC id is one mcp-go echoes byte for byte:
// an integer of at most 15 digits (mcp-go reads it as a float64, exact to
// 2^53, and writes it back without exponent), or a string of printable
// ASCII without quotes, backslashes or the characters encoding/json
// escapes for HTML (<, >, &).
func plainID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		if len(raw) < 2 || len(raw) > 202 || raw[len(raw)-1] != '"' {
			return false
		}
		for _, b := range raw[1 : len(raw)-1] {
			if b < 0x20 || b > 0x7e || b == '"' || b == '\\' || b == '<' || b == '>' || b == '&' {
				return false
			}
		}
		return true
	}
	digits := raw
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && len(digits) > 1) {
		return false
	}
	for _, b := range digits {
		if b < '0' || b > '9' {
			return false
		}
	}
	return !bytes.Equal(raw, []byte("-0")) // mcp-go writes -0 back as 0
}

// plainName tells whether a JSON string holds a tool name as BesluitBron
// writes them: lower-case letters, digits and underscores.
func plainName(raw json.RawMessage) bool {
	if len(raw) < 3 || len(raw) > 66 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	for _, b := range raw[1 : len(raw)-1] {
		if !(b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '_') {
			return false
		}
	}
	return true
}

// writeJSONString writes s as a JSON string, escaping what JSON requires
// (quotes, backslashes, control characters); it reports false for text that
// is not valid UTF-8, which encoding/json would change (the caller then
// encodes as mcp-go does). Characters encoding/json escapes besides (<, >,
// &, U+2028, U+2029) stand as themselves: the same JSON value.
func writeJSONString(buf *bytes.Buffer, s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	const hex = "0123456789abcdef"
	buf.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b >= 0x20 && b != '"' && b != '\\' {
			continue
		}
		buf.WriteString(s[start:i])
		switch b {
		case '"', '\\':
			buf.WriteByte('\\')
			buf.WriteByte(b)
		case '\n':
			buf.WriteString(`\n`)
		case '\r':
			buf.WriteString(`\r`)
		case '\t':
			buf.WriteString(`\t`)
		default:
			buf.WriteString(`\u00`)
			buf.WriteByte(hex[b>>4])
			buf.WriteByte(hex[b&0xf])
		}
		start = i + 1
	}
	buf.WriteString(s[start:])
	buf.WriteByte('"')
	return true
}
