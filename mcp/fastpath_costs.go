package mcp

import (
	"encoding/json"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// fastCosts adds back to the fast path, one at a time, work mcp-go v1.2.1
// does on every tools/call and the fast path leaves out, so that the
// benchmarks measure what each upstream proposal would save inside mcp-go
// (docs/benchmarks/mcp.md, "Proposals for mcp-go"). Tests only; never
// changed while requests run.
var fastCosts fastCostSet

type fastCostSet struct {
	decodes   bool // the body decoded as often as mcp-go decodes it
	bindings  bool // the tool's x-mcp-header bindings worked out per call
	session   bool // a per-request session with its channels and forwarder
	mapEncode bool // the result encoded through CallToolResult.MarshalJSON
}

// any tells whether a cost is added back (the result memo is then off:
// the costs are those of a call that runs its tool).
func (fc *fastCostSet) any() bool { return fc.decodes || fc.bindings || fc.session || fc.mapEncode }

// mcpgoDecodes decodes body as mcp-go's handlePost, detectRequestEra,
// HandleMessage, extractRequestProtocolInfo, validateStandardHeadersForMessage,
// toolForHeaderValidation, its trace-context _meta read and the
// CallToolRequest unmarshal do, into the same shapes.
func mcpgoDecodes(body []byte) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result,omitempty"`
		Error  json.RawMessage `json:"error,omitempty"`
		Method mcpgo.MCPMethod `json:"method,omitempty"`
	}
	_ = json.Unmarshal(body, &msg)
	var meta struct {
		Params struct {
			Meta *mcpgo.Meta `json:"_meta"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &meta) // detectRequestEra
	var base struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  mcpgo.MCPMethod `json:"method"`
		ID      any             `json:"id,omitempty"`
		Result  any             `json:"result,omitempty"`
	}
	_ = json.Unmarshal(body, &base)
	_ = json.Unmarshal(body, &meta) // extractRequestProtocolInfo
	var wrapper struct {
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(body, &wrapper)
	var call struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(wrapper.Params, &call)
	_ = json.Unmarshal(body, &meta) // the trace context
	var req mcpgo.CallToolRequest
	_ = json.Unmarshal(body, &req)
}

// mcpgoSession builds what mcp-go builds per request (newStreamableHttpSession's
// done channel, its 100-slot notification channel and three 10-slot
// request channels, and the forwarder goroutine) and returns its end.
func mcpgoSession() (end func()) {
	done := make(chan struct{})
	notes := make(chan mcpgo.JSONRPCNotification, 100)
	a, b, c := make(chan mcpgo.JSONRPCRequest, 10), make(chan mcpgo.JSONRPCRequest, 10), make(chan mcpgo.JSONRPCRequest, 10)
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		for {
			select {
			case <-notes:
			case <-a:
			case <-b:
			case <-c:
			case <-done:
				return
			}
		}
	}()
	return func() { close(done); <-exited }
}
