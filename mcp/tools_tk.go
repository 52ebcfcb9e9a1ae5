package mcp

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/besluitbron/besluitbron/caddymodule/platforms"
	"github.com/besluitbron/besluitbron/mcp/adapters"
	"github.com/besluitbron/besluitbron/mcp/adapters/tk"
)

// errTKCall stops an adapter walk (tk.Getter) whose sub-request failed;
// the failure's own isError result is what the tool returns.
var errTKCall = errors.New("platform call failed")

// tkCalls runs an adapter's sub-requests and keeps their answers (for
// from_cache and queue_wait_ms) and the first failure.
type tkCalls struct {
	c       *connector
	ctx     context.Context
	answers []*answer
	fail    *mcp.CallToolResult
}

func (t *tkCalls) get(r adapters.Request) ([]byte, error) {
	ans, fail := t.c.call(t.ctx, platforms.TK, r)
	if fail != nil {
		t.fail = fail
		return nil, errTKCall
	}
	t.answers = append(t.answers, ans)
	return ans.Body, nil
}

// tkSchema resolves the field names of the configured OData root from its
// $metadata: through the platform route (a list kind in platform_cache)
// and then from the connector's memo for an hour.
func (c *connector) tkSchema(calls *tkCalls) (*tk.Schema, *mcp.CallToolResult) {
	root := c.settings().tkRoot
	key := "tk:schema:" + root
	if v, ok := c.lists.get(key, time.Now()); ok {
		return v.(*tk.Schema), nil
	}
	body, err := calls.get(tk.MetadataRequest(root))
	if err != nil {
		return nil, mcp.NewToolResultError("The Tweede Kamer's OData service description " + root + "/$metadata could not be read, so the field names are unknown. " +
			"The OData root may have moved (tk_odata_root; " + tk.DefaultRoot + " is unconfirmed). " + resultText(calls.fail))
	}
	md, err := tk.ParseMetadata(body)
	if err != nil {
		return nil, parseFailed(platforms.TK, err)
	}
	s := tk.NewSchema(root, md)
	c.lists.put(key, s, time.Now())
	return s, nil
}

// tkEntity is the resolved entity set, or the isError result that names
// what the service lacks.
func (c *connector) tkEntity(calls *tkCalls, set string) (*tk.Entity, *mcp.CallToolResult) {
	s, fail := c.tkSchema(calls)
	if fail != nil {
		return nil, fail
	}
	e, err := s.Entity(set)
	if err != nil {
		return nil, mcp.NewToolResultError(err.Error() + ".")
	}
	return e, nil
}

// tkFetchOData fetches a document through OData. done is the tool's
// result when OData answered (the document, or for a number that it does
// not exist); failed is the isError result when the route failed, or when
// a GUID was not found (the SyncFeed may still know it).
func (c *connector) tkFetchOData(calls *tkCalls, id tk.DocumentID, raw string) (done, failed *mcp.CallToolResult) {
	e, fail := c.tkEntity(calls, "Document")
	if fail != nil {
		return nil, fail
	}
	body, err := calls.get(tk.DocumentRequest(e, id))
	if err != nil {
		return nil, calls.fail
	}
	d, err := tk.ParseDocument(e, body)
	switch {
	case errors.Is(err, tk.ErrNoDocument):
		nf := mcp.NewToolResultError("Tweede Kamer has no document " + raw + ": check the number or take one from tk_search.")
		if id.GUID != "" {
			return nil, nf
		}
		return nf, nil
	case err != nil:
		return nil, parseFailed(platforms.TK, err)
	}
	return docResult(platforms.TK, d, 0, c.settings().maxTextChars, calls.answers...), nil
}

