package cvdr

import (
	"context"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters/koopsru/datereplica"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

const toolSearchDesc = `Search the local regulations of Dutch municipalities, provinces and water boards (verordeningen, beleidsregels: lokaleregelgeving.overheid.nl, KOOP's CVDR) by words and by organisation (its name, e.g. Kampen), in force on a date (default today). Returns the CVDR identifier of the version (e.g. CVDR100394_2, for cvdr_fetch), title, organisation, the day it came in force and a link.
Cost: searches return metadata only and are cheap; the platform's budget (2 requests a second) is shared by all BesluitBron users, and a repeated question comes from the cache. Naming the organisation is faster than a search over all of them.`

const toolFetchDesc = `Read one version of a local regulation by CVDR identifier (e.g. CVDR100394_2; 112779_1 as older ones are written): its metadata (organisation, in force from and until, what the version changed), its text in pages of max_chars (continue with offset=next_offset), and as document.references the laws it rests on (bwb ids for bwb_fetch, other regulations for cvdr_fetch) and its publication in the Gemeenteblad, Provinciaal blad or Waterschapsblad (an id for ob_fetch).
Cost: one platform request; a version never changes and stays cached for months, so further pages are free.`

type toolSearchIn struct {
	Query        string `json:"query,omitempty" jsonschema_description:"Words to find, all of them (e.g. parkeren)."`
	Organisation string `json:"organisation,omitempty" jsonschema_description:"The municipality, province or water board, by name (e.g. Kampen, Zeeland)."`
	InForceOn    string `json:"in_force_on,omitempty" jsonschema_description:"Only versions in force on this day, YYYY-MM-DD (default today)."`
	Limit        int    `json:"limit,omitempty" jsonschema_description:"Results per page." jsonschema_extras:"minimum=1,maximum=cvdr.MaxLimit,default=10"`
	Offset       int    `json:"offset,omitempty" jsonschema_description:"Skip this many results (paging; use next_offset of the previous page)." jsonschema_extras:"minimum=0,maximum=cvdr.MaxOffset,default=0"`
}

// toolSearchOut is a page of regulation versions and where it came from.
type toolSearchOut struct {
	mcpkit.PageOut
	Provenance string `json:"provenance,omitempty" jsonschema_description:"Where a BesluitBron that keeps a replica of the CVDR's search records got the hits: from the replica, and how complete it is, or from the platform, and why."`
}

func toolSearch(ctx context.Context, c mcpkit.Env, in toolSearchIn) (*toolSearchOut, *mcpgo.CallToolResult) {
	on := in.InForceOn
	if on == "" {
		on = c.Now().Format(time.DateOnly)
	}
	p := SearchParams{Words: in.Query, Organisation: in.Organisation, InForceOn: on, Limit: in.Limit, Offset: in.Offset}
	r, err := SearchRequest(p)
	if err != nil {
		return nil, mcpkit.Invalid(err)
	}
	var why string
	if local, _ := c.Replica(platforms.CVDR).(datereplica.Searcher); local != nil {
		var a datereplica.Answer
		if a, why = searchReplica(ctx, local, p); why == "" {
			// The replica's answer changes as it harvests, with no
			// platform answer behind it, so it fills its own Meta: the
			// connector's result memo keeps no result whose Meta the tool
			// wrote (mcp/resultmemo.go).
			out := &toolSearchOut{PageOut: *mcpkit.NewPage(platforms.CVDR, localPage(a, p.Offset), p.Offset), Provenance: a.Provenance}
			out.Meta = mcpkit.Meta{Platform: platforms.CVDR, FetchedAt: a.CompleteUpTo.UTC().Format(time.RFC3339)}
			return out, nil
		}
	}
	body, fail := c.Call(ctx, platforms.CVDR, r)
	if fail != nil {
		return nil, fail
	}
	pg, err := ParseSearch(body, on)
	if err != nil {
		return nil, mcpkit.ParseFailed(platforms.CVDR, err)
	}
	out := &toolSearchOut{PageOut: *mcpkit.NewPage(platforms.CVDR, pg, in.Offset)}
	if why != "" {
		out.Provenance = askedPlatform + why
	}
	return out, nil
}

type toolFetchIn struct {
	ID string `json:"id" jsonschema_description:"CVDR identifier of the version, e.g. CVDR100394_2 (from cvdr_search or a reference)." jsonschema_extras:"examples=CVDR100394_2"`
	mcpkit.TextPageIn
}

func toolFetch(ctx context.Context, c mcpkit.Env, in toolFetchIn) (*mcpkit.DocOut, *mcpgo.CallToolResult) {
	d, fail := c.FetchDocument(ctx, platforms.CVDR, in.ID, "",
		"The CVDR holds no regulation version "+strings.TrimSpace(in.ID)+": check the identifier or take one from cvdr_search.")
	if fail != nil {
		return nil, fail
	}
	return mcpkit.NewDoc(platforms.CVDR, d, in.Offset, c.Chars(in.MaxChars)), nil
}
