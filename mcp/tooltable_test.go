package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

// boundsConnector offers every platform's tools, with no Caddy server
// behind it: arguments that pass the checks end at the first platform
// call ("internal error: the tool call has no Caddy server"), so what a
// call tests is everything before that.
func boundsConnector(t *testing.T) *connector {
	t.Helper()
	c := newConnector("bounds-"+strings.ToLower(t.Name()), time.Minute, session.NewRegistry(1000, time.Hour, nil))
	t.Cleanup(func() { _ = c.Destruct() })
	c.configure(settings{platforms: platforms.Keys(), maxTextChars: DefaultMaxTextChars})
	return c
}

// rawCall sends one tools/call through mcp-go's message handling, as a
// client's call arrives, and returns the result's text and isError.
func rawCall(t *testing.T, c *connector, name string, args any) (string, bool) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	resp, ok := c.mcp.HandleMessage(ctx, b).(mcpgo.JSONRPCResponse)
	if !ok {
		t.Fatalf("%s %s: no tool result", name, b)
	}
	res, ok := resp.Result.(*mcpgo.CallToolResult)
	if !ok {
		t.Fatalf("%s: result %T", name, resp.Result)
	}
	return mcpkit.ResultText(res), res.IsError
}

// oneOf are the arguments a search needs one of (a rule across arguments
// its adapter checks, not a bound of one argument).
var oneOf = map[string]map[string]any{
	"obv_search":  {"query": "stikstof"},
	"obv_votes":   {"query": "stikstof"},
	"ob_search":   {"query": "stikstof"},
	"tk_search":   {"query": "stikstof"},
	"tk_votes":    {"dossier": "36200-VII"},
	"search_all":  {"query": "stikstof"},
	"bwb_search":  {"query": "gemeentewet"},
	"cvdr_search": {"query": "parkeren"},
}

// props is a tool's advertised input properties.
func props(t *testing.T, c *connector, name string) (map[string]map[string]any, []string) {
	t.Helper()
	tool := c.mcp.GetTool(name).Tool
	b, err := json.Marshal(tool)
	if err != nil {
		t.Fatal(err)
	}
	// Read the schema from the JSON a client is sent, not from Go values.
	var sent struct {
		InputSchema struct {
			Properties map[string]map[string]any `json:"properties"`
			Required   []string                  `json:"required"`
		} `json:"inputSchema"`
	}
	if err := json.Unmarshal(b, &sent); err != nil {
		t.Fatal(err)
	}
	return sent.InputSchema.Properties, sent.InputSchema.Required
}

