package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

// This file offers the platforms' documents as MCP resources: one
// template per kind of document (each platform package declares its
// own, adapters.ResourceKind), read through the same sub-requests as the
// tools, so through the same cache, budget and queue; and the long-lived
// lists (organisations, courts, committees) as listed resources.

// markdown is the MIME type of a document read as a resource.
const markdown = "text/markdown"

// resourcesFor are the resource templates of the platforms keys.
func (c *connector) resourcesFor(s *settings) []server.ServerResourceTemplate {
	var out []server.ServerResourceTemplate
	for _, key := range s.platforms {
		for _, k := range s.surfaces[key].Resources {
			out = append(out, server.ServerResourceTemplate{
				Template: mcpgo.NewResourceTemplate(k.Template, k.Name,
					mcpgo.WithTemplateTitle(k.Title),
					mcpgo.WithTemplateDescription(k.Description+" Long text comes in pages: page=2, 3, ... (the read says how many)."),
					mcpgo.WithTemplateMIMEType(markdown)),
				Handler: c.readDocument(key, k.Name),
			})
		}
	}
	return out
}

// readDocument is the resources/read handler of one kind of document.
// The kind is looked up per read in the current settings, so a reload
// that changes them takes effect at once.
func (c *connector) readDocument(platform, kindName string) server.ResourceTemplateHandlerFunc {
	return func(ctx context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
		uri := req.Params.URI
		var kind *adapters.ResourceKind
		for i, k := range c.settings().surfaces[platform].Resources {
			if k.Name == kindName {
				kind = &c.settings().surfaces[platform].Resources[i]
			}
		}
		if kind == nil || !c.offers(platform) {
			return nil, notFound(ctx, uri, "this connector no longer offers "+platform)
		}
		vars := templateVars(req.Params.Arguments)
		page, err := pageNumber(vars[adapters.PageVar])
		if err != nil {
			return nil, invalidURI(ctx, uri, err.Error())
		}
		k := c.calls(ctx, platform)
		env := adapters.Env{Get: k.getFrom, Memo: &c.lists, Now: c.now()}
		d, err := kind.Read(ctx, env, vars)
		var bad *adapters.InvalidError
		var re *adapters.RouteError
		switch {
		case errors.As(err, &bad):
			return nil, invalidURI(ctx, uri, bad.Err.Error())
		case errors.Is(err, adapters.ErrNoDocument), errors.As(err, &re) && re.Kind == adapters.KindNotFound:
			return nil, notFound(ctx, uri, platformName(platform)+" has no such document")
		case err != nil && adapters.CallFailed(err):
			return nil, errors.New(failureText(platform, err))
		case err != nil:
			return nil, fmt.Errorf("%s answered, but not in the expected form: %v", platformName(platform), err)
		}
		if d.URI == "" {
			d.URI = c.settings().surfaces[platform].URI(d.ID, d.Type)
		}
		return c.documentContents(ctx, uri, platform, d, page)
	}
}

