package obv

import (
	"fmt"
	"regexp"

	"github.com/besluitbron/besluitbron/platforms/obv/localindex"
	"github.com/besluitbron/besluitbron/replica"
)

// OpenBesluitvorming's replica: the council documents its export holds
// (names, titles, committees, agenda items, motions and their results;
// never a document's full text), kept by BesluitBron from the export's
// snapshot and change feed (harvest.go) in a local index
// (platforms/obv/localindex). The besluitbron app keeps it when the
// operator turns it on: replica obv { sources …; since …; interval …;
// dir … }.

// replicaSpec names the replica.
var replicaSpec = replica.Spec{
	Name:   "council",
	Unit:   "records",
	Source: "BesluitBron's index of OpenBesluitvorming's export",
	// Every source, from 2024 on. The export is read per source from its
	// first record whatever the years kept (it has no date filter), so
	// the years only bound the disk: the last three years are what most
	// questions about councils ask for, at a fraction of the 3 million
	// records (docs/operations.md says how to widen it).
	DefaultScope: "2024",
}

// Replica names the replica (replica.Provider).
func (provider) Replica() replica.Spec { return replicaSpec }

// harvestScope is what the replica keeps.
type harvestScope struct {
	// Since is the oldest year kept; 0 keeps every year.
	Since int
	// Sources are source keys, sorted and each once; none: every source
	// /api/sources lists as implemented.
	Sources []string
}

var sourceKeyRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,99}$`)

// Scope reads a year (or all) and source keys into the canonical scope
// "since=<year>|all sources=<key>,…|all".
func (provider) Scope(s replica.ScopeConfig) (string, error) {
	since, sources, err := replica.ReadYearScope(s, "2024", func(k string) error {
		if !sourceKeyRE.MatchString(k) {
			return fmt.Errorf("source %q: give source keys as /api/sources lists them (gemeente_soest, say)", k)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return harvestScope{Since: since, Sources: sources}.String(), nil
}

func (s harvestScope) String() string { return replica.FormatYearScope(s.Since, "sources", s.Sources) }

// parseHarvestScope reads what String wrote ("" is every year and
// source).
func parseHarvestScope(canonical string) (harvestScope, error) {
	since, sources, err := replica.ParseYearScope(canonical, "sources")
	return harvestScope{Since: since, Sources: sources}, err
}

// Open opens the council documents index under dir.
func (provider) Open(dir string) (replica.Index, replica.OpenReport, error) {
	idx, report, err := localindex.Open(dir)
	if err != nil {
		return nil, report, err
	}
	return idx, report, nil
}

// Remove removes the closed council documents index under dir (an
// operator's rebuild).
func (provider) Remove(dir string) error { return localindex.Remove(dir) }

// Harvester builds the export's harvester of idx.
func (provider) Harvester(idx replica.Index, h replica.Harvest) (replica.Harvester, error) {
	ix, ok := idx.(*localindex.Index)
	if !ok {
		return nil, fmt.Errorf("OpenBesluitvorming's harvester needs a council documents index, got %T", idx)
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
