package caselaw

import (
	"fmt"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis/lang/nl"

	"github.com/besluitbron/besluitbron/replica"
	"github.com/besluitbron/besluitbron/replica/bleveindex"
)

// OpenReport says what Open found (replica.OpenReport).
type OpenReport = replica.OpenReport

// Index is the case-law index on disk: a replica's bleve index
// (replica/bleveindex) with the decisions' mapping (mapping.go), whose
// checkpoint is the harvest's. It is safe for concurrent use: searches run
// in parallel; writes (Apply) run one at a time.
//
// Once a write fails or the files turn out corrupt, every later call
// returns the same *UnavailableError: it never goes on serving an index
// that may hold half a batch.
type Index struct {
	store     *bleveindex.Index
	analyzers analyzers    // to analyze query words as the text was
	days      dayHistogram // the days' counts, to size the date order's windows

	writeMu sync.Mutex   // one Apply at a time, so cp follows the batches in order
	cpMu    sync.RWMutex // guards cp
	cp      Checkpoint
}

// Remove removes the closed index under dir, so that Open makes a new,
// empty one: an operator's rebuild (bleveindex.Remove).
func Remove(dir string) error { return bleveindex.Remove(dir, what) }

// Open opens the index under dir, creating it when there is none
// (bleveindex.Open: an index of another mapping stamp is rebuilt empty,
// a folder that is not ours refused with ErrForeign, another process's
// index ErrLocked, unreadable files ErrCorrupt). A checkpoint that does
// not read is ErrCorrupt too.
func Open(dir string) (*Index, OpenReport, error) {
	store, report, err := bleveindex.Open(dir, bleveindex.Config{What: what, Mapping: newMapping(), Format: stampFormat})
	if err != nil {
		return nil, report, err
	}
	cp, err := decodeCheckpoint(store.Checkpoint())
	if err != nil {
		_ = store.Close()
		return nil, report, unavailable(dir, ErrCorrupt, fmt.Errorf("harvest checkpoint: %w", err))
	}
	m := store.Bleve().Mapping()
	return &Index{
		store:     store,
		analyzers: analyzers{words: m.AnalyzerNamed(nl.AnalyzerName), pairs: m.AnalyzerNamed(analyzerPairs)},
		cp:        cp,
	}, report, nil
}

// Apply stores a page of decisions (upserted by ECLI; a tombstone removes
// its decision) and the checkpoint that follows it, in one bleve batch: after
// a crash either both are on disk or neither is. A decision that cannot be
// stored (no ECLI, no date) fails the whole call before anything is
// written; the harvester leaves such entries out beforehand. A failed write
// makes the index unavailable (ErrWriteFailed).
func (i *Index) Apply(batch []Decision, cp Checkpoint) error {
	ops := make([]bleveindex.Op, len(batch))
	for n, d := range batch {
		d = d.normalized()
		if err := d.check(); err != nil {
			return fmt.Errorf("decision %d of the batch: %w", n, err)
		}
		if d.Deleted {
			ops[n] = bleveindex.Delete(d.ECLI)
		} else {
			ops[n] = bleveindex.Upsert(d.ECLI, docOf(d))
		}
	}
	enc, err := cp.encode()
	if err != nil {
		return err
	}

	i.writeMu.Lock()
	defer i.writeMu.Unlock()
	err = i.store.Apply(ops, enc)
	i.days.clear() // even after a failure: part of the batch may be in
	if err != nil {
		return err
	}
	i.cpMu.Lock()
	i.cp = cp
	i.cpMu.Unlock()
	return nil
}

// Checkpoint returns the harvest checkpoint of the last batch applied (or
// the one found when opened).
func (i *Index) Checkpoint() Checkpoint {
	i.cpMu.RLock()
	defer i.cpMu.RUnlock()
	return i.cp
}

// Count returns the number of decisions in the index.
func (i *Index) Count() (uint64, error) { return i.store.Count() }

// Err returns the *UnavailableError that stopped the index, or nil while
// it is healthy.
func (i *Index) Err() error { return i.store.Err() }

// Close closes the index; later calls return ErrClosed. Closing an index
// that already failed returns nil: its failure was reported when it
// happened.
func (i *Index) Close() error { return i.store.Close() }