// TestToolSchemasAreEnforced walks every tool: it reads the input schema
// a client is sent and holds the handler to exactly its bounds. Values
// just inside pass the argument check; values just outside get an
// isError result naming the argument and what it takes; defaults are the
// values the handler gets when the argument is left out; every required
// argument is required; no argument is unknown to the schema.
func TestToolSchemasAreEnforced(t *testing.T) {
	c := boundsConnector(t)
	var names []string
	for name := range c.mcp.ListTools() {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) != len(allSpecs()) {
		t.Fatalf("the connector offers %d tools, the table lists %d", len(names), len(allSpecs()))
	}
	// passes: the argument check takes arg's value. A refusal by a rule
	// across arguments (a Verslag's id must be a GUID) may follow, but
	// not one that names arg.
	passes := func(name string, args map[string]any, arg, what string) {
		t.Helper()
		text, isErr := rawCall(t, c, name, args)
		if isErr && strings.HasPrefix(text, "Invalid arguments") && (arg == "" || strings.Contains(text, arg)) {
			t.Errorf("%s %s %v: refused: %s", name, what, args, text)
		}
	}
	fails := func(name string, args map[string]any, what string, want ...string) {
		t.Helper()
		text, isErr := rawCall(t, c, name, args)
		if !isErr || !strings.HasPrefix(text, "Invalid arguments: ") {
			t.Errorf("%s %s %v: taken: isError=%v %s", name, what, args, isErr, text)
			return
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s %s %v: %q does not say %q", name, what, args, text, w)
			}
		}
	}
	for _, name := range names {
		ps, required := props(t, c, name)
		base := map[string]any{}
		for k, v := range oneOf[name] {
			base[k] = v
		}
		for _, r := range required {
			ex, _ := ps[r]["examples"].([]any)
			if len(ex) == 0 {
				t.Fatalf("%s: required %s has no example", name, r)
			}
			base[r] = ex[0]
		}
		with := func(k string, v any) map[string]any {
			m := map[string]any{}
			for bk, bv := range base {
				m[bk] = bv
			}
			m[k] = v
			return m
		}
		passes(name, base, "", "required arguments only")
		fails(name, with("no_such_argument", 1), "unknown argument", "unknown argument(s) no_such_argument")
		for _, r := range required {
			args := with("x", nil)
			delete(args, "x")
			delete(args, r)
			fails(name, args, "without "+r, r+" is required, e.g. ")
			fails(name, with(r, "   "), "blank "+r, r+" is required")
		}
		for arg, p := range ps {
			if p["description"] == nil || p["description"] == "" {
				t.Errorf("%s %s: no description", name, arg)
			}
			switch p["type"] {
			case "integer":
				lo, okLo := p["minimum"].(float64)
				hi, okHi := p["maximum"].(float64)
				def, okDef := p["default"].(float64)
				if !okLo || !okHi || !okDef || def < lo || def > hi {
					t.Errorf("%s %s: an integer needs minimum, maximum and a default between: %v", name, arg, p)
					continue
				}
				rng := fmt.Sprintf("use %d to %d", int64(lo), int64(hi))
				passes(name, with(arg, lo), arg, "minimum")
				passes(name, with(arg, hi), arg, "maximum")
				passes(name, with(arg, strconv.FormatFloat(hi, 'f', -1, 64)), arg, "maximum as a string")
				fails(name, with(arg, lo-1), "below minimum", arg+" ", "is out of range", rng)
				fails(name, with(arg, hi+1), "above maximum", arg+" ", "is out of range", rng)
				fails(name, with(arg, lo+0.5), "fraction", arg+" must be a whole number")
				fails(name, with(arg, "many"), "word", arg+` must be a number, got "many"`)
				fails(name, with(arg, true), "boolean", arg+" must be a number, got a boolean")
			case "string":
				max, ok := p["maxLength"].(float64)
				if !ok {
					t.Errorf("%s %s: a string needs maxLength", name, arg)
					continue
				}
				long := strings.Repeat("a", int(max)+1)
				fails(name, with(arg, long), "too long", fmt.Sprintf("%s is %d characters long: use at most %v", arg, len(long), max))
				fails(name, with(arg, 42), "number", arg+" must be a string, got a number")
				if enum, ok := p["enum"].([]any); ok {
					for _, v := range enum {
						passes(name, with(arg, v), arg, "enum value")
					}
					fails(name, with(arg, "no-such-value"), "outside enum", arg+` "no-such-value" must be one of `+joinAny(enum))
				}
			case "boolean":
				passes(name, with(arg, true), arg, "true")
				passes(name, with(arg, "false"), arg, `"false"`)
				fails(name, with(arg, "maybe"), "not a boolean", arg+" must be true or false")
			default:
				t.Errorf("%s %s: type %v the argument check does not know", name, arg, p["type"])
			}
		}
	}
}

// TestToolDefaultsReachTheHandler: an argument left out reaches the
// handler's input struct as the schema's default, and every field of the
// input struct is in the schema (nothing is bound that a client is not
// shown).
func TestToolDefaultsReachTheHandler(t *testing.T) {
	c := boundsConnector(t)
	for _, s := range allSpecs() {
		ps, required := props(t, c, s.tool.Name)
		base := map[string]any{}
		for _, r := range required {
			base[r] = ps[r]["examples"].([]any)[0]
		}
		args, fail := checkArguments(s.tool, base)
		if fail != nil {
			t.Fatalf("%s: %s", s.tool.Name, mcpkit.ResultText(fail))
		}
		in := reflect.New(s.in)
		req := mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Arguments: args}}
		if err := req.BindArguments(in.Interface()); err != nil {
			t.Fatalf("%s: %v", s.tool.Name, err)
		}
		bound := map[string]any{}
		b, _ := json.Marshal(in.Interface())
		_ = json.Unmarshal(b, &bound)
		fields := jsonFields(s.in)
		for _, f := range fields {
			if _, ok := ps[f]; !ok {
				t.Errorf("%s: input field %s is not in the schema", s.tool.Name, f)
			}
		}
		if len(fields) != len(ps) {
			t.Errorf("%s: %d input fields, %d schema properties", s.tool.Name, len(fields), len(ps))
		}
		for arg, p := range ps {
			def, ok := p["default"]
			if !ok {
				continue
			}
			got, present := bound[arg]
			if !present { // omitempty dropped a zero value
				got = reflect.Zero(reflect.TypeOf(def)).Interface()
			}
			if fmt.Sprint(got) != fmt.Sprint(def) {
				t.Errorf("%s %s: the handler gets %v, the schema says default %v", s.tool.Name, arg, got, def)
			}
		}
	}
}

