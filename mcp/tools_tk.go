package mcp

import (
	"context"
	"errors"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/caddymodule/platforms"
	"github.com/besluitbron/besluitbron/caddymodule/subrequest"
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
	answers []*subrequest.Answer
	fail    *mcpgo.CallToolResult
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
func (c *connector) tkSchema(calls *tkCalls) (*tk.Schema, *mcpgo.CallToolResult) {
	root := c.settings().tkRoot
	s, err := tk.SchemaOf(&c.lists, root, c.now(), calls.get)
	var bad *tk.MetadataError
	switch {
	case errors.As(err, &bad):
		return nil, parseFailed(platforms.TK, bad.Err)
	case err != nil:
		return nil, mcpgo.NewToolResultError("The Tweede Kamer's OData service description " + root + "/$metadata could not be read, so the field names are unknown. " +
			"The OData root may have moved (tk_odata_root; " + tk.DefaultRoot + " is unconfirmed). " + resultText(calls.fail))
	}
	return s, nil
}

// tkEntity is the resolved entity set, or the isError result that names
// what the service lacks.
func (c *connector) tkEntity(calls *tkCalls, set string) (*tk.Entity, *mcpgo.CallToolResult) {
	s, fail := c.tkSchema(calls)
	if fail != nil {
		return nil, fail
	}
	e, err := s.Entity(set)
	if err != nil {
		return nil, mcpgo.NewToolResultError(err.Error() + ".")
	}
	return e, nil
}

// tkFetchOData fetches a document through OData. found is the document;
// done is the tool's isError result when OData answered that a number
// does not exist; failed is the isError result when the route failed, or when
// a GUID was not found (the SyncFeed may still know it).
func (c *connector) tkFetchOData(calls *tkCalls, id tk.DocumentID, raw string) (found *docOut, done, failed *mcpgo.CallToolResult) {
	e, fail := c.tkEntity(calls, "Document")
	if fail != nil {
		return nil, nil, fail
	}
	body, err := calls.get(tk.DocumentRequest(e, id))
	if err != nil {
		return nil, nil, calls.fail
	}
	d, err := tk.ParseDocument(e, body)
	switch {
	case errors.Is(err, tk.ErrNoDocument):
		nf := mcpgo.NewToolResultError("Tweede Kamer has no document " + raw + ": check the number or take one from tk_search.")
		if id.GUID != "" {
			return nil, nil, nf
		}
		return nil, nf, nil
	case err != nil:
		return nil, nil, parseFailed(platforms.TK, err)
	}
	return doc(platforms.TK, d, 0, c.settings().maxTextChars, calls.answers...), nil, nil
}

func resultText(r *mcpgo.CallToolResult) string {
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

const tkSearchDesc = `Search the Tweede Kamer's Gegevensmagazijn (official open data of the Dutch House of Representatives) for documents (motions, letters, questions, reports) whose title or subject contains all given words, newest first. Dates are Dutch calendar days. Returns document number, kind, subject, date and a link to the file per document.
Cost: metadata searches are cheap and a repeated one comes from the cache; for searching inside the documents' text use opentk_search.`

const tkFetchDesc = `Fetch one Tweede Kamer document's metadata by document number (2023D41173) or GUID: title, subject, kind, date, parliamentary year and the link to its file. The Gegevensmagazijn holds the text only as a PDF/Word file; for readable text use opentk_fetch with the same number.
Cost: cheap, cached.`

const tkCommissiesDesc = `List the Tweede Kamer's committees (commissies) with id, name, abbreviation and kind; only current ones unless include_inactive.
Cost: cheap; the list changes rarely and is kept in the cache for a long time.`

const tkFractiesDesc = `List the Tweede Kamer's parliamentary groups (fracties) with abbreviation, name and seats; only current ones unless include_inactive.
Cost: cheap; the list changes at elections and is kept in the cache for a long time.`

type tkSearchIn struct {
	Query  string `json:"query,omitempty" jsonschema_description:"Words that must all appear in the title or subject."`
	Soort  string `json:"soort,omitempty" jsonschema_description:"Document kind, e.g. Motie, Amendement, Brief regering, Schriftelijke vragen."`
	Limit  int    `json:"limit,omitempty" jsonschema_description:"Results per page." jsonschema_extras:"minimum=1,maximum=tk.PageSize,default=10"`
	Offset int    `json:"offset,omitempty" jsonschema_description:"Skip this many results (paging; use next_offset of the previous page)." jsonschema_extras:"minimum=0,maximum=100000,default=0"`
	datesIn
}

func (c *connector) tkSearch(ctx context.Context, in tkSearchIn) (*pageOut, *mcpgo.CallToolResult) {
	p := tk.SearchParams{Query: in.Query, Soort: in.Soort, DateFrom: in.DateFrom, DateTo: in.DateTo, Limit: in.Limit, Offset: in.Offset}
	if err := p.Check(); err != nil {
		return nil, invalid(err)
	}
	calls := &tkCalls{c: c, ctx: ctx}
	e, fail := c.tkEntity(calls, "Document")
	if fail != nil {
		return nil, fail
	}
	pg, err := tk.Search(e, p, calls.get)
	if calls.fail != nil {
		return nil, calls.fail
	}
	if err != nil {
		return nil, parseFailed(platforms.TK, err)
	}
	return page(platforms.TK, pg, p.Offset, calls.answers...), nil
}

type tkFetchIn struct {
	ID string `json:"id" jsonschema_description:"Document number (e.g. 2023D41173) or GUID." jsonschema_extras:"examples=2023D41173"`
}

func (c *connector) tkFetch(ctx context.Context, in tkFetchIn) (*docOut, *mcpgo.CallToolResult) {
	raw := in.ID
	id, err := tk.ParseDocumentID(raw)
	if err != nil {
		return nil, invalid(err)
	}
	calls := &tkCalls{c: c, ctx: ctx}
	found, done, odataFail := c.tkFetchOData(calls, id, raw)
	if found != nil || done != nil {
		return found, done
	}
	if id.GUID == "" {
		// The SyncFeed knows documents by GUID only.
		return nil, odataFail
	}
	// The OData route failed: the SyncFeed is unchanged by the new
	// version and serves the same document by GUID.
	feed := &tkCalls{c: c, ctx: ctx}
	body, err := feed.get(tk.EntityRequest(id.GUID))
	if err != nil {
		return nil, odataFail
	}
	d, err := tk.ParseFeedDocument(body)
	if errors.Is(err, tk.ErrNoDocument) {
		return nil, mcpgo.NewToolResultError("Tweede Kamer has no document " + raw + " (deleted or never published): check the id or take one from tk_search.")
	}
	if err != nil {
		return nil, odataFail
	}
	return doc(platforms.TK, d, 0, c.settings().maxTextChars, append(calls.answers, feed.answers...)...), nil
}

// tkListIn filters a Tweede Kamer list (committees, groups).
type tkListIn struct {
	Name            string `json:"name,omitempty" jsonschema_description:"Only items whose name or abbreviation contains this text."`
	IncludeInactive bool   `json:"include_inactive,omitempty" jsonschema_description:"Also former ones (with an end date in the past)." jsonschema_extras:"default=false"`
}

type listOut struct {
	resultMeta
	Count     int             `json:"count"`
	Items     []adapters.Item `json:"items"`
	Truncated bool            `json:"truncated,omitempty" jsonschema_description:"The list is longer than BesluitBron reads in one call."`
	Note      string          `json:"note,omitempty"`
}

func (c *connector) tkCommissies(ctx context.Context, in tkListIn) (*listOut, *mcpgo.CallToolResult) {
	return c.tkList(ctx, "Commissie", in)
}

func (c *connector) tkFracties(ctx context.Context, in tkListIn) (*listOut, *mcpgo.CallToolResult) {
	return c.tkList(ctx, "Fractie", in)
}

func (c *connector) tkList(ctx context.Context, set string, in tkListIn) (*listOut, *mcpgo.CallToolResult) {
	filter := strings.ToLower(in.Name)
	calls := &tkCalls{c: c, ctx: ctx}
	e, fail := c.tkEntity(calls, set)
	if fail != nil {
		return nil, fail
	}
	l, err := tk.ListAll(e, calls.get)
	if calls.fail != nil {
		return nil, calls.fail
	}
	if err != nil {
		return nil, parseFailed(platforms.TK, err)
	}
	out := &listOut{Items: []adapters.Item{}}
	for _, it := range l.Items(in.IncludeInactive, c.now()) {
		if filter == "" || strings.Contains(strings.ToLower(it.Label+" "+it.Extra["afkorting"]), filter) {
			out.Items = append(out.Items, it)
		}
	}
	out.resultMeta, out.Count = meta(platforms.TK, calls.answers...), len(out.Items)
	if l.Truncated {
		out.Truncated = true
		out.Note = "The list is longer than BesluitBron reads in one call; narrow it with name."
	}
	return out, nil
}
