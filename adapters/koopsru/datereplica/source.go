package datereplica

import (
	"github.com/besluitbron/besluitbron/adapters"
)

// Source is what a platform gives of its SRU connection.
type Source struct {
	// Name is the platform's name in errors ("the BWB").
	Name string
	// Request is the searchRetrieve of the records modified on the days
	// of w (both ends included), limit records from offset (0-based).
	// since is the scope's first day ("" all): a service that can leave
	// out what is dated before it asks less; the harvest leaves it out
	// anyway.
	Request func(w Window, since string, offset, limit int) adapters.Request
	// Parse reads an answer: the count the service gives
	// (numberOfRecords) and the page's records. A record it cannot read is
	// left out of Records and counted in Rejected with the reason.
	Parse func(body []byte) (Page, error)
	// PageSize is the maximumRecords asked; the service may give fewer
	// without saying so (the harvest learns that).
	PageSize int
	// MaxOffset is the deepest offset the service answers (KOOP's SRU
	// fails around startRecord 5000): a day with more records than
	// MaxOffset plus a page is read only so far (Unread).
	MaxOffset int
	// Epoch is the first day of the first pass: no record was modified
	// before it (YYYY-MM-DD; Epoch, unless a test wants a shorter span).
	Epoch string
}

// Epoch is a first day before any record KOOP holds: a record modified
// before the first pass's first day would never be asked for, and the
// empty windows an early epoch adds cost a page each, once.
const Epoch = "1800-01-01"

// Page is one answer of the service.
type Page struct {
	Total    int // numberOfRecords
	Records  []Record
	Rejected int   // records left out: not readable as a Record
	Why      error // why the last of them was
}

// Record is one search record as the replica holds it. Which fields a
// platform fills is its own: a law has a type and dates in force, a
// publication a kind, a publication name and its date.
type Record struct {
	ID    string // the key: the version or publication identifier
	Group string // the work it is a version of (a BWB id); "" is ID
	Type  string // the kind of regulation or publication
	Title string
	// CitationTitle is the short title a law is cited by (citeertitel).
	CitationTitle string
	Organisation  string // the creator: a municipality, province, water board, ministry
	Publication   string // the publication it appeared in (Staatsblad)
	Date          string // YYYY-MM-DD: issued, or the version's start
	// InForceFrom and InForceUntil bound the days a version is in force
	// (YYYY-MM-DD; "" open); both "" for what is not in force at all.
	InForceFrom, InForceUntil string
	Modified                  string // the record's dcterms.modified
	URL                       string // its public page
	Citation                  string // how it is cited, as the platform's hit says
	Snippet                   string // what the platform's hit says beside the title
	Words                     string // other words a search finds it by (subjects)
}

// openUntil is the end of a version nothing ended yet.
const openUntil = "9999-12-31"

// openFrom is the first day in force of a version whose period has an
// end but no start, as its number (fieldFromNum) holds it.
const openFrom = "0001-01-01"

// inScope tells whether r is within a replica that keeps since on
// (YYYY-MM-DD; "" everything): a version in force on or after since, or
// anything else dated on or after it.
func inScope(r Record, since string) bool {
	if since == "" {
		return true
	}
	if r.InForceFrom != "" || r.InForceUntil != "" {
		until := r.InForceUntil
		if until == "" {
			until = openUntil
		}
		return until >= since
	}
	return r.Date == "" || r.Date >= since
}
