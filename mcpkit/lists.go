package mcpkit

import (
	"context"
	"errors"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// ListProvider is a platform with long-lived lists worth offering as MCP
// resources of their own: small, nearly static, and what a client
// offers its user to pick from (courts, committees, organisations).
type ListProvider interface {
	Lists() []List
}

// List is one listed resource: the same answer as the platform's tool that
// reads it, as JSON.
type List struct {
	URI, Name, Title, Description string
	// Read is the list, read as its tool reads it, or the tool's isError
	// text as the error.
	Read func(ctx context.Context, env Env) (any, error)
}

// Outcome turns a tool's result into a list's read: its output, or its
// isError text as the error.
func Outcome[T any](out T, fail *mcpgo.CallToolResult) (any, error) {
	if fail != nil {
		return nil, errors.New(ResultText(fail))
	}
	return out, nil
}

// ResultText is the text of a tool result.
func ResultText(r *mcpgo.CallToolResult) string {
	if r == nil {
		return ""
	}
	var sb strings.Builder
	for _, ct := range r.Content {
		if tc, ok := ct.(mcpgo.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}
