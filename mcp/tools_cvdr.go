package mcp

import (
	"context"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/cvdr"
)

const cvdrSearchDesc = `Search the local regulations of Dutch municipalities, provinces and water boards (verordeningen, beleidsregels: lokaleregelgeving.overheid.nl, KOOP's CVDR) by words and by organisation (its name, e.g. Kampen), in force on a date (default today). Returns the CVDR identifier of the version (e.g. CVDR100394_2, for cvdr_fetch), title, organisation, the day it came in force and a link.
Cost: searches return metadata only and are cheap; the platform's budget (2 requests a second) is shared by all BesluitBron users, and a repeated question comes from the cache. Naming the organisation is faster than a search over all of them.`

const cvdrFetchDesc = `Read one version of a local regulation by CVDR identifier (e.g. CVDR100394_2; 112779_1 as older ones are written): its metadata (organisation, in force from and until, what the version changed), its text in pages of max_chars (continue with offset=next_offset), and as document.references the laws it rests on (bwb ids for bwb_fetch, other regulations for cvdr_fetch) and its publication in the Gemeenteblad, Provinciaal blad or Waterschapsblad (an id for ob_fetch).
Cost: one platform request; a version never changes and stays cached for months, so further pages are free.`

type cvdrSearchIn struct {
	Query        string `json:"query,omitempty" jsonschema_description:"Words to find, all of them (e.g. parkeren)."`
	Organisation string `json:"organisation,omitempty" jsonschema_description:"The municipality, province or water board, by name (e.g. Kampen, Zeeland)."`
	InForceOn    string `json:"in_force_on,omitempty" jsonschema_description:"Only versions in force on this day, YYYY-MM-DD (default today)."`
	Limit        int    `json:"limit,omitempty" jsonschema_description:"Results per page." jsonschema_extras:"minimum=1,maximum=cvdr.MaxLimit,default=10"`
	Offset       int    `json:"offset,omitempty" jsonschema_description:"Skip this many results (paging; use next_offset of the previous page)." jsonschema_extras:"minimum=0,maximum=cvdr.MaxOffset,default=0"`
}

func (c *connector) cvdrSearch(ctx context.Context, in cvdrSearchIn) (*mcpkit.PageOut, *mcpgo.CallToolResult) {
	on := in.InForceOn
	if on == "" {
		on = c.now().Format(time.DateOnly)
	}
	r, err := cvdr.SearchRequest(cvdr.SearchParams{Words: in.Query, Organisation: in.Organisation, InForceOn: on, Limit: in.Limit, Offset: in.Offset})
	if err != nil {
		return nil, mcpkit.Invalid(err)
	}
	ans, fail := c.call(ctx, platforms.CVDR, r)
	if fail != nil {
		return nil, fail
	}
	pg, err := cvdr.ParseSearch(ans.Body, on)
	if err != nil {
		return nil, mcpkit.ParseFailed(platforms.CVDR, err)
	}
	return page(platforms.CVDR, pg, in.Offset, ans), nil
}

type cvdrFetchIn struct {
	ID string `json:"id" jsonschema_description:"CVDR identifier of the version, e.g. CVDR100394_2 (from cvdr_search or a reference)." jsonschema_extras:"examples=CVDR100394_2"`
	mcpkit.TextPageIn
}

func (c *connector) cvdrFetch(ctx context.Context, in cvdrFetchIn) (*mcpkit.DocOut, *mcpgo.CallToolResult) {
	d, answers, fail := c.fetchDocument(ctx, platforms.CVDR, in.ID, "",
		"The CVDR holds no regulation version "+strings.TrimSpace(in.ID)+": check the identifier or take one from cvdr_search.")
	if fail != nil {
		return nil, fail
	}
	return doc(platforms.CVDR, d, in.Offset, c.chars(in.TextPageIn), answers...), nil
}
