package tk

import (
	"context"
	"errors"
	"math"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/tk/localindex"
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
Where this BesluitBron keeps a replica of the Kamer's SyncFeed, a search with words is answered from it (whole words and their Dutch stems, newest first), with provenance saying how complete it is; a search it finds nothing for, or cannot answer, goes to the platform, which also matches parts of words, and provenance says why.
Cost: metadata searches are cheap and a repeated one comes from the cache; from the replica they cost the platform nothing. For searching inside the documents' text use opentk_search.`

const toolFetchDesc = `Fetch one Tweede Kamer document's metadata by document number (2023D41173) or GUID: title, subject, kind, date, parliamentary year and the link to its file. The Gegevensmagazijn holds the text only as a PDF/Word file; for readable text use opentk_fetch with the same number. A kamerstuk is cited as one (Kamerstukken II 2023/24, 36200 VII, nr. 12) and names its publication in Officiële Bekendmakingen in references (ob, published_as: kst-36200-VII-12, which ob_fetch reads with its text); its dossier's way is dossier_timeline's.
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

// toolSearchOut is a page of documents and where it came from.
type toolSearchOut struct {
	mcpkit.PageOut
	Provenance string `json:"provenance,omitempty" jsonschema_description:"Where a BesluitBron that keeps a replica of the Kamer's SyncFeed got the hits: from the replica, and how complete it is, or from the platform, and why."`
}

func toolSearch(ctx context.Context, c mcpkit.Env, in toolSearchIn) (*toolSearchOut, *mcpgo.CallToolResult) {
	p := SearchParams{Query: in.Query, Soort: in.Soort, DateFrom: in.DateFrom, DateTo: in.DateTo, Limit: in.Limit, Offset: in.Offset}
	if err := p.Check(); err != nil {
		return nil, mcpkit.Invalid(err)
	}
	var why string
	if parliament, _ := c.Replica(platforms.TK).(ParliamentIndex); parliament != nil && strings.TrimSpace(p.Query) != "" {
		from, to, _ := adapters.ParseDates(p.DateFrom, p.DateTo)
		a, ok, reason := parliament.SearchDocuments(ctx, localindex.Query{Words: p.Query, Soort: p.Soort, From: from, To: to, Limit: p.Limit, Offset: p.Offset})
		if ok {
			// The replica's answer changes as it harvests, with no
			// platform answer behind it, so it fills its own Meta: the
			// connector's result memo keeps no result whose Meta the
			// tool wrote (mcp/resultmemo.go).
			out := &toolSearchOut{PageOut: *mcpkit.NewPage(platforms.TK, a.Page, p.Offset), Provenance: a.Page.Provenance}
			out.Meta = mcpkit.Meta{Platform: platforms.TK, FetchedAt: a.CompleteUpTo.UTC().Format(time.RFC3339)}
			return out, nil
		}
		why = reason
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
	out := &toolSearchOut{PageOut: *mcpkit.NewPage(platforms.TK, pg, p.Offset)}
	if why != "" {
		out.Provenance = askedPlatform + why
	}
	return out, nil
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
