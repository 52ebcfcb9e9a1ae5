package mcp

import (
	"bytes"
	"encoding/json"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Encoding a tool result once (issue 23). A result goes out as text and as
// structuredContent, the same JSON. It is encoded here once; the text is
// that JSON, and mcp-go writes structuredContent from the same bytes
// (RawStructuredContent) instead of encoding the typed value a second
// time by reflection when it writes the response. StructuredContent keeps
// the typed value for in-process callers.

// hitpathOff turns hit-path levers of issue 23 off, for the benchmarks
// that compare before and after (and each lever) in one run. Tests only;
// never changed while requests run.
var hitpathOff struct{ parseCache, encodeOnce, rawSchema bool }

var encodeBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// structuredResult is structured's work: out as structuredContent, and the
// same JSON as text.
func structuredResult(out any) *mcpgo.CallToolResult {
	if hitpathOff.encodeOnce {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			return mcpgo.NewToolResultError("internal error rendering the result: " + err.Error())
		}
		return mcpgo.NewToolResultStructured(out, string(bytes.TrimSpace(b.Bytes())))
	}
	buf := encodeBufs.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= 1<<20 {
			buf.Reset()
			encodeBufs.Put(buf)
		}
	}()
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return mcpgo.NewToolResultError("internal error rendering the result: " + err.Error())
	}
	text := string(bytes.TrimSpace(buf.Bytes()))
	res := mcpgo.NewToolResultStructured(out, text)
	res.RawStructuredContent = json.RawMessage(text)
	return res
}

// wireTool is t as the connector hands it to mcp-go: its input schema
// encoded once (RawInputSchema) instead of the structured InputSchema.
// tools/list sends the same JSON either way; but mcp-go reads a tool's
// input schema on every tools/call (the x-mcp-header check of the
// 2026-07-28 era, mcp.ExtractParamHeaderBindings), and from the
// structured form it first encodes the whole schema by reflection. The
// table keeps the structured schema (t) for checkArguments and the docs.
func wireTool(t mcpgo.Tool) mcpgo.Tool {
	raw, err := json.Marshal(t.InputSchema)
	if err != nil {
		return t // the structured schema still works, only slower
	}
	t.RawInputSchema = raw
	t.InputSchema = mcpgo.ToolInputSchema{}
	return t
}
