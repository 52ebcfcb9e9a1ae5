package mcp

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// fastCall is a tools/call the fast path recognised, decoded once. Its
// byte slices alias the request body.
type fastCall struct {
	id   json.RawMessage // as sent: an integer or a plain string (plainID)
	name string
	args json.RawMessage // the arguments object; nil when none was sent
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
// taking only the exact lower-case names, each once and written without
// escapes, and no other member, means every one of mcp-go's decodes of the
// body reads the same values as this one. The body is checked to be JSON
// first (json.Valid, as encoding/json checks before it decodes), so the
// scan below (jsonMembers) walks well-formed JSON only; it allocates
// nothing.
func parseFastCall(body []byte) (fastCall, bool) {
	var call fastCall
	if !json.Valid(body) {
		return call, false
	}
	var params []byte
	var seen uint8
	env := jsonMembers{b: body}
	if !env.open() {
		return call, false
	}
	for {
		key, val, more, ok := env.next()
		if !ok {
			return call, false
		}
		if !more {
			break
		}
		var bit uint8
		switch string(key) {
		case "jsonrpc":
			// "2.0", else mcp-go's -32600.
			bit = 1
			ok = string(val) == `"2.0"`
		case "method":
			bit = 2
			ok = string(val) == `"tools/call"`
		case "id":
			// A request with an id (a notification has none).
			bit = 4
			ok = plainID(val)
			call.id = val
		case "params":
			bit = 8
			params = val
		}
		if bit == 0 || !ok || seen&bit != 0 {
			return call, false
		}
		seen |= bit
	}
	if seen != 15 {
		return call, false
	}
	ps := jsonMembers{b: params}
	if !ps.open() {
		return call, false // params not an object
	}
	seen = 0
	for {
		key, v, more, ok := ps.next()
		if !ok {
			return call, false
		}
		if !more {
			break
		}
		var bit uint8
		switch string(key) {
		case "name":
			// A tool name as the table writes them: no escapes to read.
			bit = 1
			ok = plainName(v)
			if ok {
				call.name = string(v[1 : len(v)-1])
			}
		case "arguments":
			// An object; anything else is left to mcp-go and the
			// tool's argument check.
			bit = 2
			ok = v[0] == '{'
			call.args = v
		case "_meta":
			bit = 4
			ok = call.parseMeta(v)
		default:
			// task (task-augmented execution), inputResponses or
			// requestState (multi round trip), or anything unknown.
		}
		if bit == 0 || !ok || seen&bit != 0 {
			return call, false
		}
		seen |= bit
	}
	return call, call.name != ""
}

// parseMeta reads a request's _meta: only the protocol version, the client's
// capabilities and its identity, each in its proper form. Anything else (a
// progressToken asks for progress notifications; a log level, a trace
// context or an extension changes what mcp-go does) is mcp-go's.
func (call *fastCall) parseMeta(raw []byte) bool {
	meta := jsonMembers{b: raw}
	if !meta.open() {
		return false // null or not an object
	}
	call.hasMeta = true
	var seen uint8
	for {
		k, v, more, ok := meta.next()
		if !ok {
			return false
		}
		if !more {
			return true
		}
		var bit uint8
		switch string(k) {
		case mcpgo.MetaKeyProtocolVersion:
			// A string without escapes, not empty.
			bit = 1
			ok = len(v) > 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0
			if ok {
				call.metaVersion = string(v[1 : len(v)-1])
			}
		case mcpgo.MetaKeyClientCapabilities:
			// mcp-go refuses capabilities that do not decode (-32602);
			// {} always does, and is what most clients send.
			bit = 2
			ok = v[0] == '{'
			if ok && string(v) != "{}" {
				var caps mcpgo.ClientCapabilities
				ok = json.Unmarshal(v, &caps) == nil
			}
			call.hasCaps = ok
		case mcpgo.MetaKeyClientInfo:
			// mcp-go reads a client's identity that does not decode as
			// none, which changes no answer.
			bit = 4
			ok = v[0] == '{'
		}
		if bit == 0 || !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
	}
}

// jsonMembers walks the members of one JSON object in b, which must be
// well-formed JSON (json.Valid): each key as written (a key with an escape
// ends the walk with ok false: the caller then leaves the request to
// mcp-go) and each value's bytes without the white space around them, as
// json.RawMessage holds them.
type jsonMembers struct {
	b []byte
	i int
}

// open steps into the object; false when b is not one.
func (m *jsonMembers) open() bool {
	m.i = skipSpace(m.b, 0)
	if m.i >= len(m.b) || m.b[m.i] != '{' {
		return false
	}
	m.i = skipSpace(m.b, m.i+1)
	return true
}

// next returns the next member; more is false after the last.
func (m *jsonMembers) next() (key, val []byte, more, ok bool) {
	b := m.b
	switch b[m.i] {
	case '}':
		return nil, nil, false, true
	case ',':
		m.i = skipSpace(b, m.i+1)
	}
	start := m.i + 1 // b[m.i] is the key's opening quote
	end := start
	for b[end] != '"' {
		if b[end] == '\\' {
			return nil, nil, false, false
		}
		end++
	}
	key = b[start:end]
	m.i = skipSpace(b, end+1) + 1 // past the colon
	m.i = skipSpace(b, m.i)
	vend := skipJSONValue(b, m.i)
	val = b[m.i:vend]
	m.i = skipSpace(b, vend)
	return key, val, true, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipJSONValue returns the end of the well-formed value starting at i.
func skipJSONValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		for i++; ; i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = skipJSONValue(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
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
