package mcp

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// checkArguments holds a tool call's arguments to the tool's advertised
// input schema (toolschema.go) and returns them ready for binding into the
// tool's input struct: strings trimmed, numbers given as strings read as
// numbers, defaults filled in from the schema. Anything else is an isError
// result naming every argument to fix and what it takes.
//
// mcp-go's own WithInputSchemaValidation is not used: it refuses "10" for
// an integer, which models send and the tools have always read, and its
// messages ("/limit: maximum: got 1,000, want 100") do not say the whole
// allowed range. This check reads the same schema, so what a client is
// shown is what is enforced.
func checkArguments(t mcpgo.Tool, raw any) (map[string]any, *mcpgo.CallToolResult) {
	var errs []string
	in, err := argumentObject(raw)
	if err != "" {
		errs = append(errs, err)
	}
	props := t.InputSchema.Properties
	var unknown []string
	for k := range in {
		if _, ok := props[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		known := make([]string, 0, len(props))
		for k := range props {
			known = append(known, k)
		}
		sort.Strings(known)
		errs = append(errs, fmt.Sprintf("unknown argument(s) %s: %s takes %s", strings.Join(unknown, ", "), t.Name, strings.Join(known, ", ")))
	}
	required := map[string]bool{}
	for _, r := range t.InputSchema.Required {
		required[r] = true
	}
	out := make(map[string]any, len(props))
	for _, name := range propertyNames(t.InputSchema) {
		p, _ := props[name].(map[string]any)
		v, given := in[name]
		if !given || v == nil {
			if d, ok := p["default"]; ok {
				out[name] = d
			} else if required[name] {
				errs = append(errs, missing(name, p))
			}
			continue
		}
		val, msg := checkValue(name, p, v)
		if msg != "" {
			errs = append(errs, msg)
			continue
		}
		if s, ok := val.(string); ok && s == "" {
			if required[name] {
				errs = append(errs, missing(name, p))
			}
			continue // blank is not given: the default, if any, holds
		}
		out[name] = val
	}
	if len(errs) > 0 {
		return nil, mcpgo.NewToolResultError("Invalid arguments: " + strings.Join(errs, "; ") + ".")
	}
	return out, nil
}

// argumentObject is the arguments as a JSON object; no arguments at all
// is an empty one.
func argumentObject(raw any) (map[string]any, string) {
	switch v := raw.(type) {
	case nil:
		return map[string]any{}, ""
	case map[string]any:
		return v, ""
	case json.RawMessage:
		var m map[string]any
		if len(v) == 0 || string(v) == "null" {
			return map[string]any{}, ""
		}
		if json.Unmarshal(v, &m) != nil || m == nil {
			return map[string]any{}, "arguments must be a JSON object"
		}
		return m, ""
	}
	return map[string]any{}, "arguments must be a JSON object, got " + typeName(raw)
}

func missing(name string, p map[string]any) string {
	if ex, ok := p["examples"].([]any); ok && len(ex) > 0 {
		return fmt.Sprintf("%s is required, e.g. %v", name, ex[0])
	}
	return name + " is required"
}

// checkValue checks one given argument against its property schema and
// returns its normalised value, or a message saying what it must be.
func checkValue(name string, p map[string]any, v any) (any, string) {
	typ, _ := p["type"].(string)
	switch typ {
	case "string":
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Sprintf("%s must be a string, got %s", name, typeName(v))
		}
		if max, ok := number(p["maxLength"]); ok && float64(len([]rune(s))) > max {
			return nil, fmt.Sprintf("%s is %d characters long: use at most %v", name, len([]rune(s)), max)
		}
		s = strings.TrimSpace(s)
		if enum, ok := p["enum"].([]any); ok && s != "" && !inEnum(s, enum) {
			msg := fmt.Sprintf("%s %q must be one of %s", name, s, joinAny(enum))
			if d, _ := p["description"].(string); d != "" {
				msg += " (" + strings.TrimSuffix(d, ".") + ")"
			}
			return nil, msg
		}
		return s, ""
	case "integer":
		var f float64
		switch t := v.(type) {
		case float64:
			f = t
		case json.Number:
			n, err := t.Float64()
			if err != nil {
				return nil, fmt.Sprintf("%s must be a number, got %q", name, t.String())
			}
			f = n
		case string:
			n, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
			if err != nil {
				return nil, fmt.Sprintf("%s must be a number, got %q", name, t)
			}
			f = n
		default:
			return nil, fmt.Sprintf("%s must be a number, got %s", name, typeName(v))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) {
			return nil, fmt.Sprintf("%s must be a whole number, got %s", name, numText(f))
		}
		lo, hasLo := number(p["minimum"])
		hi, hasHi := number(p["maximum"])
		if (hasLo && f < lo) || (hasHi && f > hi) {
			return nil, fmt.Sprintf("%s %s is out of range: use %s", name, numText(f), rangeText(p))
		}
		return f, ""
	case "boolean":
		switch t := v.(type) {
		case bool:
			return t, ""
		case string:
			if b, err := strconv.ParseBool(strings.TrimSpace(t)); err == nil {
				return b, ""
			}
		}
		return nil, fmt.Sprintf("%s must be true or false, got %s", name, typeName(v))
	}
	// A type this check does not know is a programming error in an input
	// struct; TestToolSchemasAreEnforced names it.
	return nil, fmt.Sprintf("%s has a type (%q) the connector cannot check", name, typ)
}

// propertyNames lists a schema's properties in the input struct's field
// order, so messages name the arguments in the order a reader sees them.
func propertyNames(s mcpgo.ToolInputSchema) []string {
	names := make([]string, 0, len(s.Properties))
	seen := map[string]bool{}
	for _, n := range s.PropertyOrder {
		if _, ok := s.Properties[n]; ok && !seen[n] {
			names, seen[n] = append(names, n), true
		}
	}
	var rest []string
	for n := range s.Properties {
		if !seen[n] {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	return append(names, rest...)
}

// numText writes a number as a person would: 1073741825, not
// 1.073741825e+09 (past 1e15, where digits stop meaning much, as Go does).
func numText(f float64) string {
	if math.Abs(f) < 1e15 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(f)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

func inEnum(s string, enum []any) bool {
	for _, e := range enum {
		if e == s {
			return true
		}
	}
	return false
}

func joinAny(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ", ")
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64, int, int64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}
