package adapters

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/yosida95/uritemplate/v3"
)

// Scheme is the URI scheme of BesluitBron's documents as MCP resources:
// besluitbron://<platform>/<the platform's own reference>, one template
// per kind of document (ResourceKind).
const Scheme = "besluitbron"

// ResourceKind is one kind of document a platform offers as an MCP
// resource template. The platform package declares it beside its
// Surface, since only it knows how its references look; the MCP layer
// lists the templates and routes each read to Read.
type ResourceKind struct {
	// Template is an RFC 6570 URI template under besluitbron://<platform>/,
	// e.g. besluitbron://rechtspraak/{ecli}{?page}. A variable "page" is
	// the page of text the reader asks for; the MCP layer handles it.
	Template    string
	Name        string // short and unique, e.g. rechtspraak-ruling
	Title       string // for people, e.g. "Court ruling (ECLI)"
	Description string
	// Read reads the document the template's variables name (as matched:
	// decoded, absent when not given). A reference the platform package
	// refuses is an *InvalidError; a document the platform lacks is
	// ErrNoDocument.
	Read func(ctx context.Context, env Env, vars map[string]string) (Document, error)
}

// PageVar is the template variable every kind offers for paging text.
const PageVar = "page"

// ExpandURI expands template with vars; a variable missing from vars is
// left out, as RFC 6570 says. It fails only on a template that does not
// parse, which the platforms' tests rule out.
func ExpandURI(template string, vars map[string]string) (string, error) {
	if u, ok := expandSimple(template, vars); ok {
		return u, nil
	}
	t, err := parsedTemplate(template)
	if err != nil {
		return "", err
	}
	vs := uritemplate.Values{}
	for k, v := range vars {
		if v != "" {
			vs.Set(k, uritemplate.String(v))
		}
	}
	return t.Expand(vs)
}

// parsedTemplates holds each template ExpandURI has parsed. A tool call
// links every hit it answers (ten on a cached search), and parsing the
// template again for each was a fifth of a cached call's allocations.
// The templates are the platform packages' constants, a few dozen at
// most; maxParsedTemplates bounds the map should a caller ever pass
// others.
var parsedTemplates sync.Map // string → *uritemplate.Template

const maxParsedTemplates = 64

var parsedCount atomic.Int32

func parsedTemplate(template string) (*uritemplate.Template, error) {
	if t, ok := parsedTemplates.Load(template); ok {
		return t.(*uritemplate.Template), nil
	}
	t, err := uritemplate.New(template)
	if err != nil {
		return nil, fmt.Errorf("uri template %q: %w", template, err)
	}
	if parsedCount.Load() < maxParsedTemplates {
		if _, loaded := parsedTemplates.LoadOrStore(template, t); !loaded {
			parsedCount.Add(1)
		}
	}
	return t, nil
}

// FetchFunc is a surface's Fetch: document id, of type kind where the
// platform needs it.
type FetchFunc func(ctx context.Context, env Env, id, kind string) (Document, error)

// ByID makes k the one resource kind of a platform whose documents are
// read by one variable of k's template, idVar, with fetch: its Read, and
// the Surface.URI that expands the template for a document.
func ByID(k ResourceKind, idVar string, fetch FetchFunc) ([]ResourceKind, func(id, kind string) string) {
	k.Read = func(ctx context.Context, env Env, vars map[string]string) (Document, error) {
		id, err := Var(vars, idVar)
		if err != nil {
			return Document{}, err
		}
		return fetch(ctx, env, id, "")
	}
	return []ResourceKind{k}, func(id, _ string) string {
		u, _ := ExpandURI(k.Template, map[string]string{idVar: id})
		return u
	}
}

// Var is a required template variable, trimmed; its absence is an
// *InvalidError that names it.
func Var(vars map[string]string, name string) (string, error) {
	v := strings.TrimSpace(vars[name])
	if v == "" {
		return "", &InvalidError{Err: fmt.Errorf("the URI names no %s", name)}
	}
	return v, nil
}

// ErrNoResource: a URI that no kind's template matches (besluitbron://
// with an unknown platform or path).
var ErrNoResource = errors.New("no BesluitBron document kind has this URI's form")
