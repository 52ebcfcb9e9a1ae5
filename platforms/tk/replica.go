package tk

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/besluitbron/besluitbron/platforms/tk/feed"
	"github.com/besluitbron/besluitbron/platforms/tk/localindex"
	"github.com/besluitbron/besluitbron/replica"
)

// The Tweede Kamer's replica: the SyncFeed's entities of the categories
// that tk_search, votes and dossiers need, kept by BesluitBron
// (harvest.go) in a local index (platforms/tk/localindex). The
// besluitbron app keeps it when the operator turns it on:
// replica tk { categories …; since …; interval …; dir … }.

// replicaSpec names the replica.
var replicaSpec = replica.Spec{
	Name:   "parliament",
	Unit:   "entities",
	Source: "BesluitBron's index of the Tweede Kamer's SyncFeed",
	// Every year: the feed has no date filter, so every page is read
	// whatever the years kept, and about 400,000 documents since 2008
	// (LawGraph's count) fit a laptop's disk.
	DefaultScope: "",
}

// feedCategories are the categories kept, by the name the index gives
// them (the entity's element, lower case), with the name the feed's
// category parameter takes.
var feedCategories = map[string]string{
	"document": "Document", "zaak": "Zaak", "kamerstukdossier": "Kamerstukdossier", "besluit": "Besluit",
	"stemming": "Stemming", "activiteit": "Activiteit", "agendapunt": "Agendapunt", "persoon": "Persoon",
	"fractie": "Fractie",
}

// Replica names the replica (replica.Provider).
func (provider) Replica() replica.Spec { return replicaSpec }

// harvestScope is what the replica keeps.
type harvestScope struct {
	// Since is the oldest year of documents kept; 0 keeps every year.
	// The other categories are kept whole: a vote or a dossier of a
	// document kept may be older than it.
	Since int
	// Categories are the categories kept, sorted; none: every one of
	// feedCategories.
	Categories []string
}

// Scope reads a year (or all) and categories (ScopeConfig.Sources) into
// the canonical scope "since=<year>|all categories=<c>,…|all".
func (provider) Scope(s replica.ScopeConfig) (string, error) {
	since, cats, err := replica.ReadYearScope(s, "2020", func(c string) error {
		if _, ok := feedCategories[c]; !ok {
			return fmt.Errorf("category %q: give SyncFeed categories the replica keeps (%s)", c, strings.Join(slices.Sorted(maps.Keys(feedCategories)), ", "))
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return harvestScope{Since: since, Categories: cats}.String(), nil
}

func (s harvestScope) String() string {
	return replica.FormatYearScope(s.Since, "categories", s.Categories)
}

// parseHarvestScope reads what String wrote ("" is every year and
// category).
func parseHarvestScope(canonical string) (harvestScope, error) {
	since, cats, err := replica.ParseYearScope(canonical, "categories")
	return harvestScope{Since: since, Categories: cats}, err
}

// categories are the categories the harvest reads, in a fixed order.
func (s harvestScope) categories() []string {
	if len(s.Categories) > 0 {
		return s.Categories
	}
	return slices.Sorted(maps.Keys(feedCategories))
}

// keeps tells whether the scope keeps e: a document dated before the
// first year is left out.
func (s harvestScope) keeps(e feed.Entity) bool {
	if s.Since == 0 || e.Category != "document" {
		return true
	}
	d := localindex.DayOf(e)
	return d == "" || d >= fmt.Sprintf("%04d", s.Since)
}

// lacks are the categories of need (in its order) that the scope does
// not keep: what a join that needs them cannot read from the replica.
func (s harvestScope) lacks(need []string) []string {
	var out []string
	for _, c := range need {
		if len(s.Categories) > 0 && !slices.Contains(s.Categories, c) {
			out = append(out, c)
		}
	}
	return out
}

// holdsDocuments tells whether the scope keeps documents (what a word
// search asks).
func (s harvestScope) holdsDocuments() bool {
	return len(s.Categories) == 0 || slices.Contains(s.Categories, "document")
}

// Open opens the parliament index under dir.
func (provider) Open(dir string) (replica.Index, replica.OpenReport, error) {
	idx, report, err := localindex.Open(dir)
	if err != nil {
		return nil, report, err
	}
	return idx, report, nil
}

// Remove removes the closed parliament index under dir (an operator's
// rebuild).
func (provider) Remove(dir string) error { return localindex.Remove(dir) }

// Harvester builds the SyncFeed's harvester of idx.
func (provider) Harvester(idx replica.Index, h replica.Harvest) (replica.Harvester, error) {
	ix, ok := idx.(*localindex.Index)
	if !ok {
		return nil, fmt.Errorf("the Tweede Kamer's harvester needs a parliament index, got %T", idx)
	}
	scope, err := parseHarvestScope(h.Scope)
	if err != nil {
		return nil, err
	}
	return newHarvester(ix, h, scope), nil
}

// Interface guards
var (
	_ replica.Provider = provider{}
	_ replica.Offerer  = provider{}
	_ replica.Remover  = provider{}
)
