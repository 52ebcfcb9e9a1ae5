package bleveindex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/besluitbron/besluitbron/replica"
)

// Index is a replica's bleve index on disk. It is safe for concurrent
// use: searches run in parallel; writes (Apply) run one at a time.
//
// Once a write fails or the files turn out corrupt, the index closes its
// bleve index and every later call returns the same
// *replica.UnavailableError: it never goes on serving an index that may
// hold half a batch.
type Index struct {
	what      string // names the index in the operator's messages
	dir       string
	storePath string // where bleve keeps its files: the key of its background errors

	writeMu sync.Mutex // one Apply at a time, so checkpoints land in order

	// generation counts the batches written; generationKey carries it in
	// each batch and the generation file beside the index repeats it
	// after the batch is on disk (see load). Changed under writeMu;
	// atomic so that Generation reads it while a batch is written.
	generation atomic.Uint64

	// mu guards bl, broken and checkpoint. Searches and writes hold it for
	// reading while they use bl; breaking and closing take it for writing,
	// so bleve is closed only once nothing uses it.
	mu         sync.RWMutex
	bl         bleve.Index
	broken     *replica.UnavailableError
	checkpoint []byte
}

// Op is one change of a batch: Doc (a map or a struct the mapping reads)
// is stored as document ID, replacing any before; a nil Doc deletes ID.
type Op struct {
	ID  string
	Doc any
}

// Upsert stores doc as document id.
func Upsert(id string, doc any) Op { return Op{ID: id, Doc: doc} }

// Delete removes document id (nothing when there is none).
func Delete(id string) Op { return Op{ID: id} }

// ErrNoID is an Op without an ID: a caller's mistake, which writes
// nothing and leaves the index as it was.
var ErrNoID = errors.New("a document without an id")

// Apply writes ops, in order, and the checkpoint that follows them, in one
// bleve batch: after a crash either both are on disk or neither is. The
// checkpoint is the platform's own, opaque here; Checkpoint returns it. An
// op without an ID fails the whole call before anything is written. A
// failed write makes the index unavailable (ErrWriteFailed).
func (i *Index) Apply(ops []Op, checkpoint []byte) error {
	for n, op := range ops {
		if op.ID == "" {
			return fmt.Errorf("op %d of the batch: %w", n, ErrNoID)
		}
	}
	checkpoint = bytes.Clone(checkpoint)

	i.writeMu.Lock()
	defer i.writeMu.Unlock()
	next := i.generation.Load() + 1
	if err := i.write(ops, checkpoint, next); err != nil {
		return err
	}
	i.generation.Store(next)
	if err := writeFileAtomic(filepath.Join(i.dir, DirName, GenerationFileName), strconv.AppendUint(nil, next, 10)); err != nil {
		return i.fail(replica.ErrWriteFailed, err)
	}
	i.mu.Lock()
	i.checkpoint = checkpoint
	i.mu.Unlock()
	return nil
}

func (i *Index) write(ops []Op, checkpoint []byte, generation uint64) error {
	err := i.guarded("writing the index", func() error {
		b := i.bl.NewBatch()
		for _, op := range ops {
			if op.Doc == nil {
				b.Delete(op.ID)
				continue
			}
			if err := b.Index(op.ID, op.Doc); err != nil {
				return err
			}
		}
		b.SetInternal([]byte(checkpointKey), checkpoint)
		b.SetInternal([]byte(generationKey), strconv.AppendUint(nil, generation, 10))
		return i.bl.Batch(b)
	})
	var unavailable *replica.UnavailableError
	if err != nil && !errors.As(err, &unavailable) { // bleve's own failure, not a panic or a broken index
		return i.fail(replica.ErrWriteFailed, err)
	}
	return err
}

// Generation counts the batches applied so far: it changes with every
// Apply, so what is computed from the documents (a count per source)
// holds as long as the generation it was computed at.
func (i *Index) Generation() uint64 { return i.generation.Load() }

