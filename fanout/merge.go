package fanout

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
)

// hitOf is a platform's compact hit in the merged answer's shape.
func hitOf(k, name string, h adapters.Hit) Hit {
	return Hit{Platform: k, PlatformName: name, Type: h.Type, ID: h.ID, Title: h.Title, Date: h.Date,
		Organisation: h.Source, Snippet: h.Snippet, URL: h.URL, URLDropped: h.URLDropped,
		Citation: h.Citation, URI: h.URI, Kamerstuk: h.Kamerstuk}
}

// identifiers are the shared identifiers a hit carries, as the platforms
// write them (see docs/search.md):
//   - those a platform says other platforms write too
//     (adapters.SharedIdentifier: an ECLI, a Tweede Kamer document
//     number), found in the hit's id, link and kamerstuk;
//   - a kamerstuk number: Officiële Bekendmakingen' identifier
//     kst-<dossier>-<volgnummer> (kst-36200-VII-12, kst-26100-1), also in
//     its links, and the Gegevensmagazijn's hit's Kamerstuk
//     (adapters.FindKamerstuk).
func identifiers(h Hit) []string {
	var out []string
	add := func(k string) {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	for _, s := range []string{h.ID, h.URL, h.Kamerstuk} {
		for _, p := range sharedIdentifiers() {
			if k, ok := p.SharedID(s); ok {
				add(k)
			}
		}
		if k, ok := adapters.FindKamerstuk(s); ok {
			add("kst:" + strings.ToUpper(k.ID()))
		}
	}
	return out
}

// sharedIdentifiers are the platforms that name identifiers other
// platforms write too, asked once (at first use, after every platform
// has registered) rather than for every hit of every search.
var sharedIdentifiers = sync.OnceValue(platforms.Each[adapters.SharedIdentifier])

// prefOf is which platform's hit stands for a document found on several:
// the lower, the more official (the table's Authority); unknown last.
func prefOf(k string) int {
	if a := platforms.AuthorityOf(k); a > 0 {
		return a
	}
	return math.MaxInt
}

// dayOf is a hit's date as YYYY-MM-DD, or "" when it has none.
func dayOf(d string) string {
	if len(d) >= 10 && d[4] == '-' && d[7] == '-' && isDigits(d[:4]+d[5:7]+d[8:10]) {
		return d[:10]
	}
	return ""
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// Merge folds duplicates under a shared identifier into one hit (the
// preferred platform's, with Also links to the others and their date,
// organisation, snippet and kamerstuk where it lacks them) and orders the
// hits by order, SortRelevance or SortDate (order.go). perPlatform[i] are
// the hits of the platform keys[i] in that platform's own order; ties
// keep the order of keys. The engine merges a search's answers with it; the
// search page's live view merges the hits so far the same way.
func Merge(keys []string, perPlatform [][]Hit, order string) []Hit {
	var items []*item
	for i, hs := range perPlatform {
		for r, h := range hs {
			items = append(items, &item{h: h, plat: i, rank: r, group: -1})
		}
	}
	// Group in preference order, so the preferred hit leads its group.
	byPref := slices.Clone(items)
	sort.SliceStable(byPref, func(a, b int) bool {
		pa, pb := prefOf(keys[byPref[a].plat]), prefOf(keys[byPref[b].plat])
		if pa != pb {
			return pa < pb
		}
		return byPref[a].rank < byPref[b].rank
	})
	var groups []*item
	owner := map[string]int{} // identifier -> group
	for _, it := range byPref {
		ids := identifiers(it.h)
		g := -1
		for _, id := range ids {
			if o, ok := owner[id]; ok && !groupHas(groups[o], it.h.Platform) {
				g = o
				break
			}
		}
		if g < 0 {
			it.group = len(groups)
			it.ranks = []int{it.rank + 1}
			groups = append(groups, it)
		} else {
			lead := groups[g]
			lead.h.Also = append(lead.h.Also, Link{Platform: it.h.Platform, PlatformName: it.h.PlatformName, ID: it.h.ID, URL: it.h.URL,
				URLDropped: it.h.URLDropped, Citation: it.h.Citation, URI: it.h.URI})
			lead.ranks = append(lead.ranks, it.rank+1)
			if dayOf(lead.h.Date) == "" && dayOf(it.h.Date) != "" {
				lead.h.Date = it.h.Date
			}
			if lead.h.Organisation == "" {
				lead.h.Organisation = it.h.Organisation
			}
			if lead.h.Snippet == "" {
				lead.h.Snippet = it.h.Snippet
			}
			if lead.h.Citation == "" {
				// The preferred platform cites it where it can; else the
				// citation another platform gave for the same document.
				lead.h.Citation = it.h.Citation
			}
			if lead.h.Kamerstuk == "" {
				lead.h.Kamerstuk = it.h.Kamerstuk
			}
			it.group = g
		}
		for _, id := range ids {
			if _, ok := owner[id]; !ok {
				owner[id] = max(g, it.group)
			}
		}
	}
	orderGroups(groups, order)
	out := make([]Hit, 0, len(groups))
	for _, g := range groups {
		out = append(out, g.h)
	}
	return out
}

// item is a hit while merging: its platform's index in the engine's
// order, its rank in that platform's answer (from 0), and its group; a
// group's lead holds the ranks (from 1) of every hit in the group, one per
// platform.
type item struct {
	h          Hit
	plat, rank int
	group      int
	ranks      []int
}

// groupHas tells whether a group already holds a hit of platform k: two
// hits of one platform are two documents, even under one identifier.
func groupHas(lead *item, k string) bool {
	if lead.h.Platform == k {
		return true
	}
	for _, l := range lead.h.Also {
		if l.Platform == k {
			return true
		}
	}
	return false
}
