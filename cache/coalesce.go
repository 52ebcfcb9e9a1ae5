package cache

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/cachestatus"
	"github.com/besluitbron/besluitbron/httpx"
)

// This file coalesces misses: identical requests wait for one upstream
// request (a flight) and share its answer, buffered by fetchWriter.

// ErrFlightTimeout is the answer of a flight that reached its deadline
// (Options.FlightTimeout) before the platform's answer was complete: the
// platform stalled. platform_cache answers it 504, with Retry-After.
var ErrFlightTimeout = errors.New("the platform did not answer within the cache's flight deadline")

// flight is one upstream request that identical misses wait for.
type flight struct {
	done    chan struct{}
	res     *result
	waiters int             // callers still interested; guarded by Store.flightsMu
	ctx     context.Context // the upstream request's: outlives the leader, not the deadline
	cancel  context.CancelFunc
	// deadline ends ctx with ErrFlightTimeout; stopped once the answer
	// is shared (publish), so a stream to the leader runs on, unless the
	// flight is a background refresh (no leader to stream to).
	deadline   *time.Timer
	background bool
	// sharedLead: this instance holds the key's lease in the shared tier
	// (other instances may wait for this request); guarded by flightsMu.
	sharedLead *sharedState
}

// newFlightLocked starts a flight led by r; registered, it is the one
// identical misses join. Called with flightsMu held.
func (s *Store) newFlightLocked(key string, r *http.Request, register bool) *flight {
	f := s.newFlight(r.Context())
	if register {
		s.flights[key] = f
	}
	return f
}

// newFlight makes a flight whose upstream request runs on parent's values,
// not its cancel (the caller that started it may go while others wait),
// and ends at the flight deadline unless its answer was shared by then.
func (s *Store) newFlight(parent context.Context) *flight {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(parent))
	f := &flight{done: make(chan struct{}), waiters: 1, ctx: ctx}
	f.deadline = time.AfterFunc(s.flightTimeout, func() { cancel(ErrFlightTimeout) })
	f.cancel = func() {
		f.deadline.Stop()
		cancel(context.Canceled)
	}
	return f
}

// stalled replaces the failed result of a flight its deadline ended with
// ErrFlightTimeout: the platform stalled, so every caller gets a 504 with
// Retry-After (or its stale entry), whatever the handlers below made of
// the cancelled request (platform_limit's 499, a cut-off body).
func stalled(f *flight, res *result) *result {
	if res.err != nil && errors.Is(context.Cause(f.ctx), ErrFlightTimeout) {
		return &result{err: ErrFlightTimeout, shared: true, detail: "timeout", retryAfter: httpx.StalledRetryAfter}
	}
	return res
}

// result is what a flight brings back.
type result struct {
	err     error // nothing usable was written
	shared  bool  // false: the leader streamed it, followers ask themselves
	status  int
	header  http.Header // the leader's live headers
	stored  http.Header // cleaned copy: what followers and the store get
	body    []byte
	storeOK bool
	ttl     int64  // when storeOK: the stored entry's lifetime left, in seconds
	detail  string // why it was not stored

	// rejected: err is the budget turning the leader's session away
	// (platform_limit's budget refusal). It is that session's
	// answer, not the platform's: followers ask on their own account.
	rejected bool
	// retryAfter is the Retry-After of a refusal (a rejection, the
	// platform's 429 or 5xx), passed to every caller it is written to;
	// it is never stored.
	retryAfter string
}

// maxRejoins is how many more flights a caller may join after the one it
// waited for was turned away by the budget. Past it, the caller asks on
// its own (a registered flight when none is under way, else alone), so
// the waits it spends on other sessions' accounts stay bounded.
const maxRejoins = 1

// fetch makes (or joins) the one upstream request for key. rejoins counts
// the flights this caller already saw turned away by the budget.
func (s *Store) fetch(w http.ResponseWriter, r *http.Request, inm, key string, pol Policy, next Next, stale *Entry, dropped string, rejoins int) error {
	s.flightsMu.Lock()
	f := s.flights[key]
	if f != nil && rejoins <= maxRejoins {
		f.waiters++
		s.flightsMu.Unlock()
		return s.follow(w, r, inm, key, f, pol, next, stale, rejoins)
	}
	f = s.newFlightLocked(key, r, f == nil)
	s.flightsMu.Unlock()
	return s.lead(w, r, inm, key, f, pol, next, stale, dropped)
}

