package replica

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

// pagedFeed is a RoundFeed of parts with a number of pages each; fail
// answers a page's try (nil: it succeeds).
type pagedFeed struct {
	mu     sync.Mutex
	round  RoundState
	pages  map[string]int // pages left this round
	each   map[string]int
	read   []string
	stored int
	fail   func(part string, try int) error
	tries  int
}

func (f *pagedFeed) Round() *RoundState { return &f.round }
func (f *pagedFeed) BeginRound() {
	f.pages = map[string]int{}
	for p, n := range f.each {
		f.pages[p] = n
	}
}
func (f *pagedFeed) Parts(context.Context) ([]string, error) { return []string{"a", "b"}, nil }
func (f *pagedFeed) CaughtUp(part string) bool               { return f.pages[part] == 0 }
func (f *pagedFeed) Page(_ context.Context, part string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tries++
	if f.fail != nil {
		if err := f.fail(part, f.tries); err != nil {
			return err
		}
	}
	f.pages[part]--
	f.round.Pages++
	f.read = append(f.read, part)
	return nil
}
func (f *pagedFeed) Store() error { f.stored++; return nil }

func (f *pagedFeed) reads() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.read...)
}

var roundsStart = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

func runRounds(t *testing.T, f *pagedFeed, c RoundsConfig) (*Rounds, *fakeclock.Clock, chan error, context.CancelFunc) {
	t.Helper()
	clk := fakeclock.New(roundsStart)
	c.Clock, c.Interval, c.RetryMin, c.RetryMax = clk, time.Hour, 10*time.Second, time.Minute
	r := NewRounds(c)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx, f) }()
	t.Cleanup(func() { cancel(); <-done })
	return r, clk, done, cancel
}

// A round reads every part to its end, in order; then the round's
// start is what the feed is complete up to, and the next round waits
// the interval.
func TestRoundsReadEveryPartThenWait(t *testing.T) {
	f := &pagedFeed{each: map[string]int{"a": 2, "b": 1}}
	r, clk, _, _ := runRounds(t, f, RoundsConfig{})
	if wait := clk.AwaitTimer().Sub(clk.Now()); wait != time.Hour {
		t.Fatalf("waits %v after the round", wait)
	}
	p := r.Progress()
	if got := f.reads(); len(got) != 3 || got[0] != "a" || got[2] != "b" || !p.CompleteUpTo.Equal(roundsStart) || p.PassStart != (time.Time{}) || f.stored != 1 {
		t.Fatalf("read %v, progress %+v, stored %d", got, p, f.stored)
	}
	clk.Advance(time.Hour)
	clk.AwaitTimer()
	if p := r.Progress(); !p.CompleteUpTo.Equal(roundsStart.Add(time.Hour)) || len(f.reads()) != 6 {
		t.Fatalf("second round: %+v, read %v", p, f.reads())
	}
}

// A failed page waits (at least what Retry-After says) and is asked
// again; an error asking for the next page at once waits for nothing;
// an index failure ends the harvest.
func TestRoundsRetryAndStop(t *testing.T) {
	busy := adapters.Classify("x", 429, false, 120, true, nil)
	f := &pagedFeed{each: map[string]int{"a": 1, "b": 1}, fail: func(part string, try int) error {
		if try == 1 {
			return busy
		}
		return nil
	}}
	r, clk, _, _ := runRounds(t, f, RoundsConfig{})
	if wait := clk.AwaitTimer().Sub(clk.Now()); wait != 120*time.Second {
		t.Fatalf("after a 429 it waits %v", wait)
	}
	if p := r.Progress(); p.FailuresInRow != 1 || !errors.Is(p.LastError, busy) {
		t.Fatalf("%+v", p)
	}
	clk.Advance(120 * time.Second)
	clk.AwaitTimer()
	if p := r.Progress(); p.FailuresInRow != 0 || p.CompleteUpTo.IsZero() {
		t.Fatalf("after recovering: %+v", p)
	}

	again := errors.New("cursor refused")
	f2 := &pagedFeed{each: map[string]int{"a": 1, "b": 1}, fail: func(part string, try int) error {
		if try == 1 {
			return again
		}
		return nil
	}}
	r2, clk2, _, _ := runRounds(t, f2, RoundsConfig{AtOnce: func(err error) bool { return errors.Is(err, again) }})
	if wait := clk2.AwaitTimer().Sub(clk2.Now()); wait != time.Hour {
		t.Fatalf("after an error asking again at once it waits %v, want the round to end", wait)
	}
	if p := r2.Progress(); p.FailuresInRow != 0 || !errors.Is(p.LastError, again) {
		t.Fatalf("%+v", p)
	}

	broken := &UnavailableError{What: "test index", Kind: ErrCorrupt, Err: errors.New("bad")}
	f3 := &pagedFeed{each: map[string]int{"a": 1, "b": 1}, fail: func(string, int) error { return broken }}
	r3, _, done, _ := runRounds(t, f3, RoundsConfig{})
	if err := <-done; !errors.Is(err, ErrCorrupt) {
		t.Fatalf("run ended with %v", err)
	}
	done <- nil // for the cleanup
	if p := r3.Progress(); !errors.Is(p.Stopped, ErrCorrupt) || p.Running {
		t.Fatalf("%+v", p)
	}
}
