package registrytest

// A tenth platform that exists only in this test: its whole knowledge is
// in this file, as a real platform's is in its folder (platforms/<key>):
// its row, its request building and parsing, its surface, its own setting
// (the search path), MCP tools, a prompt with a completed argument, its
// words in the instructions, its load status, its live-check probe and
// its emulator. Nothing else in the repository names it. Its API is
// fictional (it stands for no platform; docs/emulators.md): GET
// /api/zoeken?q=&limit= (the path is its setting), GET /api/documents/{id}
// and GET /api/status, all JSON.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/emulators"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

const key = "proef"

type provider struct{}

func init() {
	platforms.Register(provider{})
	emulators.Register(key, func(int64) http.Handler { return emulator{} })
}

func (provider) Platform() platforms.Platform {
	return platforms.Platform{
		Key: key, Order: 1000, Authority: 9, Name: "Proefplatform",
		BaseURLs: []string{"https://proef.invalid"},
		Budget:   &platforms.Budget{Capacity: 10, Window: time.Second},
		Cache: map[string]platforms.CacheKind{
			platforms.KindDocument: {Paths: []string{"/api/documents/*"}},
			platforms.KindSearch:   {Paths: []string{"/api/search", "/api/zoeken"}},
		},
	}
}

// doc is a document as the platform's API writes it.
type doc struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Date  string `json:"date"`
	Text  string `json:"text,omitempty"`
}

// validID: PROEF-<digits>.
func validID(s string) (string, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	n, ok := strings.CutPrefix(s, "PROEF-")
	if _, err := strconv.Atoi(n); !ok || err != nil || n == "" || n[0] == '-' || n[0] == '+' {
		return "", fmt.Errorf("id %q: want PROEF-<number>", s)
	}
	return s, nil
}

// defaultSearchPath is the search's path unless the operator sets
// search_path (platforms.Configurable); the emulator serves /api/zoeken
// only, so a search answers only when the setting reached it.
const defaultSearchPath = "/api/search"

func (provider) Options() []string { return []string{"search_path"} }

func (provider) Settings(o platforms.Options) (any, error) {
	path := defaultSearchPath
	for name, args := range o {
		if name != "search_path" || len(args) != 1 || !strings.HasPrefix(args[0], "/") {
			return nil, fmt.Errorf("search_path takes one path starting with /, got %s %v", name, args)
		}
		path = args[0]
	}
	return path, nil
}

// searchPath is the configured search path.
func searchPath(setting any) string {
	if p, ok := setting.(string); ok {
		return p
	}
	return defaultSearchPath
}

func searchRequest(path, words string, limit int) adapters.Request {
	if limit <= 0 {
		limit = 10
	}
	return adapters.Get(path, url.Values{"q": {words}, "limit": {strconv.Itoa(limit)}})
}

func (provider) LoadStatusName() string { return "Proefstatus" }

func (provider) LoadStatusRequest() adapters.Request { return adapters.Get("/api/status", nil) }

func (provider) ParseLoadStatus(body []byte) (adapters.LoadStatus, error) {
	var st struct{ OK, Total int }
	if err := json.Unmarshal(body, &st); err != nil {
		return adapters.LoadStatus{}, err
	}
	return adapters.LoadStatus{Value: st.OK, Summary: adapters.LoadSummary{OK: st.OK, Total: st.Total}}, nil
}

func parseSearch(body []byte) (adapters.Page, error) {
	var ans struct {
		Results []doc `json:"results"`
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return adapters.Page{}, &adapters.ParseError{Err: err}
	}
	pg := adapters.Page{Total: len(ans.Results)}
	for _, d := range ans.Results {
		pg.Hits = append(pg.Hits, adapters.Hit{ID: d.ID, Title: d.Title, Date: d.Date})
	}
	return pg, nil
}

func fetch(ctx context.Context, env adapters.Env, id, _ string) (adapters.Document, error) {
	id, err := validID(id)
	if err != nil {
		return adapters.Document{}, &adapters.InvalidError{Err: err}
	}
	body, err := env.Get(ctx, key, adapters.Request{Method: "GET", Path: "/api/documents/" + id})
	if err != nil {
		return adapters.Document{}, err
	}
	var d doc
	if err := json.Unmarshal(body, &d); err != nil {
		return adapters.Document{}, &adapters.ParseError{Err: err}
	}
	return adapters.Document{ID: d.ID, Title: d.Title, Date: d.Date, Text: d.Text}, nil
}

