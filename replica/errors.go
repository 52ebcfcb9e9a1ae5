package replica

import (
	"errors"
	"fmt"
	"syscall"
)

// What made an index unavailable; test with errors.Is on an
// *UnavailableError.
var (
	// ErrCorrupt: the files on disk cannot be read as an index. Nothing is
	// removed automatically, so an operator can look first; removing the
	// directory makes the next Open build a new, empty index.
	ErrCorrupt = errors.New("index files are corrupt or unreadable")
	// ErrLocked: another process holds the index open.
	ErrLocked = errors.New("index is held open by another process")
	// ErrWriteFailed: a write did not reach the disk (a full disk, an I/O
	// error). The index takes no more writes and answers no more searches
	// until it is opened again, so the part of a batch that was written
	// is never served as if the batch were complete.
	ErrWriteFailed = errors.New("index write failed")
	// ErrClosed: the index was closed.
	ErrClosed = errors.New("index is closed")
	// ErrForeign: the index's folder holds files no index of ours writes
	// (a user's files, another program's): Open neither reads nor removes
	// it. Moving them away, or configuring another directory, lets it open.
	ErrForeign = errors.New("directory not ours")
)

// UnavailableError says that the index cannot be used and why. Error() is
// for the operator (logs, the admin API): it names the directory, the
// cause and what to do. Public() is all that anyone else may read.
type UnavailableError struct {
	// What names the index in the operator's message ("case-law
	// index"); "" reads "index".
	What string
	Dir  string
	Kind error // ErrCorrupt, ErrLocked, ErrWriteFailed, ErrClosed or ErrForeign
	Err  error // the underlying cause, if any
}

func (e *UnavailableError) Error() string {
	what := e.What
	if what == "" {
		what = "index"
	}
	msg := fmt.Sprintf("%s %s unavailable: %v", what, e.Dir, e.Kind)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	switch e.Kind {
	case ErrCorrupt:
		msg += " (remove the directory to rebuild it from the feed)"
	case ErrWriteFailed:
		msg += " (free disk space, then restart to reopen it)"
	case ErrForeign:
		msg += " (move those files away, or give the index a directory of its own)"
	}
	return msg
}

// Unwrap lets errors.Is match both the kind and the cause (a full disk is
// also errors.Is(err, syscall.ENOSPC)).
func (e *UnavailableError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// Public is the failure as a visitor, a tool's caller or the public status
// page may read it: its kind ("index unavailable: corrupt", "index
// unavailable: disk full"), never the directory or the system's words for
// the cause, which name the server's files.
func (e *UnavailableError) Public() string {
	kind := "unknown failure"
	switch {
	case e.Kind == ErrWriteFailed && errors.Is(e.Err, syscall.ENOSPC):
		kind = "disk full"
	case e.Kind == ErrCorrupt:
		kind = "corrupt"
	case e.Kind == ErrLocked:
		kind = "in use by another process"
	case e.Kind == ErrWriteFailed:
		kind = "write failed"
	case e.Kind == ErrClosed:
		kind = "closed"
	case e.Kind == ErrForeign:
		kind = ErrForeign.Error()
	}
	return "index unavailable: " + kind
}

// PublicReason is err as the public may read it: an *UnavailableError's
// Public(), ErrOpening's or ErrNotStarted's text, else only that the
// index is unavailable.
func PublicReason(err error) string {
	for _, known := range []error{ErrOpening, ErrNotStarted} {
		if errors.Is(err, known) {
			return known.Error()
		}
	}
	var ue *UnavailableError
	if errors.As(err, &ue) {
		return ue.Public()
	}
	return "index unavailable"
}

// ErrOpening is a replica whose index is being opened (after a start or
// a reload, it waits while the config before holds the directory).
var ErrOpening = errors.New("the index is being opened")

// ErrNotStarted is a replica whose host's configuration has not started
// it (yet).
var ErrNotStarted = errors.New("this configuration has not started it")