// Checkpoint returns the checkpoint of the last batch applied (or the one
// found when opened); nil when none was ever written.
func (i *Index) Checkpoint() []byte {
	i.mu.RLock()
	defer i.mu.RUnlock()
	return bytes.Clone(i.checkpoint)
}

// Search runs req on bleve. A panic while reading the index (a segment
// file gone bad) makes the index unavailable (ErrCorrupt); it never
// reaches the caller. A failed or closed index returns its
// *replica.UnavailableError.
func (i *Index) Search(ctx context.Context, req *bleve.SearchRequest) (res *bleve.SearchResult, err error) {
	err = i.guarded("searching the index", func() error {
		res, err = i.bl.SearchInContext(ctx, req)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// guarded runs f as Search runs bleve: refused with the index's
// *replica.UnavailableError once it is broken, and a panic inside bleve
// (a segment file gone bad) makes the index unavailable (ErrCorrupt) and
// is returned as that error, never reaching the caller as a panic.
func (i *Index) guarded(what string, f func() error) error {
	err, panicked := i.recovering(what, f)
	if panicked {
		return i.fail(replica.ErrCorrupt, err)
	}
	return err
}

// besideBleve runs f, a read of the segments beside bleve's own searches
// (count.go, bestfirst.go), as guarded does, except that a panic in it
// is not taken for a corrupt index: it may be this package's own
// mistake, so the caller is told to ask bleve instead (fellBack), which
// finds a segment gone bad itself.
func (i *Index) besideBleve(what string, f func() error) (fellBack bool, err error) {
	err, panicked := i.recovering(what, f)
	if panicked {
		return true, nil
	}
	return false, err
}

// recovering runs f under the index's read lock, refused once the index
// is broken, with a panic in f returned as an error.
func (i *Index) recovering(what string, f func() error) (err error, panicked bool) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	if i.broken != nil {
		return i.broken, false
	}
	defer func() {
		if r := recover(); r != nil {
			err, panicked = fmt.Errorf("%s panicked: %v", what, r), true
		}
	}()
	return f(), false
}

// snapshot is a reader of the index's current scorch snapshot, for what
// reads its segments beside bleve's searches; nil (and no error) when
// the index is not scorch. Close it when done. Call it inside guarded.
func (i *Index) snapshot() (index.IndexReader, *scorch.IndexSnapshot, error) {
	adv, err := i.bl.Advanced()
	if err != nil {
		return nil, nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, nil, err
	}
	is, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil, nil, r.Close()
	}
	return r, is, nil
}

// Terms counts the terms of field from min to max (inclusive; nil:
// open), stopping at limit: what a range query over them would visit,
// for a caller choosing the cheaper of two equal queries. Guarded as
// Search is.
func (i *Index) Terms(field string, min, max []byte, limit int) (n int, err error) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	if i.broken != nil {
		return 0, i.broken
	}
	defer func() {
		if r := recover(); r != nil {
			n, err = 0, fmt.Errorf("reading the index's terms panicked: %v", r)
		}
	}()
	dict, err := i.bl.FieldDictRange(field, min, max)
	if err != nil {
		return 0, err
	}
	defer dict.Close()
	for n < limit {
		e, err := dict.Next()
		if err != nil || e == nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Bleve is the bleve index itself, for what Search does not do: its
// mapping's analyzers, a document by its id, a test's or a benchmark's
// look inside. Nothing guards it: use it while the index is open, and
// query through Search.
func (i *Index) Bleve() bleve.Index { return i.bl }

// Count returns the number of documents in the index.
func (i *Index) Count() (uint64, error) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	if i.broken != nil {
		return 0, i.broken
	}
	return i.bl.DocCount()
}

// Err returns the *replica.UnavailableError that stopped the index, or
// nil while it is healthy.
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
	i.broken = unavailable(i.what, i.dir, replica.ErrClosed, nil)
	unwatch(i)
	decodedWords.forget(i)
	return i.bl.Close()
}

// unavailable is the failure of kind under dir.
func unavailable(what, dir string, kind, err error) *replica.UnavailableError {
	return &replica.UnavailableError{What: what, Dir: dir, Kind: kind, Err: err}
}
