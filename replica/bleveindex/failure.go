package bleveindex

import (
	"errors"
	"sync"

	"github.com/blevesearch/bleve/v2/index/scorch"

	"github.com/besluitbron/besluitbron/replica"
)

// fail makes the index unavailable for good (until it is opened again) and
// closes bleve, which also stops its background persister from retrying
// the failed write against a full disk in a loop. The first failure is
// the one reported.
func (i *Index) fail(kind, err error) *replica.UnavailableError {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.broken == nil {
		i.broken = unavailable(i.what, i.dir, kind, err)
		unwatch(i)
		_ = i.bl.Close()
	}
	return i.broken
}

// Errors of bleve's background work (persisting, merging) reach no caller,
// so bleve hands them to a callback registered by name; it finds the
// index by its path and makes it unavailable.

const asyncErrorCallbackName = "besluitbron-replica"

var (
	watchedMu sync.Mutex
	watched   = map[string]*Index{}
)

func init() {
	scorch.RegistryAsyncErrorCallbacks[asyncErrorCallbackName] = onAsyncError
}

func watch(i *Index) {
	watchedMu.Lock()
	defer watchedMu.Unlock()
	watched[i.storePath] = i
}

func unwatch(i *Index) {
	watchedMu.Lock()
	defer watchedMu.Unlock()
	if watched[i.storePath] == i {
		delete(watched, i.storePath)
	}
}

func onAsyncError(err error, path string) {
	if errors.Is(err, scorch.ErrCleanup) {
		return // removing old files failed: nothing written is lost
	}
	watchedMu.Lock()
	i := watched[path]
	watchedMu.Unlock()
	if i == nil {
		return
	}
	kind := replica.ErrWriteFailed
	if errors.Is(err, scorch.ErrAsyncPanic) {
		kind = replica.ErrCorrupt
	}
	// In its own goroutine: fail closes bleve, which waits for the very
	// background task that is calling here.
	go i.fail(kind, err)
}
