package mcp

import (
	"encoding/json"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// parseFastCall scans the body once without allocating; the reference
// below is the decoder it replaced (issue 33's first fast path), which
// decoded with encoding/json into maps. Whatever the scan takes, the
// reference must take with the same values (the scan may leave more to
// mcp-go: a duplicate member, an escaped key or version).

type mapCall struct {
	fastCall
	params json.RawMessage
}

func FuzzParseFastCallAgrees(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"arguments":{"limit":10,"organization":"aa-en-hunze"},"name":"obv_search"}}`,
		` { "jsonrpc" : "2.0" , "id" : "a-1" , "method" : "tools/call" , "params" : { "name" : "tk_fracties" } } `,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","name":"y"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"q":"\"}\\","n":[1,{"a":"]"}]}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"n\u0061me":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}}}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}]`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := parseFastCall(body)
		want, wantOK := parseFastCallMaps(body)
		if !ok {
			return
		}
		if !wantOK || string(got.id) != string(want.id) || got.name != want.name || string(got.args) != string(want.args) ||
			got.metaVersion != want.metaVersion || got.hasMeta != want.hasMeta || got.hasCaps != want.hasCaps {
			t.Fatalf("%q: scan %+v, encoding/json %+v (%v)", body, got, want.fastCall, wantOK)
		}
	})
}

func parseFastCallMaps(body []byte) (mapCall, bool) {
	var call mapCall
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
func (call *mapCall) parseMeta(raw json.RawMessage) bool {
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

// The forms clients send are taken: compact, spaced, nested arguments with
// escapes, declared capabilities.
func TestParseFastCallTakesClientForms(t *testing.T) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"arguments":{"limit":10,"organization":"aa-en-hunze"},"name":"obv_search"}}`,
		" {\n \"jsonrpc\" : \"2.0\" ,\t\"id\" : \"a-1\" , \"method\" : \"tools/call\" , \"params\" : { \"name\" : \"tk_fracties\" } } ",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"q":"\"}\\","n":[1,{"a":"]"}]}}}`,
		`{"params":{"name":"x","_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/protocolVersion":"2025-11-25"}},"id":-12,"method":"tools/call","jsonrpc":"2.0"}`,
	} {
		got, ok := parseFastCall([]byte(s))
		want, wantOK := parseFastCallMaps([]byte(s))
		if !ok || !wantOK || got.name != want.name || string(got.args) != string(want.args) || string(got.id) != string(want.id) ||
			got.metaVersion != want.metaVersion || got.hasCaps != want.hasCaps {
			t.Errorf("%s: scan %v %+v, encoding/json %v %+v", s, ok, got, wantOK, want.fastCall)
		}
	}
}