func jsonFields(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out = append(out, name)
	}
	return out
}

func allSpecs() []toolSpec {
	out := append([]toolSpec{}, connectorTools()...)
	for _, p := range allTools() {
		out = append(out, p.tools...)
	}
	return out
}

// TestToolTable: every tool has an output schema, a cost class and a
// "Cost:" sentence, read-only annotations; names are unique and carry
// their platform's prefix; the opt-in platforms are ori (listed only)
// and oa (experimental_oa).
func TestToolTable(t *testing.T) {
	seen := map[string]bool{}
	classes := map[string]bool{mcpkit.CostFree: true, mcpkit.CostCheap: true, mcpkit.CostBudget: true, mcpkit.CostFullText: true}
	check := func(prefix string, s toolSpec) {
		n := s.tool.Name
		if seen[n] {
			t.Errorf("%s twice", n)
		}
		seen[n] = true
		if !strings.HasPrefix(n, prefix+"_") {
			t.Errorf("%s is not named %s_...", n, prefix)
		}
		if s.tool.OutputSchema.Type != "object" || len(s.tool.OutputSchema.Properties) == 0 {
			t.Errorf("%s: no output schema", n)
		}
		for _, k := range []string{"platform", "from_cache", "queue_wait_ms"} {
			if _, ok := s.tool.OutputSchema.Properties[k]; !ok {
				t.Errorf("%s: output schema lacks %s", n, k)
			}
		}
		if !classes[s.cost] {
			t.Errorf("%s: cost class %q", n, s.cost)
		}
		if !strings.Contains(s.tool.Description, "\nCost: ") {
			t.Errorf("%s: the description says nothing about cost", n)
		}
		a := s.tool.Annotations
		if a.ReadOnlyHint == nil || !*a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
			t.Errorf("%s: not annotated read-only", n)
		}
	}
	for _, s := range connectorTools() {
		if s.tool.Name == "search_all" { // issue 14 names it so: it spans every platform
			check("search", s)
			continue
		}
		if s.tool.Name == "dossier_timeline" { // issue 37 names it so; the dossier_status prompt calls it
			check("dossier", s)
			continue
		}
		check("besluitbron", s)
	}
	for _, p := range allTools() {
		if _, ok := platforms.Get(p.key); !ok {
			t.Errorf("table row %q is no platform", p.key)
		}
		for _, s := range p.tools {
			check(p.key, s)
		}
	}
	for _, k := range platforms.Keys() {
		if len(toolNamesOf(k)) == 0 {
			t.Errorf("platform %s has no tools in the table", k)
		}
	}
	if optInOf(platforms.ORI) != platforms.ToolsOptIn || optInOf(platforms.OA) != platforms.ToolsExperimental || optInOf(platforms.OBV) != platforms.ToolsDefault || optInOf("nosuch") != platforms.ToolsOptIn {
		t.Error("opt-in: ori only where listed, oa only with experimental_oa")
	}
}

// TestArgumentsHostile: what is not an object, and arguments that break
// several rules at once, get one isError result naming each problem, in
// the order of the tool's arguments.
func TestArgumentsHostile(t *testing.T) {
	c := boundsConnector(t)
	for _, tc := range []struct {
		args any
		want string
	}{
		{"query", "Invalid arguments: arguments must be a JSON object, got a string."},
		{[]any{1, 2}, "arguments must be a JSON object, got a list"},
		{map[string]any{"query": 7, "limit": 0, "offset": -1, "sort": "relevance", "colour": "red"},
			"Invalid arguments: unknown argument(s) colour: obv_search takes date_from, date_to, entity_type, full_text, limit, offset, organization, query, sort; " +
				"query must be a string, got a number; sort \"relevance\" must be one of date_desc, date_asc, title_asc"},
		{map[string]any{"limit": 1e300}, "limit 1e+300 is out of range: use 1 to 100"},
		{map[string]any{"limit": "NaN"}, "limit must be a whole number"},
	} {
		text, isErr := rawCall(t, c, "obv_search", tc.args)
		if !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("%v: isError=%v %q, want %q", tc.args, isErr, text, tc.want)
		}
	}
	// The order of the messages is the tool's argument order.
	text, _ := rawCall(t, c, "obv_search", map[string]any{"offset": -1, "limit": 0})
	if i, j := strings.Index(text, "limit 0"), strings.Index(text, "offset -1"); i < 0 || j < i {
		t.Errorf("messages out of order: %s", text)
	}
}

