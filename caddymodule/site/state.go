package site

import (
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/besluitbron/besluitbron/cache"
	"github.com/besluitbron/besluitbron/caddymodule/app"
	"github.com/besluitbron/besluitbron/caddymodule/site/rolling"
	"github.com/besluitbron/besluitbron/clock"
)

// state is the site's process-wide state, shared by every
// besluitbron_site handler and kept across reloads (a UsagePool): the
// readings behind the last-hour figures, and what the page's own calls
// saw of each platform. It holds no client address and no session.
type state struct {
	figures *app.Figures // what the modules publish in the besluitbron app
	window  *rolling.Window
	stop    chan struct{}
	done    chan struct{}

	mu     sync.Mutex
	recent map[string]seen
}

// seen is the last outcome of the page's own calls to a platform.
type seen struct {
	ok  bool
	at  time.Time
	why string // in English, for /status.json
	// reason is why as a code (fanout.Reason*), which the status page
	// says in its own language.
	reason string
}

const (
	stateKey = "besluitbron_site"
	// span is the window of the cache hit ratio and the waits; a reading
	// is taken every step (and when the status page is asked for).
	span = time.Hour
	step = time.Minute
	// recentFor is how long a page call's outcome says whether a
	// platform is reachable.
	recentFor = 15 * time.Minute
)

var states = caddy.NewUsagePool()

// acquireState takes the process's state, or makes it with its readings
// on clk.
func acquireState(figures *app.Figures, clk clock.Clock) (*state, error) {
	v, _, err := states.LoadOrNew(stateKey, func() (caddy.Destructor, error) {
		s := &state{figures: figures, window: rolling.New(span, step), stop: make(chan struct{}), done: make(chan struct{}), recent: map[string]seen{}}
		go s.loop(clk)
		return s, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*state), nil
}

func releaseState() { _, _ = states.Delete(stateKey) }

// Destruct stops the readings.
func (s *state) Destruct() error {
	close(s.stop)
	<-s.done
	return nil
}

// loop takes a reading of every platform each step on clk, so the last
// hour is covered even when nobody looks at the status page.
func (s *state) loop(clk clock.Clock) {
	defer close(s.done)
	tick := make(chan struct{}, 1)
	s.read(clk.Now())
	for {
		t := clk.AfterFunc(step, func() { tick <- struct{}{} })
		select {
		case <-s.stop:
			t.Stop()
			return
		case <-tick:
			s.read(clk.Now())
		}
	}
}

// readings are the platforms' cumulative figures now, per window key:
// "cache:<key>" (hits of lookups), "up:<key>" (answers stored of answers
// stored plus upstream errors) and "wait:<key>" (the wait histogram).
func (s *state) readings(now time.Time) map[string]rolling.Reading {
	out := map[string]rolling.Reading{}
	for _, st := range s.figures.Caches() {
		out["cache:"+st.Platform] = rolling.Reading{At: now, Hits: hits(st), Lookups: lookups(st)}
		out["up:"+st.Platform] = rolling.Reading{At: now, Hits: st.Stored, Lookups: st.Stored + st.UpstreamErrors}
	}
	for _, k := range allKeys() {
		if w, ok := s.figures.Waits(k); ok {
			out["wait:"+k] = rolling.Reading{At: now, Bounds: w.Bounds, Wait: w.Cumulative, Count: w.Count}
		}
	}
	return out
}

// hits counts the lookups the cache answered itself, fresh or stale.
func hits(st cache.Stats) int64 { return st.Hits + st.Stale }

// lookups counts every lookup that could have been a hit (bypassed
// requests, which the cache never keeps, are not).
func lookups(st cache.Stats) int64 { return st.Hits + st.Stale + st.Misses + st.Coalesced }

func (s *state) read(now time.Time) {
	for k, r := range s.readings(now) {
		s.window.Add(k, r)
	}
}

// record keeps the outcome of one of the page's own platform calls.
func (s *state) record(platform string, ok bool, why, reason string, now time.Time) {
	s.mu.Lock()
	s.recent[platform] = seen{ok: ok, at: now, why: why, reason: reason}
	s.mu.Unlock()
}

func (s *state) lastSeen(platform string, now time.Time) (seen, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.recent[platform]
	if !ok || now.Sub(v.at) > recentFor {
		return seen{}, false
	}
	return v, true
}
