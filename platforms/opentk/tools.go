package opentk

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

const toolSearchDesc = `Full-text search in what the Tweede Kamer publishes, through OpenTK. Each hit's type is its category: Document (parliamentary papers), Verslag (minutes of a meeting; its id is the meeting's), Activiteit (debates and other agenda items), Toezegging (a minister's commitment), PersoonGeschenk (a member's registered gift) or OODocument (an open.overheid.nl publication). Documents and minutes can be read with opentk_fetch; the others are described by their hit and opened through its link. Results are newest first. Syntax: words are ANDed; "exact phrase", NEAR(a b), AND/OR/NOT in capitals and prefix* work. Page through the (at most 280) results with offset.
kind: alles = every category; activiteiten = Activiteit hits only; moties = documents of soort Motie; vragenantwoorden = written questions and their answers. moties and vragenantwoorden are picked from the newest 280 hits, so a broad query may return few.
Cost: a full-text search is heavy for the platform (it cuts searches short when many run at once), so BesluitBron runs few at a time: a first question may wait, a repeated one and its further pages come from the cache at once. two_months=true searches only the last two months and is much faster.`

const toolFetchDesc = `Fetch the text of one Tweede Kamer document (by number, e.g. 2023D41173, or GUID, from opentk_search or tk_search) or the minutes of a meeting (a Verslag hit), in pages of max_chars (continue with offset=next_offset). Pass category = the hit's type. For an Activiteit, Toezegging, PersoonGeschenk or OODocument hit, OpenTK has no text to render: the answer says what the item is and gives its link.
Cost: full text is the slow, expensive path; once fetched it stays cached for weeks, so further pages are free.`

type toolSearchIn struct {
	Query     string `json:"query" jsonschema_description:"Search words, e.g. stikstof \"Natura 2000\"." jsonschema_extras:"examples=stikstof"`
	TwoMonths bool   `json:"two_months,omitempty" jsonschema_description:"Only the last two months (faster)." jsonschema_extras:"default=false"`
	Kind      string `json:"kind,omitempty" jsonschema_description:"alles, activiteiten, moties or vragenantwoorden; see the tool description." jsonschema_extras:"enum=opentk.Kinds,default=alles"`
	Limit     int    `json:"limit,omitempty" jsonschema_description:"Results per page." jsonschema_extras:"minimum=1,maximum=100,default=10"`
	Offset    int    `json:"offset,omitempty" jsonschema_description:"Skip this many results (paging; use next_offset of the previous page). OpenTK returns at most 280." jsonschema_extras:"minimum=0,maximum=opentk.MaxResults,default=0"`
}

func toolSearch(ctx context.Context, c mcpkit.Env, in toolSearchIn) (*mcpkit.PageOut, *mcpgo.CallToolResult) {
	r, err := SearchRequest(in.Query, in.TwoMonths, in.Kind)
	if err != nil {
		return nil, mcpkit.Invalid(err)
	}
	body, fail := c.Call(ctx, platforms.OpenTK, r)
	if fail != nil {
		return nil, fail
	}
	pg, err := ParseSearch(body, in.Offset, in.Limit)
	if err != nil {
		return nil, mcpkit.ParseFailed(platforms.OpenTK, err)
	}
	return mcpkit.NewPage(platforms.OpenTK, pg, in.Offset), nil
}

type toolFetchIn struct {
	ID       string `json:"id" jsonschema_description:"Id of the hit: a document number (2023D41173) or GUID, a Verslag's meeting id, or another category's number." jsonschema_extras:"examples=2023D41173"`
	Category string `json:"category,omitempty" jsonschema_description:"The hit's type (a document when omitted; a GUID that is no document is tried as minutes)." jsonschema_extras:"enum=opentk.Categories"`
	mcpkit.TextPageIn
}

// toolFetchOut is a document or minutes (mcpkit.DocOut's fields), or for a hit
// OpenTK has no text of, what it is and its link (fetchable false).
type toolFetchOut struct {
	mcpkit.Meta
	Document   *adapters.Document `json:"document,omitempty" jsonschema_description:"The document's metadata (when fetched)."`
	Text       string             `json:"text,omitempty" jsonschema_description:"One page of the text."`
	TextOffset int                `json:"text_offset,omitempty"`
	TotalChars int                `json:"total_chars,omitempty"`
	NextOffset int                `json:"next_offset,omitempty" jsonschema_description:"offset to pass for the next page of text, when there is more."`
	ID         string             `json:"id,omitempty" jsonschema_description:"The item's id (when not fetchable)."`
	Category   string             `json:"category,omitempty"`
	Fetchable  *bool              `json:"fetchable,omitempty" jsonschema_description:"false: OpenTK has no text of this item."`
	URL        string             `json:"url,omitempty"`
	Note       string             `json:"note,omitempty"`
}

func fetched(d *mcpkit.DocOut) *toolFetchOut {
	return &toolFetchOut{Meta: d.Meta, Document: &d.Document, Text: d.Text, TextOffset: d.TextOffset,
		TotalChars: d.TotalChars, NextOffset: d.NextOffset, Note: d.Note}
}

func toolFetch(ctx context.Context, c mcpkit.Env, in toolFetchIn) (*toolFetchOut, *mcpgo.CallToolResult) {
	if in.Category != "" && !Fetchable(in.Category) {
		return toolUnfetchable(in.Category, in.ID)
	}
	// A GUID without category may be a Verslag hit's meeting id, which
	// /getdoc does not know: the surface then reads the minutes.
	d, fail := c.FetchDocument(ctx, platforms.OpenTK, in.ID, in.Category,
		"OpenTK has no document "+in.ID+": take a number from opentk_search or tk_search.")
	if fail != nil {
		return nil, fail
	}
	return fetched(mcpkit.NewDoc(platforms.OpenTK, d, in.Offset, c.Chars(in.MaxChars))), nil
}

// toolUnfetchable answers for a hit OpenTK cannot render as text: what it
// is and where to open it, without asking the platform.
func toolUnfetchable(category, id string) (*toolFetchOut, *mcpgo.CallToolResult) {
	id, err := ValidItem(id)
	if err != nil {
		return nil, mcpkit.Invalid(err)
	}
	no := false
	out := &toolFetchOut{ID: id, Category: category, Fetchable: &no}
	out.Note = "This " + category + " is " + What(category) + ". OpenTK has no text of it to fetch; its search hit (title and snippet) is what OpenTK returns."
	if u := ItemURL(category, id); u != "" {
		out.URL = u
		out.Note += " Open it at " + u + "."
	} else {
		out.Note += " Open it through the url of its search hit."
	}
	return out, nil
}
