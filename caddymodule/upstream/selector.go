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

// Selector hands out places on hosts, in failover order, under per-host
// caps. A full host is passed over (it costs the request nothing); when
// every host a request may use is full, the request waits, bounded, for a
// place to free up.
type Selector struct {
	caps Caps

	mu       sync.Mutex
	requests []int
	searches []int
	freed    chan struct{} // closed and replaced whenever a place frees up

	// newTimer starts the bounded wait; tests inject a fake.
	newTimer func(time.Duration) (<-chan time.Time, func() bool)
}

// NewSelector returns a selector for n hosts.
func NewSelector(n int, caps Caps) *Selector {
	return &Selector{
		caps:     caps,
		requests: make([]int, n),
		searches: make([]int, n),
		freed:    make(chan struct{}),
		newTimer: func(d time.Duration) (<-chan time.Time, func() bool) {
			t := time.NewTimer(d)
			return t.C, t.Stop
		},
	}
}

func (s *Selector) room(i int, search bool) bool {
	if s.caps.Requests > 0 && s.requests[i] >= s.caps.Requests {
		return false
	}
	if search && s.caps.Searches > 0 && s.searches[i] >= s.caps.Searches {
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
		s.mu.Lock()
		allowed := false
		for i := range s.requests {
			if excluded != nil && excluded[i] {
				continue
			}
			allowed = true
			if s.room(i, search) {
				s.requests[i]++
				if search {
					s.searches[i]++
				}
				s.mu.Unlock()
				return i, s.releaser(i, search), nil
			}
		}
		freed := s.freed
		s.mu.Unlock()
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
			s.mu.Lock()
			s.requests[i]--
			if search {
				s.searches[i]--
			}
			close(s.freed)
			s.freed = make(chan struct{})
			s.mu.Unlock()
		})
	}
}

// InFlight returns the requests and searches in flight on host i.
func (s *Selector) InFlight(i int) (requests, searches int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[i], s.searches[i]
}
