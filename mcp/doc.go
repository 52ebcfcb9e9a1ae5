// Package mcp is the Caddy module http.handlers.mcp: one MCP connector
// (an MCP endpoint with a name and the platforms whose tools it offers).
//
// A connector speaks both protocol eras of MCP over Streamable HTTP: the
// 2025-11-25 era with sessions (Mcp-Session-Id, issued through the
// besluitbron app's session registry under the connector's name, so ids
// survive a config reload and are unknown at every other connector) and the
// stateless 2026-07-28 era (server/discover). Every tool call becomes an
// in-process sub-request for /platforms/<key>/..., handed back to the Caddy
// server that received the call, so it passes the same cache, budget and
// reverse proxy as a direct app request; it carries the caller's session
// key (session.WithInternal) for the fair queue.
//
// The tools are typed. tooltable.go lists every tool per platform (and
// how each platform's tools come on); each tool has an input struct whose
// tags carry its arguments' descriptions, ranges, defaults and enums
// (toolschema.go turns them into the schema a client is sent, once),
// toolargs.go holds every call to that schema, and each result is
// structuredContent matching the tool's output schema beside the same
// JSON as text. The tools of each platform are in tools_<key>.go; the
// platforms' request building and parsing in the Caddy-free packages
// adapters/<key>.
//
// This package is named mcp, as mcp-go's protocol package is: inside it,
// github.com/mark3labs/mcp-go/mcp is always imported as mcpgo, so "mcp"
// never means two things.
package mcp