// lead runs flight f's upstream request for r, stores what may be stored
// and hands the result to f's followers.
func (s *Store) lead(w http.ResponseWriter, r *http.Request, inm, key string, f *flight, pol Policy, next Next, stale *Entry, dropped string) error {
	defer f.cancel()
	// The leader hanging up does not end the request while others wait
	// for it; when every waiter has gone, the upstream request is ended.
	stop := context.AfterFunc(r.Context(), func() { s.leave(key, f) })
	defer stop()

	// With a shared tier, one instance asks the platform for everyone
	// (sharedflight.go).
	var lease *sharedLease
	if st := s.shared.Load(); st != nil {
		token, res, err := s.awaitShared(f.ctx, st, key)
		switch {
		case err != nil:
			// Every local caller went away, or the deadline passed while
			// another instance asked the platform.
			res := stalled(f, &result{err: err, shared: true})
			s.publish(key, f, res)
			if !errors.Is(res.err, ErrFlightTimeout) {
				return err
			}
			return s.answerLeader(w, r, inm, res, pol, stale, dropped)
		case res != nil:
			s.publish(key, f, res)
			return s.answerRemote(w, r, inm, res, pol, next, stale, dropped)
		case token != "":
			lease = s.holdLease(st, key, token, f)
			defer lease.finish(&result{err: ErrIncomplete, shared: true}) // a panic: nothing for the others
		}
	}

	s.note(pol.Kind, "miss")
	fw := &fetchWriter{w: w, header: http.Header{}, max: pol.MaxBody}
	fw.onPassthrough = func() {
		s.publish(key, f, &result{shared: false})
		lease.finish(&result{shared: false})
		reason := "too-large"
		if strings.HasPrefix(fw.header.Get("Content-Type"), "text/event-stream") {
			reason = "streaming"
		}
		w.Header().Set(cachestatus.Header, passthroughStatus(reason))
	}
	err, aborted := runNext(next, fw, r.WithContext(f.ctx))
	now := s.clock()
	if fw.passthrough {
		s.publish(key, f, &result{shared: false}) // no-op when already published
		if aborted {
			panic(http.ErrAbortHandler)
		}
		return err
	}
	res := stalled(f, fw.result(err, aborted))
	s.keep(key, res, pol, now)
	s.publish(key, f, res)
	lease.finish(res)
	return s.answerLeader(w, r, inm, res, pol, stale, dropped)
}

// answerLeader answers a flight's leader with the flight's result, or
// with the stale entry when the platform failed and the entry may stand in.
func (s *Store) answerLeader(w http.ResponseWriter, r *http.Request, inm string, res *result, pol Policy, stale *Entry, dropped string) error {
	now := s.clock()
	if stale != nil && staleOnError(res, stale, pol, now) {
		s.note(pol.Kind, "stale")
		return s.writeEntry(w, r, inm, stale, now, staleErrorStatus(res, stale, now), "")
	}
	if r.Context().Err() != nil {
		return r.Context().Err() // the leader is gone; the others were served
	}
	return s.writeResult(w, r, inm, res, res.header, missStatus(res, stale, dropped, false))
}

// runNext calls next and turns reverse_proxy's abort panic (a body cut off
// after the header was written) into a flag, so a flight always ends.
func runNext(next Next, w http.ResponseWriter, r *http.Request) (err error, aborted bool) {
	defer func() {
		if p := recover(); p != nil {
			if p != http.ErrAbortHandler { //nolint:errorlint // a sentinel panic value
				panic(p)
			}
			err, aborted = ErrIncomplete, true
		}
	}()
	return next.ServeHTTP(w, r), false
}

// follow waits for another caller's flight and answers from its result.
func (s *Store) follow(w http.ResponseWriter, r *http.Request, inm, key string, f *flight, pol Policy, next Next, stale *Entry, rejoins int) error {
	stop := context.AfterFunc(r.Context(), func() { s.leave(key, f) })
	defer stop()
	select {
	case <-f.done:
	case <-r.Context().Done():
		// A context closes its Done channel before it runs its after
		// functions, so this caller can get here first: stop then keeps
		// leave from ever running, and the flight would keep a waiter
		// that is gone (its upstream request running on to its deadline
		// after everyone hung up). Leave here instead.
		if stop() {
			s.leave(key, f)
		}
		return r.Context().Err()
	}
	res := f.res
	if !res.shared {
		// The answer streamed to the leader (too large or a stream); ask
		// for ourselves, uncoalesced and unstored.
		return s.passBy(w, r, pol, next, "uncoalesced")
	}
	if res.rejected {
		// The budget turned the leader's session away: that refusal is
		// not this caller's. It asks again, so it waits or is refused on
		// its own account (at once, or after joining one more flight).
		stop()
		return s.fetch(w, r, inm, key, pol, next, stale, "", rejoins+1)
	}
	s.note(pol.Kind, "coalesced")
	now := s.clock()
	if stale != nil && staleOnError(res, stale, pol, now) {
		s.note(pol.Kind, "stale")
		return s.writeEntry(w, r, inm, stale, now, staleErrorStatus(res, stale, now), "")
	}
	return s.writeResult(w, r, inm, res, res.stored, missStatus(res, stale, "", true))
}

// leave drops one waiter; the last one to go ends the upstream request.
func (s *Store) leave(key string, f *flight) {
	s.flightsMu.Lock()
	defer s.flightsMu.Unlock()
	f.waiters--
	if f.waiters <= 0 {
		if s.flights[key] == f {
			delete(s.flights, key)
		}
		if st := f.sharedLead; st != nil {
			// Other instances may wait for this request: ask first.
			f.sharedLead = nil
			go s.cancelUnlessFollowed(key, f, st)
			return
		}
		f.cancel()
	}
}

// publish hands a flight's result to its followers, once.
func (s *Store) publish(key string, f *flight, res *result) {
	s.flightsMu.Lock()
	defer s.flightsMu.Unlock()
	if s.flights[key] == f {
		delete(s.flights, key)
	}
	if f.res == nil {
		f.res = res
		close(f.done)
	}
	if !f.background {
		f.deadline.Stop() // shared: what is left streams to the leader alone
	}
}