func (provider) Surface(cfg adapters.Config) adapters.Surface {
	path := searchPath(cfg.Setting(key))
	s := adapters.Surface{
		Unfit: func(q adapters.Question) *adapters.UnfitError { return adapters.NeedWords("Proefplatform", q) },
		Search: func(ctx context.Context, env adapters.Env, q adapters.Question) (adapters.Page, error) {
			body, err := env.Get(ctx, key, searchRequest(path, q.Words, q.Limit))
			if err != nil {
				return adapters.Page{}, err
			}
			return parseSearch(body)
		},
		Fetch: fetch,
		Probe: func(adapters.ProbeConfig) (adapters.Probe, error) {
			return adapters.Probe{Name: "search", Request: searchRequest(path, "report", 1), Ext: "json",
				Documented: []byte(`{"results":[{"id":"","title":"","date":""}]}`), DocSource: "internal/registrytest"}, nil
		},
		Recognize: adapters.Recognizes(validID),
	}
	s.Resources, s.URI = adapters.ByID(adapters.ResourceKind{
		Template: "besluitbron://proef/{id}{?page}", Name: "proef-document", Title: "Test document (Proefplatform)",
		Description: "A document of the test-only platform by its id.",
	}, "id", fetch)
	return s
}

func (provider) Instruction() string { return `test documents (Proefplatform "proef")` }

// topics are the values the prompt's topic takes.
var topics = []string{"alpha", "beta", "gamma"}

func (provider) Prompts() []mcpkit.Prompt {
	return []mcpkit.Prompt{{Name: "proef_overview", Title: "Test documents on a topic",
		Desc: "The test platform's documents on a topic.",
		Args: []mcpkit.Arg{{Name: "topic", Title: "Topic", Required: true, OneOf: topics,
			Vocabulary: mcpkit.Fixed(key, topics), Desc: "One of alpha, beta, gamma."}},
		Offered: func(offers func(string) bool) bool { return offers(key) },
		Plan: func(_ mcpkit.Env, a mcpkit.Args) (string, error) {
			var p mcpkit.Plan
			p.Step("Search: %s.", mcpkit.Call("proef_search", map[string]any{"query": a["topic"]}))
			return p.Finish("What do the test documents say about " + a["topic"] + "?"), nil
		}}}
}

type searchIn struct {
	Query string `json:"query" jsonschema_description:"Words to find."`
}

type searchOut struct {
	Hits []adapters.Hit `json:"hits" jsonschema_description:"The documents found."`
}

type statusIn struct{}

type statusOut struct {
	OK      int  `json:"ok" jsonschema_description:"Sources that import fine."`
	FromNow bool `json:"fetched_now" jsonschema_description:"Fetched for this call, not kept by the maintenance."`
}

func (provider) Tools() []mcpkit.Tool {
	return []mcpkit.Tool{mcpkit.Typed("proef_search", "Search test documents (Proefplatform)", mcpkit.CostCheap,
		"Search the test platform's documents by words.",
		func(ctx context.Context, env mcpkit.Env, in searchIn) (*searchOut, *mcpgo.CallToolResult) {
			body, err := env.Getter(ctx, key)(searchRequest(searchPath(env.Setting(key)), in.Query, 10))
			if err != nil {
				return nil, mcpgo.NewToolResultError("Proefplatform: " + err.Error())
			}
			pg, err := parseSearch(body)
			if err != nil {
				return nil, mcpgo.NewToolResultError("Proefplatform answered in a form BesluitBron cannot read: " + err.Error())
			}
			return &searchOut{Hits: pg.Hits}, nil
		}),
		mcpkit.Typed("proef_status", "Load status (Proefplatform)", mcpkit.CostFree,
			"How the test platform's import goes, as the maintenance keeps it.",
			func(ctx context.Context, env mcpkit.Env, _ statusIn) (*statusOut, *mcpgo.CallToolResult) {
				kept, now, fail := env.LoadStatus(ctx, key)
				if fail != nil {
					return nil, fail
				}
				return &statusOut{OK: kept.Value.(int), FromNow: now}, nil
			})}
}

// emulator serves the fictional API: three documents.
type emulator struct{}

var corpus = []doc{
	{ID: "PROEF-1", Title: "Alpha report", Date: "2026-01-05", Text: "The alpha report says the registry finds every platform."},
	{ID: "PROEF-2", Title: "Beta minutes", Date: "2026-02-10", Text: "Beta minutes."},
	{ID: "PROEF-3", Title: "Gamma letter", Date: "2026-03-15", Text: "Gamma letter."},
}

func (emulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/api/status":
		_, _ = w.Write([]byte(`{"ok":2,"total":3}`))
	case r.URL.Path == "/api/zoeken":
		words := strings.ToLower(r.URL.Query().Get("q"))
		out := []doc{}
		for _, d := range corpus {
			if strings.Contains(strings.ToLower(d.Title+" "+d.Text), words) {
				out = append(out, doc{ID: d.ID, Title: d.Title, Date: d.Date})
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"results": out})
	case strings.HasPrefix(r.URL.Path, "/api/documents/"):
		id := strings.TrimPrefix(r.URL.Path, "/api/documents/")
		for _, d := range corpus {
			if d.ID == id {
				_ = json.NewEncoder(w).Encode(d)
				return
			}
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":"no such document"}`))
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"error":"not found"}`))
	}
}
