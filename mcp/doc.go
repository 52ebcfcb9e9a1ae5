// Package mcp is the Caddy module http.handlers.mcp: one MCP connector
// (an MCP endpoint with a name and the platforms whose tools it offers).
//
// A connector speaks both protocol eras of MCP over Streamable HTTP: the
// 2025-11-25 era with sessions (Mcp-Session-Id, issued through the
// process-wide session.Issued registry so ids survive a config reload) and
// the stateless 2026-07-28 era (server/discover). Every tool call becomes an
// in-process sub-request for /platforms/<key>/..., handed back to the Caddy
// server that received the call, so it passes the same cache, budget and
// reverse proxy as a direct app request; it carries the caller's session
// key (session.WithInternal) for the fair queue.
//
// The platforms' request building and parsing live in the Caddy-free
// packages mcp/adapters/<key>; the tools of each platform are in
// tools_<key>.go.
package mcp