// docRow is a tool's line in docs/mcp.md's argument table, written from
// the schema a client is sent.
func docRow(s toolSpec) string {
	var args []string
	for _, name := range propertyNames(s.tool.InputSchema) {
		p := s.tool.InputSchema.Properties[name].(map[string]any)
		a := "`" + name + "`"
		for _, r := range s.tool.InputSchema.Required {
			if r == name {
				a += " (required)"
			}
		}
		if e, ok := p["enum"].([]any); ok {
			a += " " + joinAny(e)
		}
		if r := rangeText(p); r != "" {
			a += " " + r
		}
		if d, ok := p["default"]; ok {
			a += fmt.Sprintf(", default %v", d)
		}
		args = append(args, a)
	}
	if len(args) == 0 {
		args = []string{"none"}
	}
	var outs []string
	for name := range s.tool.OutputSchema.Properties {
		switch name {
		case "platform", "from_cache", "queue_wait_ms", "cache_status", "fetched_at":
		default:
			outs = append(outs, name)
		}
	}
	sort.Strings(outs)
	return fmt.Sprintf("| `%s` | %s | %s | %s |", s.tool.Name, strings.Join(args, "; "), strings.Join(outs, ", "), s.cost)
}

// TestDocsListEveryTool: docs/mcp.md lists every tool with the
// arguments, bounds and defaults its schema has (print the rows with
// BESLUITBRON_PRINT_TOOL_ROWS=1 after changing a tool).
func TestDocsListEveryTool(t *testing.T) {
	b, err := os.ReadFile("../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range allSpecs() {
		row := docRow(s)
		if os.Getenv("BESLUITBRON_PRINT_TOOL_ROWS") != "" {
			fmt.Println(row)
		}
		if !strings.Contains(string(b), row+"\n") {
			t.Errorf("docs/mcp.md lacks the row\n%s", row)
		}
	}
}

// TestArgumentChecksInParallel: two connectors share the table's tools
// (one schema per tool, built once); thousands of calls in flight on
// both, good and bad, each get their own answer and never a data race
// (run with -race).
func TestArgumentChecksInParallel(t *testing.T) {
	a, b := boundsConnector(t), boundsConnector(t)
	cases := []struct {
		args    map[string]any
		refused string
	}{
		{map[string]any{"query": "x", "limit": 100}, ""},
		{map[string]any{"query": "x", "limit": 101}, "limit 101 is out of range: use 1 to 100"},
		{map[string]any{"query": "x", "sort": "nope"}, `sort "nope" must be one of`},
		{map[string]any{"organization": "soest", "offset": "10000"}, ""},
		{map[string]any{"colour": "red"}, "unknown argument(s) colour"},
	}
	const calls = 2000
	errs := make(chan string, calls)
	sem := make(chan struct{}, 64)
	for i := 0; i < calls; i++ {
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem }()
			c := a
			if i%2 == 1 {
				c = b
			}
			tc := cases[i%len(cases)]
			text, isErr := rawCallNoT(c, "obv_search", tc.args)
			refused := isErr && strings.HasPrefix(text, "Invalid arguments")
			switch {
			case tc.refused == "" && refused:
				errs <- fmt.Sprintf("%v refused: %s", tc.args, text)
			case tc.refused != "" && (!refused || !strings.Contains(text, tc.refused)):
				errs <- fmt.Sprintf("%v: %s, want %q", tc.args, text, tc.refused)
			default:
				errs <- ""
			}
		}(i)
	}
	for i := 0; i < calls; i++ {
		if e := <-errs; e != "" {
			t.Fatal(e)
		}
	}
}

// rawCallNoT is rawCall for goroutines (no t.Fatal off the test's own).
func rawCallNoT(c *connector, name string, args any) (string, bool) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	resp, ok := c.mcp.HandleMessage(ctx, b).(mcpgo.JSONRPCResponse)
	if !ok {
		return "no tool result", true
	}
	res, ok := resp.Result.(*mcpgo.CallToolResult)
	if !ok {
		return fmt.Sprintf("result %T", resp.Result), true
	}
	return mcpkit.ResultText(res), res.IsError
}
