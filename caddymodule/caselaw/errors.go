package caselaw

import (
	"errors"
	"fmt"
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
)

// UnavailableError says that the index cannot be used and why. It is
// operator-visible: Reason and the cause name what to do.
type UnavailableError struct {
	Dir  string
	Kind error // ErrCorrupt, ErrLocked, ErrWriteFailed or ErrClosed
	Err  error // the underlying cause, if any
}

func (e *UnavailableError) Error() string {
	msg := fmt.Sprintf("case-law index %s unavailable: %v", e.Dir, e.Kind)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	switch e.Kind {
	case ErrCorrupt:
		msg += " (remove the directory to rebuild it from the feed)"
	case ErrWriteFailed:
		msg += " (free disk space, then restart to reopen it)"
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

// QueryError is a query the index cannot run. Field names the part of the
// query (words, court, date_from, date_to, type, sort, limit, offset) and
// Problem says what to change.
type QueryError struct {
	Field   string
	Problem string
}

func (e *QueryError) Error() string { return "query " + e.Field + ": " + e.Problem }

func queryErrorf(field, format string, args ...any) *QueryError {
	return &QueryError{Field: field, Problem: fmt.Sprintf(format, args...)}
}
