package caselaw

import (
	"fmt"

	"github.com/besluitbron/besluitbron/replica"
)

// What made an index unavailable: the kinds every replica shares
// (replica/errors.go); test with errors.Is on an *UnavailableError.
var (
	ErrCorrupt     = replica.ErrCorrupt
	ErrLocked      = replica.ErrLocked
	ErrWriteFailed = replica.ErrWriteFailed
	ErrClosed      = replica.ErrClosed
	ErrForeign     = replica.ErrForeign
)

// UnavailableError says that the index cannot be used and why
// (replica.UnavailableError, named "case-law index").
type UnavailableError = replica.UnavailableError

// what names the index in the operator's messages.
const what = "case-law index"

// unavailable is the failure of kind under dir.
func unavailable(dir string, kind, err error) *UnavailableError {
	return &UnavailableError{What: what, Dir: dir, Kind: kind, Err: err}
}

// PublicReason is err as the public may read it (replica.PublicReason).
func PublicReason(err error) string { return replica.PublicReason(err) }

// QueryError is a query the index cannot run. Field names the part of the
// query (words, court, date_from, date_to, type, sort, limit, offset,
// after) and Problem says what to change.
type QueryError struct {
	Field   string
	Problem string
}

func (e *QueryError) Error() string { return "query " + e.Field + ": " + e.Problem }

func queryErrorf(field, format string, args ...any) *QueryError {
	return &QueryError{Field: field, Problem: fmt.Sprintf(format, args...)}
}
