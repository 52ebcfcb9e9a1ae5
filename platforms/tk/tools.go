package tk

import (
	"context"
	"errors"
	"math"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

// toolSchema resolves the field names of the configured OData root from its
// $metadata: through the platform route (a list kind in platform_cache)
// and then from the connector's memo for an hour.
func toolSchema(c mcpkit.Env, get Getter) (*Schema, error) {
	return SchemaOf(c.Lists(), Root(c), c.Now(), get)
}

// toolFailed is the isError result for a failed Tweede Kamer call: an
// unreadable $metadata says the OData root may have moved.
func toolFailed(c mcpkit.Env, err error) *mcpgo.CallToolResult {
	var bad *MetadataError
	var unread *SchemaError
	var mismatch *MismatchError
	switch {
	case errors.As(err, &bad):
		return mcpkit.ParseFailed(platforms.TK, bad.Err)
	case errors.As(err, &unread):
		return mcpgo.NewToolResultError("The Tweede Kamer's OData service description " + unread.Root + "/$metadata could not be read, so the field names are unknown. " +
			"The OData root may have moved (tk_odata_root; " + DefaultRoot + " is unconfirmed). " + c.FailureText(platforms.TK, unread.Err))
	case errors.As(err, &mismatch):
		return mcpgo.NewToolResultError(err.Error() + ".")
	}
	return c.Failed(platforms.TK, err)
}

// toolEntity is the resolved entity set.
func toolEntity(c mcpkit.Env, get Getter, set string) (*Entity, error) {
	s, err := toolSchema(c, get)
	if err != nil {
		return nil, err
	}
	return s.Entity(set)
}

const toolSearchDesc = `Search the Tweede Kamer's Gegevensmagazijn (official open data of the Dutch House of Representatives) for documents (motions, letters, questions, reports) whose title or subject contains all given words, newest first. Dates are Dutch calendar days. Returns document number, kind, subject, date and a link to the file per document, and for a kamerstuk its number as Officiële Bekendmakingen publishes it (kamerstuk: kst-36200-VII-12).
Cost: metadata searches are cheap and a repeated one comes from the cache; for searching inside the documents' text use opentk_search.`

const toolFetchDesc = `Fetch one Tweede Kamer document's metadata by document number (2023D41173) or GUID: title, subject, kind, date, parliamentary year and the link to its file. The Gegevensmagazijn holds the text only as a PDF/Word file; for readable text use opentk_fetch with the same number.
Cost: cheap, cached.`

const toolCommissiesDesc = `List the Tweede Kamer's committees (commissies) with id, name, abbreviation and kind; only current ones unless include_inactive.
Cost: cheap; the list changes rarely and is kept in the cache for a long time.`

const toolFractiesDesc = `List the Tweede Kamer's parliamentary groups (fracties) with abbreviation, name and seats; only current ones unless include_inactive.
Cost: cheap; the list changes at elections and is kept in the cache for a long time.`

type toolSearchIn struct {
	Query  string `json:"query,omitempty" jsonschema_description:"Words that must all appear in the title or subject."`
	Soort  string `json:"soort,omitempty" jsonschema_description:"Document kind, e.g. Motie, Amendement, Brief regering, Schriftelijke vragen."`
	Limit  int    `json:"limit,omitempty" jsonschema_description:"Results per page." jsonschema_extras:"minimum=1,maximum=tk.PageSize,default=10"`
	Offset int    `json:"offset,omitempty" jsonschema_description:"Skip this many results (paging; use next_offset of the previous page)." jsonschema_extras:"minimum=0,maximum=100000,default=0"`
	mcpkit.DatesIn
}

func toolSearch(ctx context.Context, c mcpkit.Env, in toolSearchIn) (*mcpkit.PageOut, *mcpgo.CallToolResult) {
	p := SearchParams{Query: in.Query, Soort: in.Soort, DateFrom: in.DateFrom, DateTo: in.DateTo, Limit: in.Limit, Offset: in.Offset}
	if err := p.Check(); err != nil {
		return nil, mcpkit.Invalid(err)
	}
	get := c.Getter(ctx, platforms.TK)
	e, err := toolEntity(c, get, "Document")
	if err != nil {
		return nil, toolFailed(c, err)
	}
	pg, err := Search(e, p, get)
	if err != nil {
		return nil, toolFailed(c, err)
	}
	return mcpkit.NewPage(platforms.TK, pg, p.Offset), nil
}

type toolFetchIn struct {
	ID string `json:"id" jsonschema_description:"Document number (e.g. 2023D41173) or GUID." jsonschema_extras:"examples=2023D41173"`
}

func toolFetch(ctx context.Context, c mcpkit.Env, in toolFetchIn) (*mcpkit.DocOut, *mcpgo.CallToolResult) {
	raw := in.ID
	id, err := ParseDocumentID(raw)
	if err != nil {
		return nil, mcpkit.Invalid(err)
	}
	get := c.Getter(ctx, platforms.TK)
	d, err := Fetch(id, func() (*Schema, error) { return toolSchema(c, get) }, get)
	if errors.Is(err, ErrNoDocument) {
		return nil, mcpgo.NewToolResultError("Tweede Kamer has no document " + raw + ": check the number or take one from tk_search.")
	}
	if err != nil {
		return nil, toolFailed(c, err)
	}
	return mcpkit.NewDoc(platforms.TK, d, 0, c.Chars(math.MaxInt32)), nil
}

// toolListIn filters a Tweede Kamer list (committees, groups).
type toolListIn struct {
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

func toolCommissies(ctx context.Context, c mcpkit.Env, in toolListIn) (*listOut, *mcpgo.CallToolResult) {
	return toolList(ctx, c, "Commissie", in)
}

func toolFracties(ctx context.Context, c mcpkit.Env, in toolListIn) (*listOut, *mcpgo.CallToolResult) {
	return toolList(ctx, c, "Fractie", in)
}

func toolList(ctx context.Context, c mcpkit.Env, set string, in toolListIn) (*listOut, *mcpgo.CallToolResult) {
	filter := strings.ToLower(in.Name)
	get := c.Getter(ctx, platforms.TK)
	e, err := toolEntity(c, get, set)
	if err != nil {
		return nil, toolFailed(c, err)
	}
	l, err := ListAll(e, get)
	if err != nil {
		return nil, toolFailed(c, err)
	}
	c.Lists().Put(ListMemo(set), l, c.Now()) // for completions
	out := &listOut{Items: []adapters.Item{}}
	for _, it := range l.Items(in.IncludeInactive, c.Now()) {
		if filter == "" || strings.Contains(strings.ToLower(it.Label+" "+it.Extra["afkorting"]), filter) {
			out.Items = append(out.Items, it)
		}
	}
	out.Count = len(out.Items)
	if l.Truncated {
		out.Truncated = true
		out.Note = "The list is longer than BesluitBron reads in one call; narrow it with name."
	}
	return out, nil
}
