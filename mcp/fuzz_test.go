package mcp

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/internal/fuzzcheck"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

// FuzzUnmarshalCaddyfile fuzzes the mcp directive's parser, seeded with
// its uses in the Caddyfiles and docs: a module or a clear error, never a
// panic, and a module that survives Caddy's JSON (fuzzcheck.Directive).
func FuzzUnmarshalCaddyfile(f *testing.F) {
	fuzzcheck.Directive(f, "mcp", (*Handler).UnmarshalCaddyfile)
}

// fuzzValues are argument values the tools take, from the real payloads:
// an OpenBesluitvorming entity id (fixtures/obv/search.json), an ECLI
// (fixtures/rechtspraak/content.xml), a Tweede Kamer document number
// (fixtures/tk/odata-besluit-expand.json), an official publication id
// (fixtures/ob/sru-record-gmb.fragment.xml), a date and a search word.
var fuzzValues = []any{"document:notubiz:gemeente:soest:12345", "ECLI:NL:RBDHA:2013:15631", "2022D37914",
	"gmb-2023-174296", "2024-01-01", "stikstof"}

// FuzzToolArguments sends tools/call JSON-RPC messages with fuzzed
// arguments to a connector offering every platform's tools, through
// mcp-go's message handling as a client's call arrives. There is no Caddy
// server behind it, so arguments that pass the checks end at the first
// platform call with an internal error; what is fuzzed is everything
// before it. A call gets a JSON-RPC answer, never a panic (mcp-go's
// recovery would turn one into an error, which fails here); every tool
// result says something; arguments that are not an object, or that name
// an argument the tool does not take, are refused before any platform is
// asked.
func FuzzToolArguments(f *testing.F) {
	c := newConnector("fuzz", time.Minute, session.NewRegistry(1000, time.Hour, nil))
	f.Cleanup(func() { _ = c.Destruct() })
	c.configure(settings{platforms: platforms.Keys(), maxTextChars: DefaultMaxTextChars})
	var names []string
	for name := range c.mcp.ListTools() {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) < 10 {
		f.Fatalf("the connector offers %d tools: %v", len(names), names)
	}
	for i, name := range names {
		f.Add(uint8(i), []byte(`{}`))
		// Each string value in every string argument, the other arguments
		// a value of their declared type; then every argument a number.
		props := c.mcp.GetTool(name).Tool.InputSchema.Properties
		for _, v := range append(fuzzValues, float64(10)) {
			args := map[string]any{}
			for p, schema := range props {
				args[p] = v
				if _, isString := v.(string); isString {
					switch typ, _ := schema.(map[string]any)["type"].(string); typ {
					case "number", "integer":
						args[p] = float64(10)
					case "boolean":
						args[p] = true
					case "array":
						args[p] = []any{v}
					}
				}
			}
			b, _ := json.Marshal(args)
			f.Add(uint8(i), b)
		}
	}
	f.Add(uint8(0), []byte(`[1,2]`))
	f.Add(uint8(1), []byte(`"x"`))
	f.Add(uint8(2), []byte(`null`))

	f.Fuzz(func(t *testing.T, tool uint8, args []byte) {
		if !json.Valid(args) {
			return // the whole message would not be JSON: mcp-go's parse error, before any tool
		}
		name := names[int(tool)%len(names)]
		msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":` + quoteJSON(name) + `,"arguments":` + string(args) + `}}`
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp := c.mcp.HandleMessage(ctx, json.RawMessage(msg))
		if resp == nil {
			t.Fatalf("%s: no answer to %s", name, msg)
		}
		out, err := json.Marshal(resp)
		if err != nil {
			t.Fatalf("%s: answer is not JSON: %v", name, err)
		}
		if strings.Contains(string(out), "panic recovered") {
			t.Fatalf("%s panicked on %s:\n%s", name, args, out)
		}
		r, ok := resp.(mcpgo.JSONRPCResponse)
		if !ok {
			return // a JSON-RPC error (mcp-go refused the message): a clear answer too
		}
		res, ok := r.Result.(*mcpgo.CallToolResult)
		if !ok {
			t.Fatalf("%s: result %T", name, r.Result)
		}
		text := mcpkit.ResultText(res)
		if strings.TrimSpace(text) == "" {
			t.Fatalf("%s answered nothing to %s", name, args)
		}
		var obj map[string]any
		isObject := json.Unmarshal(args, &obj) == nil && obj != nil
		if !isObject && strings.TrimSpace(string(args)) != "null" && (!res.IsError || !strings.Contains(text, "arguments must be a JSON object")) {
			t.Fatalf("%s took arguments %s that are no object: %s", name, args, text)
		}
		props := c.mcp.GetTool(name).Tool.InputSchema.Properties
		for k := range obj {
			if _, known := props[k]; !known && (!res.IsError || !strings.Contains(text, "unknown argument")) {
				t.Fatalf("%s took the unknown argument %q: %s", name, k, text)
			}
		}
	})
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
