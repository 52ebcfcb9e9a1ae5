package ob

import (
	"context"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters/koopsru/datereplica"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

const toolSearchDesc = `Search the Dutch official publications (Staatsblad, Staatscourant, Kamerstukken, Gemeenteblad, Provinciaal blad, Waterschapsblad...) through KOOP's SRU service, newest first. Returns identifier (e.g. stb-2024-1), title, publication, issuing body, date, abstract and a link.
Cost: searches return metadata only and are cheap; the platform's budget is shared by all BesluitBron users, so a first question may wait, a repeated one comes from the cache. Narrowing by publication, creator or dates is faster than a search over everything.`

const toolFetchDesc = `Fetch one official publication by identifier (e.g. stb-2018-84, kst-26100-1, gmb-2023-174296): its metadata and full text (from the XML edition) in pages of max_chars (continue with offset=next_offset).
Cost: two platform requests (look-up and full text); full text is the expensive path but stays cached for weeks, so further pages are free.`

type toolSearchIn struct {
	Query       string `json:"query,omitempty" jsonschema_description:"Words to find anywhere in the publication."`
	Publication string `json:"publication,omitempty" jsonschema_description:"Only this publication." jsonschema_extras:"enum=ob.Publications"`
	Creator     string `json:"creator,omitempty" jsonschema_description:"Issuing body, e.g. a municipality (Bergeijk) or ministry."`
	Limit       int    `json:"limit,omitempty" jsonschema_description:"Results per page." jsonschema_extras:"minimum=1,maximum=ob.MaxLimit,default=10"`
	Offset      int    `json:"offset,omitempty" jsonschema_description:"Skip this many results (paging; use next_offset of the previous page). The platform fails on deeper pages; narrow the dates instead." jsonschema_extras:"minimum=0,maximum=4900,default=0"`
	FullText    bool   `json:"full_text,omitempty" jsonschema_description:"Find the words inside the publications' text too: always asks Officiële Bekendmakingen. Without it, a BesluitBron that keeps a replica of the platform's search records answers from the titles, abstracts and kinds it holds (see provenance)." jsonschema_extras:"default=false"`
	mcpkit.DatesIn
}

// toolSearchOut is a page of publications and where it came from.
type toolSearchOut struct {
	mcpkit.PageOut
	Provenance string `json:"provenance,omitempty" jsonschema_description:"Where a BesluitBron that keeps a replica of the platform's search records got the hits: from the replica, and how complete it is, or from the platform, and why."`
}

func toolSearch(ctx context.Context, c mcpkit.Env, in toolSearchIn) (*toolSearchOut, *mcpgo.CallToolResult) {
	p := SearchParams{Query: in.Query, Publication: in.Publication, Creator: in.Creator,
		DateFrom: in.DateFrom, DateTo: in.DateTo, Limit: in.Limit, Offset: in.Offset}
	r, err := SearchRequest(p)
	if err != nil {
		return nil, mcpkit.Invalid(err)
	}
	var why string
	if local, _ := c.Replica(platforms.OB).(datereplica.Searcher); local != nil && in.FullText {
		why = fullTextWhy
	} else if local != nil {
		var a datereplica.Answer
		if a, why = searchReplica(ctx, local, p); why == "" {
			// The replica's answer changes as it harvests, with no
			// platform answer behind it, so it fills its own Meta: the
			// connector's result memo keeps no result whose Meta the tool
			// wrote (mcp/resultmemo.go).
			out := &toolSearchOut{PageOut: *mcpkit.NewPage(platforms.OB, localPage(a, p.Offset), p.Offset), Provenance: a.Provenance}
			out.Meta = mcpkit.Meta{Platform: platforms.OB, FetchedAt: a.CompleteUpTo.UTC().Format(time.RFC3339)}
			return out, nil
		}
	}
	body, fail := c.Call(ctx, platforms.OB, r)
	if fail != nil {
		return nil, fail
	}
	pg, _, err := ParseSearch(body)
	if err != nil {
		return nil, mcpkit.ParseFailed(platforms.OB, err)
	}
	out := &toolSearchOut{PageOut: *mcpkit.NewPage(platforms.OB, pg, p.Offset)}
	if why != "" {
		out.Provenance = askedPlatform + why
	}
	return out, nil
}

type toolFetchIn struct {
	ID string `json:"id" jsonschema_description:"Publication identifier, e.g. stb-2018-84." jsonschema_extras:"examples=stb-2018-84"`
	mcpkit.TextPageIn
}

func toolFetch(ctx context.Context, c mcpkit.Env, in toolFetchIn) (*mcpkit.DocOut, *mcpgo.CallToolResult) {
	id := strings.ToLower(strings.TrimSpace(in.ID))
	d, fail := c.FetchDocument(ctx, platforms.OB, in.ID, "",
		"Officiële Bekendmakingen has no publication "+id+": check the identifier or take one from ob_search.")
	if fail != nil {
		return nil, fail
	}
	if d.Text == "" {
		d.Text = "No XML edition exists (publications before 1995 are scanned PDF only); see the pdf link."
	}
	return mcpkit.NewDoc(platforms.OB, d, in.Offset, c.Chars(in.MaxChars)), nil
}
