// Package mcptest is an MCP client for the tests that call a connector
// through Caddy from outside the mcp package (a platform's own tools).
package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// HangBound bounds one call so that a hang fails the test, not the run;
// no measure of speed (a first call may build an emulator's data under
// -race, beside CI's other packages).
const HangBound = 3 * time.Minute

// Connect starts and initializes a client of the connector at url (the
// current protocol), closed when the test ends.
func Connect(t testing.TB, url string) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(url)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), HangBound)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcpgo.InitializeRequest{}
	req.Params.ClientInfo = mcpgo.Implementation{Name: "besluitbron-test", Version: "1"}
	req.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Call calls tool with args and returns its result decoded, its text and
// whether it is an isError result. A result's text and its structured
// content must say the same.
func Call(t testing.TB, c *client.Client, tool string, args map[string]any) (map[string]any, string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), HangBound)
	defer cancel()
	res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: tool, Arguments: args}})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	text := res.Content[0].(mcpgo.TextContent).Text
	if res.IsError {
		return nil, text, true
	}
	var fromText, fromStruct map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	if json.Unmarshal([]byte(text), &fromText) != nil || json.Unmarshal(b, &fromStruct) != nil || fmt.Sprint(fromText) != fmt.Sprint(fromStruct) {
		t.Fatalf("text and structuredContent differ:\n%s\n%s", text, b)
	}
	return fromText, text, false
}
