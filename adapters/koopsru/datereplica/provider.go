package datereplica

import (
	"errors"
	"fmt"

	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/replica"
)

// Provider is what a replica of KOOP's search records by modification
// date gives the besluitbron app (replica.Provider, Offerer and
// Remover): a platform embeds it in its provider with its replica's
// spec, its index's name and its SRU source, and writes only how a page
// of its records is read and how its searches ask the replica.
type Provider struct {
	// Spec names the replica.
	Spec replica.Spec
	// What names the index in its failures ("laws index").
	What string
	// Source is the platform's SRU as the harvest asks it.
	Source Source
}

// Replica names the replica (replica.Provider).
func (p Provider) Replica() replica.Spec { return p.Spec }

// Scope reads a year or a date: records on or after it are kept. KOOP's
// replicas have no sources to choose.
func (p Provider) Scope(s replica.ScopeConfig) (string, error) {
	if len(s.Sources) > 0 {
		return "", errors.New("the " + p.What + " has no sources: give since alone")
	}
	return ParseScope(s.Since)
}

// Open opens the index under dir.
func (p Provider) Open(dir string) (replica.Index, replica.OpenReport, error) {
	idx, report, err := Open(dir, p.What)
	if err != nil {
		return nil, report, err // a nil interface, not a nil *Index
	}
	return idx, report, nil
}

// Remove removes the closed index under dir (an operator's rebuild).
func (p Provider) Remove(dir string) error { return Remove(dir, p.What) }

// Harvester builds the harvest of idx.
func (p Provider) Harvester(idx replica.Index, h replica.Harvest) (replica.Harvester, error) {
	ix, ok := idx.(*Index)
	if !ok {
		return nil, fmt.Errorf("the harvest of the %s needs its index, got %T", p.What, idx)
	}
	return NewHarvester(ix, p.Source, h)
}

// Offer is the replica as the platform's surface and search tool ask it
// (a Searcher).
func (p Provider) Offer(held replica.Held, _ clock.Clock) any { return Offer(held, p.Spec) }

// Interface guards
var (
	_ replica.Provider = Provider{}
	_ replica.Offerer  = Provider{}
	_ replica.Remover  = Provider{}
)
