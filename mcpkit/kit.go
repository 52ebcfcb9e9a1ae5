// Package mcpkit is what a platform gives the MCP connectors, and what
// it may ask of them. A platform (platforms/<key>) implements the
// interfaces here that fit it: Instructor for its words in the
// connector's instructions, PromptProvider for the prompts it leads,
// VocabularyProvider for the values its resource variables complete
// to. The connectors (package mcp) ask the registry for them
// (platforms.Each) and never name a platform.
//
// It imports neither Caddy nor the connector: a platform depends on this
// package, the connector on both.
package mcpkit

import (
	"context"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// Env is what a prompt's plan or a completion may ask of the connector
// it runs in.
type Env interface {
	// Offers tells whether the connector offers platform key's tools.
	Offers(key string) bool
	// Offered are the keys of the platforms the connector offers.
	Offered() []string
	// Now is the connector's clock.
	Now() time.Time
	// Lists is the connector's memo of lists (organisations, value
	// lists, schemas), shared by its tools, prompts and completions.
	Lists() *adapters.Memo
	// Setting is the configuration's settings of platform key, as the
	// platform read them (adapters/registry.Settings.Of): nil for a
	// platform without settings.
	Setting(key string) any
	// Replica is what BesluitBron keeps of platform key itself
	// (adapters/registry.Settings.Replica): nil when it keeps none.
	Replica(key string) any
	// Getter runs requests on platform key's route (the sub-request
	// through its cache and budget): the body of a 2xx answer, else an
	// *adapters.RouteError or *adapters.UnreachedError.
	Getter(ctx context.Context, key string) func(adapters.Request) ([]byte, error)
	// Memoised returns the list under memoKey from the memo, else loads
	// it unless the platform failed to give it a moment ago; ok is false
	// when there is no list. A completion reads its lists so.
	Memoised(ctx context.Context, memoKey string, load func() (any, error)) (v any, ok bool)

	// What a tool's work asks besides. Each platform answer a tool call
	// gets through Getter, Call or FetchDocument counts in its result's
	// Meta (from_cache, queue_wait_ms), which the connector fills.

	// Call runs one request on platform key's route: the body of a 2xx
	// answer, else the isError result that says what happened and when
	// to try again.
	Call(ctx context.Context, key string, r adapters.Request) ([]byte, *mcpgo.CallToolResult)
	// LoadStatus is platform key's load status (adapters.LoadReporter):
	// the one BesluitBron's maintenance keeps, or, when it has none fresh,
	// fetched now as the shared session and handed to it (fetchedNow).
	LoadStatus(ctx context.Context, key string) (kept adapters.KeptLoadStatus, fetchedNow bool, fail *mcpgo.CallToolResult)
	// Failed is the isError result for an error of a request run through
	// Getter: a failed call says what the route answered, and anything
	// else is an answer that did not parse.
	Failed(key string, err error) *mcpgo.CallToolResult
	// FailureText says what a failed request on platform key's route
	// means to a model, and when to try again (Failed's text).
	FailureText(key string, err error) string
	// FetchDocument reads document id (of type kind, where the platform
	// needs it) through platform key's surface, as the reader does: a
	// reference the platform refuses is an invalid argument, a document
	// it lacks says notFound.
	FetchDocument(ctx context.Context, key, id, kind, notFound string) (adapters.Document, *mcpgo.CallToolResult)
	// Chars is a fetch's max_chars under the connector's cap.
	Chars(maxChars int) int
	// Untracked is this Env without keeping answers: for a side lookup
	// whose answer is not behind the result (a check of an argument
	// against a memoised list).
	Untracked() Env
	// ParsePage parses a search page of platform key with parse, through
	// the connector's cache of parsed answers (parser names parse): the
	// same body is parsed once, its hits linked to their resources.
	ParsePage(key, parser string, body []byte, parse func([]byte) (adapters.Page, error)) (adapters.Page, error)
}

// Instructor is a platform that names itself in the connector's
// instructions, the text a client gives its model first.
type Instructor interface {
	// Instruction is what the platform holds, then its name and key in
	// brackets, as a part of one sentence (each platform's mcp.go).
	Instruction() string
}

// PromptProvider is a platform that leads prompts (a plan that may call
// other platforms' tools too, where the connector offers them).
type PromptProvider interface {
	Prompts() []Prompt
}

// VocabularyProvider is a platform whose resource templates have
// variables with known values: arg is the variable's name in one of the
// platform's templates.
type VocabularyProvider interface {
	ResourceVocabulary(arg string) (Vocabulary, bool)
}
