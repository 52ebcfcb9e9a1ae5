package upstream

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrNoPlace is returned when every host a request may still use stayed at
// its concurrency cap for the whole bounded wait.
var ErrNoPlace = errors.New("every host of the platform stayed at its concurrency cap")

// errNoHost means every host was excluded (already tried by this request).
var errNoHost = errors.New("no host left to try")

// Caps are per-host concurrency caps. Zero means no cap.
type Caps struct {
	// Requests caps all requests in flight on one host.
	Requests int
	// Searches caps search requests in flight on one host.
	Searches int
}

// Places holds the in-flight counts of a platform's hosts, by dial
// address. Every Selector built on one Places shares them, so two
// configurations alive at once during a reload (the new one serving, the
// old one finishing its requests) never hold more than a host's cap
// between them.
type Places struct {
	mu     sync.Mutex
	byDial map[string]*inFlight
	freed  chan struct{} // closed and replaced whenever a place frees up
}

type inFlight struct{ requests, searches int }

// NewPlaces returns empty counts.
func NewPlaces() *Places {
	return &Places{byDial: map[string]*inFlight{}, freed: make(chan struct{})}
}

// Selector returns a selector over the hosts with these dial addresses,
// in failover order, counting on pl.
func (pl *Places) Selector(dials []string, caps Caps) *Selector {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	hosts := make([]*inFlight, len(dials))
	for i, d := range dials {
		c := pl.byDial[d]
		if c == nil {
			c = new(inFlight)
			pl.byDial[d] = c
		}
		hosts[i] = c
	}
	return &Selector{
		caps:  caps,
		pl:    pl,
		hosts: hosts,
		newTimer: func(d time.Duration) (<-chan time.Time, func() bool) {
			t := time.NewTimer(d)
			return t.C, t.Stop
		},
	}
}

// Selector hands out places on hosts, in failover order, under per-host
// caps. A full host is passed over (it costs the request nothing); when
// every host a request may use is full, the request waits, bounded, for a
// place to free up.
type Selector struct {
	caps  Caps
	pl    *Places     // the counts, shared across reloads
	hosts []*inFlight // this selector's hosts' counts, in order (guarded by pl.mu)

	// newTimer starts the bounded wait; tests inject a fake.
	newTimer func(time.Duration) (<-chan time.Time, func() bool)
}

func (s *Selector) room(i int, search bool) bool {
	h := s.hosts[i]
	if s.caps.Requests > 0 && h.requests >= s.caps.Requests {
		return false
	}
	if search && s.caps.Searches > 0 && h.searches >= s.caps.Searches {
		return false
	}
	return true
}

// Acquire takes a place on the first host, in order, that is not excluded
// and has room, and returns its index and the function that gives the
// place back (safe to call more than once). When every allowed host is
// full it waits up to wait for a place; it gives up with ErrNoPlace when
// the wait ends and with the context's error when ctx is done.
func (s *Selector) Acquire(ctx context.Context, search bool, excluded []bool, wait time.Duration) (int, func(), error) {
	var timeout <-chan time.Time
	for {
		s.pl.mu.Lock()
		allowed := false
		for i, h := range s.hosts {
			if excluded != nil && excluded[i] {
				continue
			}
			allowed = true
			if s.room(i, search) {
				h.requests++
				if search {
					h.searches++
				}
				s.pl.mu.Unlock()
				return i, s.releaser(i, search), nil
			}
		}
		freed := s.pl.freed
		s.pl.mu.Unlock()
		if !allowed {
			return -1, nil, errNoHost
		}
		if err := ctx.Err(); err != nil {
			return -1, nil, err
		}
		if timeout == nil {
			if wait <= 0 {
				return -1, nil, ErrNoPlace
			}
			c, stop := s.newTimer(wait)
			defer stop()
			timeout = c
		}
		select {
		case <-freed:
		case <-timeout:
			return -1, nil, ErrNoPlace
		case <-ctx.Done():
			return -1, nil, ctx.Err()
		}
	}
}

func (s *Selector) releaser(i int, search bool) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			pl, h := s.pl, s.hosts[i]
			pl.mu.Lock()
			h.requests--
			if search {
				h.searches--
			}
			close(pl.freed)
			pl.freed = make(chan struct{})
			pl.mu.Unlock()
		})
	}
}

// InFlight returns the requests and searches in flight on host i (through
// every selector sharing its Places).
func (s *Selector) InFlight(i int) (requests, searches int) {
	s.pl.mu.Lock()
	defer s.pl.mu.Unlock()
	return s.hosts[i].requests, s.hosts[i].searches
}