// documentContents renders one page of d as the read's markdown: a head
// with the document's title, citation, date, source and link, then the
// page of its text. The page size is the connector's max_text_chars.
func (c *connector) documentContents(ctx context.Context, uri, platform string, d adapters.Document, page int) ([]mcpgo.ResourceContents, error) {
	size := c.settings().maxTextChars
	if size <= 0 {
		size = DefaultMaxTextChars
	}
	tp := adapters.PageText(d.Text, (page-1)*size, size)
	pages := max(1, (tp.TotalChars+size-1)/size)
	if page > pages {
		return nil, invalidURI(ctx, uri, fmt.Sprintf("page %d is past the document's last page, %d", page, pages))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", cmp.Or(d.Title, d.ID))
	for _, f := range [][2]string{{"Citation", d.Citation}, {"Type", d.Type}, {"Date", d.Date}, {"Source", d.Source},
		{"Platform", platformName(platform)}, {"Public page", d.URL}} {
		if f[1] != "" {
			fmt.Fprintf(&b, "- %s: %s\n", f[0], f[1])
		}
	}
	if pages > 1 {
		fmt.Fprintf(&b, "- Page %d of %d (characters %d to %d of %d)\n", page, pages, tp.Offset, tp.Offset+len([]rune(tp.Text)), tp.TotalChars)
	}
	b.WriteString("\n")
	b.WriteString(tp.Text)
	meta := map[string]any{"platform": platform, "id": d.ID, "page": page, "pages": pages}
	for k, v := range map[string]string{"citation": d.Citation, "source_url": d.URL, "title": d.Title, "date": d.Date} {
		if v != "" {
			meta[k] = v
		}
	}
	if page < pages {
		meta["next_page_uri"] = withPage(d.URI, page+1)
	}
	if o := outcomeOf(ctx); o != nil {
		meta["from_cache"], meta["fetched_at"] = o.fromCache(), o.fetchedAt.UTC().Format(time.RFC3339)
	}
	return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: uri, MIMEType: markdown, Text: b.String(), Meta: meta}}, nil
}

// withPage is uri asking for page n of the text.
func withPage(uri string, n int) string {
	sep := "?"
	if strings.Contains(uri, "?") {
		sep = "&"
	}
	return uri + sep + adapters.PageVar + "=" + strconv.Itoa(n)
}

// templateVars are a matched template's variables as strings: mcp-go
// passes each as the list of its values.
func templateVars(args map[string]any) map[string]string {
	out := make(map[string]string, len(args))
	for k, v := range args {
		switch x := v.(type) {
		case string:
			out[k] = x
		case []string:
			if len(x) > 0 {
				out[k] = x[0]
			}
		}
	}
	return out
}

// pageNumber reads the page variable: 1 when absent.
func pageNumber(v string) (int, error) {
	if v == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1_000_000 {
		return 0, fmt.Errorf("page %q must be a whole number from 1", v)
	}
	return n, nil
}

func platformName(key string) string {
	p, _ := platforms.Get(key)
	return p.Name
}

// listResource is a long-lived list a platform offers as a listed
// resource (mcpkit.ListProvider): the same answer as its tool, as JSON.
type listResource struct {
	platform, uri, name, title, description string
	read                                    func(c *connector, ctx context.Context) (any, error)
}

// listsFor are the listed resources of the platforms keys, those the
// platforms bring (mcpkit.ListProvider). A read runs as a tool call does
// (its own Env), and its result's Meta is filled from the answers behind
// it.
func (c *connector) listsFor(s *settings) []server.ServerResource {
	var all []listResource
	for _, p := range platforms.Providers() {
		if lp, ok := p.(mcpkit.ListProvider); ok {
			for _, l := range lp.Lists() {
				read := l.Read
				all = append(all, listResource{platform: p.Platform().Key, uri: l.URI, name: l.Name, title: l.Title, description: l.Description,
					read: func(c *connector, ctx context.Context) (any, error) {
						call := &toolCallEnv{connector: c}
						out, err := read(ctx, call)
						if err == nil {
							call.fillMeta(ctx, p.Platform().Key, out)
						}
						return out, err
					}})
			}
		}
	}
	var out []server.ServerResource
	for _, key := range s.platforms {
		for _, l := range all {
			if l.platform != key {
				continue
			}
			l := l
			out = append(out, server.ServerResource{
				Resource: mcpgo.NewResource(l.uri, l.name, mcpgo.WithResourceTitle(l.title),
					mcpgo.WithResourceDescription(l.description), mcpgo.WithMIMEType("application/json")),
				Handler: func(ctx context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
					if !c.offers(l.platform) {
						return nil, notFound(ctx, req.Params.URI, "this connector no longer offers "+l.platform)
					}
					out, err := l.read(c, ctx)
					if err != nil {
						return nil, err
					}
					b, err := json.Marshal(out)
					if err != nil {
						return nil, err
					}
					return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}, nil
				},
			})
		}
	}
	return out
}
