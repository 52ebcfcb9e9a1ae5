package replica

import (
	"context"
	"net/http"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/clock"
)

// Provider is a platform that keeps a replica of its feed. A platform's
// package implements it beside platforms.Provider and registers nothing
// more: the host (the besluitbron app) finds every registered platform
// that is a Provider, and keeps the replica of those the operator turns
// on. It opens the index, builds the harvester with the host's fetch,
// gate, clock and relay, and runs it; it pools it across reloads, shows
// its state and gives what it offers to the platform's surface
// (Offerer).
//
// The index and the harvester are the platform's: the documents it
// keeps, their mapping and the queries it answers differ per platform.
// What every replica shares (the gate, the relay and its lease, the
// progress, the typed failures) is this package's.
type Provider interface {
	// Replica names the replica and gives its defaults.
	Replica() Spec
	// Scope reads the operator's scope into its canonical form, the same
	// for every spelling of one scope: the instances that share a harvest
	// meet under it, and the harvester reads it back (Harvest.Scope). An
	// error says what to give.
	Scope(s ScopeConfig) (string, error)
	// Open opens the replica's index under dir, making it when there is
	// none. An index it cannot use is an *UnavailableError (ErrLocked
	// while another process holds it: the host waits and tries again).
	Open(dir string) (Index, OpenReport, error)
	// Harvester builds the harvester that keeps idx (as Open returned
	// it) up to date with the feed, as h says.
	Harvester(idx Index, h Harvest) (Harvester, error)
}

// ScopeConfig is what the operator gave of a replica's scope.
type ScopeConfig struct {
	// Since is the oldest kept, in the platform's terms (a year, a
	// date); "" is the whole feed.
	Since string
	// Sources are the parts of the feed kept, for a platform whose feed
	// is per source (an organisation); none is the platform's default.
	Sources []string
}

// Spec names a replica and gives its defaults.
type Spec struct {
	// Name is the replica's name: its folder under the cache directory,
	// the first part of its keys in Redis (the lease and the board), and
	// the name older configurations gave it ("caselaw").
	Name string
	// Unit is what one record is, plural, on the status page and in the
	// metrics ("decisions"); "" is "records".
	Unit string
	// Source names the replica where a search's provenance cites it
	// ("BesluitBron's index of Rechtspraak's feed").
	Source string
	// DefaultScope is the scope of a replica the operator gives none
	// (its since); "" is the whole feed.
	DefaultScope string
}

// Units is s's Unit, "records" when it names none.
func (s Spec) Units() string {
	if s.Unit == "" {
		return "records"
	}
	return s.Unit
}

// Index is a replica's open index, as the host holds it: the platform's
// own type behind it answers the platform's queries.
type Index interface {
	// Err is the *UnavailableError that stopped the index (a failed
	// write, a corrupt file found by a search), nil while it answers.
	Err() error
	// Close closes it; later calls fail with ErrClosed.
	Close() error
}

// Harvester keeps an index up to date with the feed.
type Harvester interface {
	// Run harvests until ctx ends (its error) or the index fails (that
	// *UnavailableError, which Progress shows too). A failed page never
	// ends it: it waits and asks again.
	Run(ctx context.Context) error
	// Progress says where the harvest stands; safe while Run runs.
	Progress() Progress
}

// Fetch sends a request to the platform through its route (cache,
// budget and proxy) as the shared session, and returns the body and
// headers of its 2xx answer (a feed may page by its headers); any other
// answer is an error (adapters.RouteError).
type Fetch func(ctx context.Context, req adapters.Request) ([]byte, http.Header, error)

// Harvest is what the host gives a harvester.
type Harvest struct {
	// Fetch asks the platform: its feed's pages go through it, so the
	// cache tier shared between instances answers a follower's pages.
	Fetch Fetch
	// Clock is the harvest's time (nil: the wall clock).
	Clock clock.Clock
	// Gate blocks before every page until it may go (VisitorsFirst);
	// nil: at once.
	Gate func(ctx context.Context) error
	// Relay shares the harvest with other instances (Share); nil: alone.
	Relay *Relay
	// Scope is the canonical scope (Provider.Scope); "" the whole feed.
	Scope string
	// Interval is the wait between complete passes; 0 the harvester's
	// default.
	Interval time.Duration
}

// OpenReport says what opening an index found.
type OpenReport struct {
	Stamp   string // the mapping stamp of this build, now on the index
	Created bool   // there was no index: a new, empty one was made
	// Rebuilt: there was an index of another mapping (or one without a
	// stamp); it was removed and a new, empty one made, checkpoint and all,
	// so harvesting starts over. Reason says what the old stamp was.
	Rebuilt bool
	Reason  string
}

// Remover is a Provider whose index an operator may have built anew
// (the admin API's rebuild): Remove removes the closed index under dir,
// so that Open makes a new, empty one and harvesting starts over. It
// removes only what the index is made of.
type Remover interface {
	Remove(dir string) error
}

// Offerer is a Provider whose replica the platform's surface asks
// (adapters.Config.Replica): what Offer returns, the platform's own word
// index, say.
type Offerer interface {
	// Offer is what the platform's surface reads of the replica that
	// held keeps. It asks held at each use: the replica may be opening,
	// open or broken.
	Offer(held Held, clk clock.Clock) any
}

// Held is a replica as its host holds it now.
type Held interface {
	// Current is the open index and its harvester, or why there are none:
	// ErrOpening, or the *UnavailableError that kept it from opening.
	Current() (Index, Harvester, error)
	// Broken tells the host that a search found the index broken: the
	// host logs it once (a failed write stops the harvest, which logs it).
	Broken(err error)
}