func resultText(r *mcp.CallToolResult) string {
	if r == nil {
		return ""
	}
	var sb strings.Builder
	for _, ct := range r.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

func (c *connector) tkTools() []server.ServerTool {
	var ts toolSet
	search := newTool("tk_search", "Search parliamentary documents (Tweede Kamer)",
		`Search the Tweede Kamer's Gegevensmagazijn (official open data of the Dutch House of Representatives) for documents (motions, letters, questions, reports) whose title or subject contains all given words, newest first. Dates are Dutch calendar days. Returns document number, kind, subject, date and a link to the file per document.
Cost: metadata searches are cheap and a repeated one comes from the cache; for searching inside the documents' text use opentk_search.`,
		append([]mcp.ToolOption{
			mcp.WithString("query", mcp.Description("Words that must all appear in the title or subject.")),
			mcp.WithString("soort", mcp.Description("Document kind, e.g. Motie, Amendement, Brief regering, Schriftelijke vragen.")),
			limitArg(10, tk.PageSize, ""),
			offsetArg(),
		}, dateArgs()...)...)
	ts.add(search, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		p := tk.SearchParams{Query: a.str("query"), Soort: a.str("soort"), DateFrom: a.str("date_from"), DateTo: a.str("date_to"),
			Limit: a.integer("limit", 10, 1, tk.PageSize), Offset: a.integer("offset", 0, 0, 100000)}
		if r := a.err(); r != nil {
			return r
		}
		if err := p.Check(); err != nil {
			return mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
		}
		calls := &tkCalls{c: c, ctx: ctx}
		e, fail := c.tkEntity(calls, "Document")
		if fail != nil {
			return fail
		}
		page, err := tk.Search(e, p, calls.get)
		if calls.fail != nil {
			return calls.fail
		}
		if err != nil {
			return parseFailed(platforms.TK, err)
		}
		return pageResult(platforms.TK, page, p.Offset, nil, calls.answers...)
	})

	fetch := newTool("tk_fetch", "Document details (Tweede Kamer)",
		`Fetch one Tweede Kamer document's metadata by document number (2023D41173) or GUID: title, subject, kind, date, parliamentary year and the link to its file. The Gegevensmagazijn holds the text only as a PDF/Word file; for readable text use opentk_fetch with the same number.
Cost: cheap, cached.`,
		mcp.WithString("id", mcp.Required(), mcp.Description("Document number (e.g. 2023D41173) or GUID.")))
	ts.add(fetch, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
		raw := a.required("id", "2023D41173")
		if r := a.err(); r != nil {
			return r
		}
		id, err := tk.ParseDocumentID(raw)
		if err != nil {
			return mcp.NewToolResultError("Invalid arguments: " + err.Error() + ".")
		}
		calls := &tkCalls{c: c, ctx: ctx}
		done, odataFail := c.tkFetchOData(calls, id, raw)
		if done != nil {
			return done
		}
		if id.GUID == "" {
			// The SyncFeed knows documents by GUID only.
			return odataFail
		}
		// The OData route failed: the SyncFeed is unchanged by the new
		// version and serves the same document by GUID.
		feed := &tkCalls{c: c, ctx: ctx}
		body, err := feed.get(tk.EntityRequest(id.GUID))
		if err != nil {
			return odataFail
		}
		d, err := tk.ParseFeedDocument(body)
		if errors.Is(err, tk.ErrNoDocument) {
			return mcp.NewToolResultError("Tweede Kamer has no document " + raw + " (deleted or never published): check the id or take one from tk_search.")
		}
		if err != nil {
			return odataFail
		}
		return docResult(platforms.TK, d, 0, c.settings().maxTextChars, append(calls.answers, feed.answers...)...)
	})

	list := func(name, set, title, desc string) {
		t := newTool(name, title, desc,
			mcp.WithString("name", mcp.Description("Only items whose name or abbreviation contains this text.")),
			mcp.WithBoolean("include_inactive", mcp.Description("Also former ones (with an end date in the past). Default false.")))
		ts.add(t, func(ctx context.Context, req mcp.CallToolRequest, a *args) *mcp.CallToolResult {
			filter := strings.ToLower(a.str("name"))
			all := a.boolean("include_inactive", false)
			if res := a.err(); res != nil {
				return res
			}
			calls := &tkCalls{c: c, ctx: ctx}
			e, fail := c.tkEntity(calls, set)
			if fail != nil {
				return fail
			}
			l, err := tk.ListAll(e, calls.get)
			if calls.fail != nil {
				return calls.fail
			}
			if err != nil {
				return parseFailed(platforms.TK, err)
			}
			out := []adapters.Item{}
			for _, it := range l.Items(all, time.Now()) {
				if filter == "" || strings.Contains(strings.ToLower(it.Label+" "+it.Extra["afkorting"]), filter) {
					out = append(out, it)
				}
			}
			v := map[string]any{"count": len(out), "items": out}
			if l.Truncated {
				v["truncated"] = true
				v["note"] = "The list is longer than BesluitBron reads in one call; narrow it with name."
			}
			return jsonResult(platforms.TK, v, calls.answers...)
		})
	}
	list("tk_commissies", "Commissie", "Committees (Tweede Kamer)",
		`List the Tweede Kamer's committees (commissies) with id, name, abbreviation and kind; only current ones unless include_inactive.
Cost: cheap; the list changes rarely and is kept in the cache for a long time.`)
	list("tk_fracties", "Fractie", "Parliamentary groups (Tweede Kamer)",
		`List the Tweede Kamer's parliamentary groups (fracties) with abbreviation, name and seats; only current ones unless include_inactive.
Cost: cheap; the list changes at elections and is kept in the cache for a long time.`)
	return ts
}
