package mcp

import (
	"context"
	"errors"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/tk"
)

// tkSchema resolves the field names of the configured OData root from its
// $metadata: through the platform route (a list kind in platform_cache)
// and then from the connector's memo for an hour.
func (c *connector) tkSchema(k *calls) (*tk.Schema, error) {
	return tk.SchemaOf(&c.lists, c.settings().tkRoot, c.now(), k.get)
}

// tkFailed is the isError result for a failed Tweede Kamer call: an
// unreadable $metadata says the OData root may have moved.
func tkFailed(k *calls, err error) *mcpgo.CallToolResult {
	var bad *tk.MetadataError
	var unread *tk.SchemaError
	var mismatch *tk.MismatchError
	switch {
	case errors.As(err, &bad):
		return mcpkit.ParseFailed(platforms.TK, bad.Err)
	case errors.As(err, &unread):
		return mcpgo.NewToolResultError("The Tweede Kamer's OData service description " + unread.Root + "/$metadata could not be read, so the field names are unknown. " +
			"The OData root may have moved (tk_odata_root; " + tk.DefaultRoot + " is unconfirmed). " + failureText(platforms.TK, unread.Err))
	case errors.As(err, &mismatch):
		return mcpgo.NewToolResultError(err.Error() + ".")
	}
	return k.failed(err)
}

// tkEntity is the resolved entity set.
func (c *connector) tkEntity(k *calls, set string) (*tk.Entity, error) {
	s, err := c.tkSchema(k)
	if err != nil {
		return nil, err
	}
	return s.Entity(set)
}

const tkSearchDesc = `Search the Tweede Kamer's Gegevensmagazijn (official open data of the Dutch House of Representatives) for documents (motions, letters, questions, reports) whose title or subject contains all given words, newest first. Dates are Dutch calendar days. Returns document number, kind, subject, date and a link to the file per document, and for a kamerstuk its number as Officiële Bekendmakingen publishes it (kamerstuk: kst-36200-VII-12).
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
	mcpkit.DatesIn
}

func (c *connector) tkSearch(ctx context.Context, in tkSearchIn) (*mcpkit.PageOut, *mcpgo.CallToolResult) {
	p := tk.SearchParams{Query: in.Query, Soort: in.Soort, DateFrom: in.DateFrom, DateTo: in.DateTo, Limit: in.Limit, Offset: in.Offset}
	if err := p.Check(); err != nil {
		return nil, mcpkit.Invalid(err)
	}
	k := c.calls(ctx, platforms.TK)
	e, err := c.tkEntity(k, "Document")
	if err != nil {
		return nil, tkFailed(k, err)
	}
	pg, err := tk.Search(e, p, k.get)
	if err != nil {
		return nil, tkFailed(k, err)
	}
	return page(platforms.TK, pg, p.Offset, k.answers...), nil
}

type tkFetchIn struct {
	ID string `json:"id" jsonschema_description:"Document number (e.g. 2023D41173) or GUID." jsonschema_extras:"examples=2023D41173"`
}

func (c *connector) tkFetch(ctx context.Context, in tkFetchIn) (*mcpkit.DocOut, *mcpgo.CallToolResult) {
	raw := in.ID
	id, err := tk.ParseDocumentID(raw)
	if err != nil {
		return nil, mcpkit.Invalid(err)
	}
	k := c.calls(ctx, platforms.TK)
	d, err := tk.Fetch(id, func() (*tk.Schema, error) { return c.tkSchema(k) }, k.get)
	if errors.Is(err, tk.ErrNoDocument) {
		return nil, mcpgo.NewToolResultError("Tweede Kamer has no document " + raw + ": check the number or take one from tk_search.")
	}
	if err != nil {
		return nil, tkFailed(k, err)
	}
	return doc(platforms.TK, d, 0, c.settings().maxTextChars, k.answers...), nil
}

// tkListIn filters a Tweede Kamer list (committees, groups).
type tkListIn struct {
	Name            string `json:"name,omitempty" jsonschema_description:"Only items whose name or abbreviation contains this text."`
	IncludeInactive bool   `json:"include_inactive,omitempty" jsonschema_description:"Also former ones (with an end date in the past)." jsonschema_extras:"default=false"`
}

type listOut struct {
	mcpkit.Meta
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
	k := c.calls(ctx, platforms.TK)
	e, err := c.tkEntity(k, set)
	if err != nil {
		return nil, tkFailed(k, err)
	}
	l, err := tk.ListAll(e, k.get)
	if err != nil {
		return nil, tkFailed(k, err)
	}
	c.lists.Put(tk.ListMemo(set), l, c.now()) // for completions
	out := &listOut{Items: []adapters.Item{}}
	for _, it := range l.Items(in.IncludeInactive, c.now()) {
		if filter == "" || strings.Contains(strings.ToLower(it.Label+" "+it.Extra["afkorting"]), filter) {
			out.Items = append(out.Items, it)
		}
	}
	out.Meta, out.Count = meta(platforms.TK, k.answers...), len(out.Items)
	if l.Truncated {
		out.Truncated = true
		out.Note = "The list is longer than BesluitBron reads in one call; narrow it with name."
	}
	return out, nil
}
