package ori

import (
	"context"
	"errors"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

const toolSearchDesc = `Search the operator's ORI-compatible index of council documents (the Open Raadsinformatie "Classic" format: municipalities ori_*, provinces osi_*, water boards owi_*). The public ORI service was switched off on 2026-11-01; its data lives on in OpenBesluitvorming, so prefer obv_search unless you need this index. Returns id, title, date, organisation name, snippet and link.
Cost: titles and snippets only (full text stays out of search answers); one source (source="alkmaar") is faster than all.`

const toolFetchDesc = `Fetch one document of the operator's ORI-compatible index by id (from ori_search) with its full text in pages of max_chars (continue with offset=next_offset).
Cost: full text is the expensive path; once fetched it stays cached, so further pages are free.`

type toolSearchIn struct {
	Query  string `json:"query" jsonschema_description:"Search words (simple query syntax)." jsonschema_extras:"examples=parkeren"`
	Source string `json:"source,omitempty" jsonschema_description:"One organisation: its key (alkmaar; searches ori_, osi_ and owi_ indices), a prefixed key (osi_limburg, owi_limburg) or an OpenBesluitvorming key (provincie_limburg)."`
	Limit  int    `json:"limit,omitempty" jsonschema_description:"Results per page." jsonschema_extras:"minimum=1,maximum=ori.MaxLimit,default=10"`
	Offset int    `json:"offset,omitempty" jsonschema_description:"Skip this many results (paging; use next_offset of the previous page)." jsonschema_extras:"minimum=0,maximum=9900,default=0"`
	mcpkit.DatesIn
}

func toolSearch(ctx context.Context, c mcpkit.Env, in toolSearchIn) (*mcpkit.PageOut, *mcpgo.CallToolResult) {
	p := SearchParams{Query: in.Query, Source: in.Source, DateFrom: in.DateFrom, DateTo: in.DateTo, Limit: in.Limit, Offset: in.Offset}
	r, err := SearchRequest(p)
	if err != nil {
		return nil, mcpkit.Invalid(err)
	}
	get := c.Getter(ctx, platforms.ORI)
	body, err := get(r)
	if err != nil {
		return nil, c.Failed(platforms.ORI, err)
	}
	names, _ := Names(c.Lists(), c.Now(), body, get)
	pg, err := ParseSearch(body, p.Offset, names)
	if err != nil {
		return nil, mcpkit.ParseFailed(platforms.ORI, err)
	}
	return mcpkit.NewPage(platforms.ORI, pg, p.Offset), nil
}

type toolFetchIn struct {
	ID string `json:"id" jsonschema_description:"Document id from ori_search." jsonschema_extras:"examples=123456"`
	mcpkit.TextPageIn
}

func toolFetch(ctx context.Context, c mcpkit.Env, in toolFetchIn) (*mcpkit.DocOut, *mcpgo.CallToolResult) {
	get := c.Getter(ctx, platforms.ORI)
	d, err := Fetch(c.Lists(), c.Now(), in.ID, get)
	var bad *adapters.InvalidError
	switch {
	case errors.As(err, &bad):
		return nil, mcpkit.Invalid(bad.Err)
	case errors.Is(err, adapters.ErrNoDocument):
		return nil, mcpgo.NewToolResultError("The ORI index has no document " + in.ID + ": take an id from ori_search.")
	case err != nil:
		return nil, c.Failed(platforms.ORI, err)
	}
	return mcpkit.NewDoc(platforms.ORI, d, in.Offset, c.Chars(in.MaxChars)), nil
}
