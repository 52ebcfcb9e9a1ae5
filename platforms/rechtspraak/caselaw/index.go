package caselaw

import (
	"fmt"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/blevesearch/bleve/v2"
)

// Index is the case-law index on disk. It is safe for concurrent use:
// searches run in parallel; writes (Apply) run one at a time.
//
// Once a write fails or the files turn out corrupt, the index closes its
// bleve index and every later call returns the same *UnavailableError:
// it never goes on serving an index that may hold half a batch.
type Index struct {
	dir       string
	storePath string    // where bleve keeps its files: the key of its background errors
	analyzers analyzers // to analyze query words as the text was

	writeMu sync.Mutex // one Apply at a time, so checkpoints land in order

	// generation counts the batches written; generationKey carries it in
	// each batch and the generation file beside the index repeats it
	// after the batch is on disk (see load). Guarded by writeMu.
	generation uint64

	// mu guards bl, broken and cp. Searches and writes hold it for reading
	// while they use bl; breaking and closing take it for writing, so bleve
	// is closed only once nothing uses it.
	mu     sync.RWMutex
	bl     bleve.Index
	broken *UnavailableError
	cp     Checkpoint
}

// Apply stores a page of decisions (upserted by ECLI; a tombstone removes
// its decision) and the checkpoint that follows it, in one bleve batch: after
// a crash either both are on disk or neither is. A decision that cannot be
// stored (no ECLI, no date) fails the whole call before anything is
// written; the harvester leaves such entries out beforehand. A failed write
// makes the index unavailable (ErrWriteFailed).
func (i *Index) Apply(batch []Decision, cp Checkpoint) error {
	docs := make([]Decision, len(batch))
	for n, d := range batch {
		docs[n] = d.normalized()
		if err := docs[n].check(); err != nil {
			return fmt.Errorf("decision %d of the batch: %w", n, err)
		}
	}
	enc, err := cp.encode()
	if err != nil {
		return err
	}

	i.writeMu.Lock()
	defer i.writeMu.Unlock()
	next := i.generation + 1
	if err := i.write(docs, enc, next); err != nil {
		return err
	}
	i.generation = next
	if err := writeFileAtomic(filepath.Join(i.dir, indexDirName, generationFileName), strconv.AppendUint(nil, next, 10)); err != nil {
		return i.fail(ErrWriteFailed, err)
	}
	i.mu.Lock()
	i.cp = cp
	i.mu.Unlock()
	return nil
}

func (i *Index) write(docs []Decision, checkpoint []byte, generation uint64) error {
	i.mu.RLock()
	if i.broken != nil {
		defer i.mu.RUnlock()
		return i.broken
	}
	err, panicked := func() (err error, panicked bool) {
		defer func() {
			if r := recover(); r != nil {
				err, panicked = fmt.Errorf("writing the index panicked: %v", r), true
			}
		}()
		b := i.bl.NewBatch()
		for _, d := range docs {
			if d.Deleted {
				b.Delete(d.ECLI)
				continue
			}
			if err := b.Index(d.ECLI, docOf(d)); err != nil {
				return err, false
			}
		}
		b.SetInternal([]byte(checkpointKey), checkpoint)
		b.SetInternal([]byte(generationKey), strconv.AppendUint(nil, generation, 10))
		return i.bl.Batch(b), false
	}()
	i.mu.RUnlock()
	switch {
	case panicked:
		return i.fail(ErrCorrupt, err)
	case err != nil:
		return i.fail(ErrWriteFailed, err)
	}
	return nil
}

// Checkpoint returns the harvest checkpoint of the last batch applied (or
// the one found when opened).
func (i *Index) Checkpoint() Checkpoint {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return i.cp
}

// Count returns the number of decisions in the index.
func (i *Index) Count() (uint64, error) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	if i.broken != nil {
		return 0, i.broken
	}
	return i.bl.DocCount()
}

// Err returns the *UnavailableError that stopped the index, or nil while
// it is healthy.
func (i *Index) Err() error {
	i.mu.RLock()
	defer i.mu.RUnlock()
	if i.broken == nil {
		return nil
	}
	return i.broken
}

// Close closes the index; later calls return ErrClosed. Closing an index
// that already failed returns nil: its failure was reported when it
// happened.
func (i *Index) Close() error {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.broken != nil {
		return nil
	}
	i.broken = unavailable(i.dir, ErrClosed, nil)
	unwatch(i)
	return i.bl.Close()
}
