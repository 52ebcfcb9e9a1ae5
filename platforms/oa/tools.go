package oa

import (
	"context"
	"strconv"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

const toolSearchDesc = `Search Open Archivaris, a full-text archive of documents from council information systems, municipal websites and other sources (municipalities, water boards, provinces). Returns id, title, date, organisation, snippet and link.
Experimental: Open Archivaris publishes no API description; this tool uses endpoints the operator configured on an assumption, so an answer may fail or be incomplete. For council documents prefer obv_search.
Cost: the platform allows 120 calls a minute for all BesluitBron users; a first question may wait, a repeated one comes from the cache. Naming one organisation is faster than searching all.`

const toolFetchDesc = `Fetch one Open Archivaris document by id (from oa_search): its metadata and the text of one page of the document (page, default 1; the answer gives pages and next_page), bounded by max_chars.
Experimental: the API behind this tool is assumed, not published by Open Archivaris.
Cost: each page of full text is one platform call (budget 120 a minute for all users); pages already read stay cached, so reading them again is free. Read only the pages you need.`

type toolSearchIn struct {
	Query        string `json:"query" jsonschema_description:"Search words." jsonschema_extras:"examples=woo-besluit"`
	Organisation string `json:"organisation,omitempty" jsonschema_description:"Only documents of this body (its key, e.g. utrecht)."`
	Limit        int    `json:"limit,omitempty" jsonschema_description:"Results per page." jsonschema_extras:"minimum=1,maximum=oa.MaxLimit,default=10"`
	Offset       int    `json:"offset,omitempty" jsonschema_description:"Skip this many results (paging; use next_offset of the previous page)." jsonschema_extras:"minimum=0,maximum=10000,default=0"`
	mcpkit.DatesIn
}

func toolSearch(ctx context.Context, c mcpkit.Env, in toolSearchIn) (*mcpkit.PageOut, *mcpgo.CallToolResult) {
	p := SearchParams{Query: in.Query, Organisation: in.Organisation, DateFrom: in.DateFrom,
		DateTo: in.DateTo, Limit: in.Limit, Offset: in.Offset}
	r, err := endpointsOf(c).SearchRequest(p)
	if err != nil {
		return nil, mcpkit.Invalid(err)
	}
	body, fail := c.Call(ctx, platforms.OA, r)
	if fail != nil {
		return nil, fail
	}
	pg, err := ParseSearch(body, p.Offset)
	if err != nil {
		return nil, mcpkit.ParseFailed(platforms.OA, err)
	}
	return mcpkit.NewPage(platforms.OA, pg, p.Offset), nil
}

type toolFetchIn struct {
	ID   string `json:"id" jsonschema_description:"Document id from oa_search." jsonschema_extras:"examples=utrecht-000123"`
	Page int    `json:"page,omitempty" jsonschema_description:"Page of the document, from 1." jsonschema_extras:"minimum=1,maximum=100000,default=1"`
	mcpkit.TextPageIn
}

func toolFetch(ctx context.Context, c mcpkit.Env, in toolFetchIn) (*mcpkit.DocOut, *mcpgo.CallToolResult) {
	ep := endpointsOf(c)
	r, err := ep.DocumentRequest(in.ID)
	if err != nil {
		return nil, mcpkit.Invalid(err)
	}
	body, fail := c.Call(ctx, platforms.OA, r)
	if fail != nil {
		return nil, fail
	}
	d, err := ParseDocument(body)
	if err != nil {
		return nil, mcpkit.ParseFailed(platforms.OA, err)
	}
	if d.Text == "" {
		tr, err := ep.TextRequest(in.ID, in.Page)
		if err != nil {
			return nil, mcpkit.Invalid(err)
		}
		tbody, fail := c.Call(ctx, platforms.OA, tr)
		if fail != nil {
			return nil, fail
		}
		tp, err := ParseText(tbody)
		if err != nil {
			return nil, mcpkit.ParseFailed(platforms.OA, err)
		}
		d.Text = tp.Text
		if d.Meta == nil {
			d.Meta = map[string]string{}
		}
		d.Meta["page"] = strconv.Itoa(tp.Page)
		d.Meta["pages"] = strconv.Itoa(tp.Pages)
		if tp.Page < tp.Pages {
			d.Meta["next_page"] = strconv.Itoa(tp.Page + 1)
		}
	}
	return mcpkit.NewDoc(platforms.OA, d, in.Offset, c.Chars(in.MaxChars)), nil
}

// endpointsOf are the connector's endpoints of the platform (its
// configuration's setting), else the defaults.
func endpointsOf(env mcpkit.Env) Endpoints {
	if e, ok := env.Setting(platforms.OA).(Endpoints); ok {
		return e
	}
	return Defaults
}
