package bwb

import (
	"context"
	"errors"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/koopsru/datereplica"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

const toolSearchDesc = `Search the Dutch laws and national regulations (wetten.overheid.nl, KOOP's Basiswettenbestand) by words in their title, by type (wet, AMvB, ministeriele-regeling, ...), in force on a date (default today). Returns the BWB identifier (e.g. BWBR0005537, for bwb_fetch), title, type, ministry, the period in force and a link. The service indexes titles, not texts: use the words of a law's name (Algemene wet bestuursrecht, Gemeentewet, Omgevingswet).
Cost: searches return metadata only and are cheap; the platform's budget (2 requests a second) is shared by all BesluitBron users, and a repeated question comes from the cache.`

const toolFetchDesc = `Read a law or regulation by BWB identifier (e.g. BWBR0005537): the version in force on date (default today), picked from the regulation's list of versions, whole or only one article (article: 3, 3:40, 2a) or chapter (chapter: Hoofdstuk 2, § 1, afdeling 3.2, bijlage 1), with its text in pages of max_chars (continue with offset=next_offset). Every answer names the version's in-force dates (version) and the Staatsblad or Staatscourant publication the version or part came from (came_from; its ob_id is read by ob_fetch); document.references list every publication that made or changed it. A date before the regulation existed, or an article it does not have, is an error that names what there is.
Cost: two platform requests (the list of versions and the version's text). A version's text never changes and stays cached for months, so other articles and pages of the same version are free. Ask for one article rather than a whole law: the text of a large law runs to hundreds of thousands of characters.`

type toolSearchIn struct {
	Query     string `json:"query,omitempty" jsonschema_description:"Words in the regulation's title, all of them (e.g. bestuursrecht)."`
	Type      string `json:"type,omitempty" jsonschema_description:"Only this kind of regulation: wet (act), AMvB (order in council), ministeriele-regeling (ministerial regulation), ..." jsonschema_extras:"enum=bwb.Types"`
	InForceOn string `json:"in_force_on,omitempty" jsonschema_description:"Only regulations in force on this day, YYYY-MM-DD (default today)."`
	Limit     int    `json:"limit,omitempty" jsonschema_description:"Results per page." jsonschema_extras:"minimum=1,maximum=bwb.MaxLimit,default=10"`
	Offset    int    `json:"offset,omitempty" jsonschema_description:"Skip this many results (paging; use next_offset of the previous page)." jsonschema_extras:"minimum=0,maximum=bwb.MaxOffset,default=0"`
}

// toolSearchOut is a page of regulations and where it came from.
type toolSearchOut struct {
	mcpkit.PageOut
	Provenance string `json:"provenance,omitempty" jsonschema_description:"Where a BesluitBron that keeps a replica of the BWB's search records got the hits: from the replica, and how complete it is, or from the platform, and why."`
}

func toolSearch(ctx context.Context, c mcpkit.Env, in toolSearchIn) (*toolSearchOut, *mcpgo.CallToolResult) {
	on := in.InForceOn
	if on == "" {
		on = c.Now().Format(time.DateOnly)
	}
	p := SearchParams{Words: in.Query, Type: in.Type, InForceOn: on, Limit: in.Limit, Offset: in.Offset}
	r, err := SearchRequest(p)
	if err != nil {
		return nil, mcpkit.Invalid(err)
	}
	var why string
	if local, _ := c.Replica(platforms.BWB).(datereplica.Searcher); local != nil {
		var a datereplica.Answer
		if a, why = searchReplica(ctx, local, p); why == "" {
			// The replica's answer changes as it harvests, with no
			// platform answer behind it, so it fills its own Meta: the
			// connector's result memo keeps no result whose Meta the tool
			// wrote (mcp/resultmemo.go).
			out := &toolSearchOut{PageOut: *mcpkit.NewPage(platforms.BWB, localPage(a, p.Offset), p.Offset), Provenance: a.Provenance}
			out.Meta = mcpkit.Meta{Platform: platforms.BWB, FetchedAt: a.CompleteUpTo.UTC().Format(time.RFC3339)}
			return out, nil
		}
	}
	body, fail := c.Call(ctx, platforms.BWB, r)
	if fail != nil {
		return nil, fail
	}
	pg, err := ParseSearch(body)
	if err != nil {
		return nil, mcpkit.ParseFailed(platforms.BWB, err)
	}
	out := &toolSearchOut{PageOut: *mcpkit.NewPage(platforms.BWB, pg, in.Offset)}
	if why != "" {
		out.Provenance = askedPlatform + why
	}
	return out, nil
}

type toolFetchIn struct {
	ID      string `json:"id" jsonschema_description:"BWB identifier, e.g. BWBR0005537 (from bwb_search or a reference)." jsonschema_extras:"examples=BWBR0005537"`
	Date    string `json:"date,omitempty" jsonschema_description:"The version in force on this day, YYYY-MM-DD (default today)."`
	Article string `json:"article,omitempty" jsonschema_description:"Only this article, e.g. 3, 3:40 or 2a (within chapter, when given)."`
	Chapter string `json:"chapter,omitempty" jsonschema_description:"Only this chapter or other division, e.g. Hoofdstuk 2, § 1, afdeling 3.2, bijlage 1 (a bare number is a hoofdstuk first)."`
	mcpkit.TextPageIn
}

// toolFetchOut is a version of a regulation, or one part of it.
type toolFetchOut struct {
	mcpkit.DocOut
	Version  Version       `json:"version" jsonschema_description:"The version the text is of, and the days it is in force."`
	Part     string        `json:"part,omitempty" jsonschema_description:"The article or chapter the text is, when one was asked."`
	CameFrom []Publication `json:"came_from" jsonschema_description:"The Staatsblad or Staatscourant publication(s) this version (or part) came from."`
}

func toolFetch(ctx context.Context, c mcpkit.Env, in toolFetchIn) (*toolFetchOut, *mcpgo.CallToolResult) {
	get := c.Getter(ctx, platforms.BWB)
	law, err := Fetch(get, FetchParams{ID: in.ID, Date: in.Date, Article: in.Article, Chapter: in.Chapter},
		c.Now().Format(time.DateOnly))
	var inv *adapters.InvalidError
	var de *DateError
	var pe *PartError
	switch {
	case errors.As(err, &inv):
		return nil, mcpkit.Invalid(inv.Err)
	case errors.As(err, &de), errors.As(err, &pe), errors.Is(err, adapters.ErrNoDocument):
		return nil, mcpgo.NewToolResultError(errText(err))
	case err != nil:
		return nil, c.Failed(platforms.BWB, err)
	}
	out := &toolFetchOut{DocOut: *mcpkit.NewDoc(platforms.BWB, law.Document, in.Offset, c.Chars(in.MaxChars)),
		Version: law.Version, CameFrom: law.Sources}
	if out.CameFrom == nil {
		out.CameFrom = []Publication{}
	}
	if law.Part != nil {
		out.Part = law.Part.Label
	}
	return out, nil
}

// errText is a platform package's clear refusal (no such document, no
// version on that date, no such article) as a sentence for a model.
func errText(err error) string {
	s := strings.TrimSpace(err.Error())
	if s == "" {
		return "The platform has no such document."
	}
	return strings.ToUpper(s[:1]) + strings.TrimSuffix(s[1:], ".") + "."
}
