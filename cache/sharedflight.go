package cache

import (
	"context"
	"net/http"
	"time"
)

// This file coalesces misses across instances. Within one instance the
// callers of a key share a flight (coalesce.go); the flight's leader then
// asks the shared tier who goes to the platform: the instance that takes
// the key's lease does (renewing it while its request runs), the others
// wait for its answer, woken by a notice and polling, and take the lease
// over when it lapses (a crashed instance blocks nobody for longer than
// one lease). The answer comes back as the stored entry, or, for a
// complete answer that may not be stored (a 404 without negative TTL, a
// 429 or 5xx of the platform), as a short-lived answer key. A refusal by
// the budget, an error and a cut-off body are not shared: the waiting
// instances then take the lease in turn and ask on their own account.

// awaitShared is run by a flight's leader before it asks the platform. It
// returns the lease token when this instance is to ask, another
// instance's answer when one came, or neither when the shared tier is in
// trouble (then the instance asks as if it ran alone). err is ctx's: every
// local caller of the flight went away.
func (s *Store) awaitShared(ctx context.Context, st *sharedState, key string) (token string, res *result, err error) {
	tm := st.tier.Timings()
	var wake chan struct{}
	followed := false
	defer func() {
		if followed {
			st.failed(st.tier.Follow(context.WithoutCancel(ctx), key, -1))
		}
	}()
	for {
		token, b, err := st.tier.Lead(ctx, key)
		if err != nil {
			st.failed(err)
			return "", nil, nil
		}
		if res := s.sharedAnswerFromEntry(ctx, st, key, b); res != nil {
			if token != "" {
				st.failed(st.tier.Finish(context.WithoutCancel(ctx), key, token, nil))
			}
			return "", res, nil
		}
		if token != "" {
			st.leads.Add(1)
			if followed {
				st.takeovers.Add(1)
			}
			return token, nil, nil
		}
		// Another instance asks the platform: wait for its answer.
		if !followed {
			if err := st.tier.Follow(ctx, key, 1); err != nil {
				st.failed(err)
				return "", nil, nil
			}
			followed = true
			var stop func()
			wake, stop = st.notices(key)
			defer stop()
		}
		for leased := true; leased; {
			t := time.NewTimer(tm.Poll)
			select {
			case <-wake:
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return "", nil, ctx.Err()
			}
			t.Stop()
			entry, answer, l, err := st.tier.Poll(ctx, key)
			if err != nil {
				st.failed(err)
				return "", nil, nil
			}
			if res := s.sharedAnswerFromEntry(ctx, st, key, entry); res != nil {
				return "", res, nil
			}
			if res := decodeAnswer(answer); res != nil {
				return "", res, nil
			}
			leased = l
		}
		// The lease is free and no answer came (the leader crashed, or
		// its answer is not for sharing): try to take it over.
	}
}

// sharedAnswerFromEntry turns an entry found in the shared tier during a
// flight into the flight's answer, when it is fresh and of this version
// (a stale one is what the flight is replacing). It joins the memory tier.
func (s *Store) sharedAnswerFromEntry(ctx context.Context, st *sharedState, key string, b []byte) *result {
	if b == nil {
		return nil
	}
	now := s.clock()
	e, _ := s.checkShared(ctx, st, key, b, now)
	if e == nil || !now.Before(e.Expires) {
		return nil
	}
	_ = s.mem.Set(key, b)
	return &result{shared: true, status: e.Status, header: e.Header, stored: e.Header, body: e.Body, storeOK: true,
		ttl: ttlSeconds(e.Expires.Sub(now))}
}

// Answers kept for waiting instances: "P" (the answer streamed through:
// ask for yourselves) or "A" and an encoded entry whose Kind field holds
// why it was not stored and whose header keeps Retry-After.
const (
	answerPassthrough = 'P'
	answerComplete    = 'A'
)

// encodeAnswer is what the waiting instances get of a flight's result;
// nil for a result that is not theirs (an error, the budget's refusal, a
// cut-off body) or that they find as the stored entry.
func encodeAnswer(res *result, version string, now time.Time) []byte {
	switch {
	case !res.shared:
		return []byte{answerPassthrough}
	case res.err != nil, res.storeOK:
		return nil
	}
	h := res.stored.Clone()
	if h == nil {
		h = http.Header{}
	}
	if res.retryAfter != "" {
		h.Set("Retry-After", res.retryAfter)
	}
	e := &Entry{Version: version, Kind: res.detail, StoredAt: now, Expires: now, KeepUntil: now, Status: res.status, Header: h, Body: res.body}
	if !e.fits() {
		return nil
	}
	return append([]byte{answerComplete}, e.encode()...)
}

// decodeAnswer reads an answer key; nil when there is none or it is
// damaged (the waiter then goes on waiting or takes over).
func decodeAnswer(b []byte) *result {
	if len(b) == 0 {
		return nil
	}
	if b[0] == answerPassthrough {
		return &result{shared: false}
	}
	if b[0] != answerComplete {
		return nil
	}
	e, err := decodeEntry(b[1:], true)
	if err != nil {
		return nil
	}
	retry := e.Header.Get("Retry-After")
	e.Header.Del("Retry-After")
	return &result{shared: true, status: e.Status, header: e.Header, stored: e.Header, body: e.Body, detail: e.Kind, retryAfter: retry}
}

// sharedLease is a lease this instance holds while it asks the platform.
type sharedLease struct {
	s     *Store
	st    *sharedState
	key   string
	token string
	stop  context.CancelFunc
	done  bool
}

// holdLease marks f as led across instances (so its callers hanging up
// does not end a request other instances wait for) and renews the lease
// until finish.
func (s *Store) holdLease(st *sharedState, key, token string, f *flight) *sharedLease {
	s.flightsMu.Lock()
	f.sharedLead = st
	s.flightsMu.Unlock()
	ctx, stop := context.WithCancel(context.Background())
	l := &sharedLease{s: s, st: st, key: key, token: token, stop: stop}
	every := st.tier.Timings().Lease / 3
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				ok, err := st.tier.Renew(ctx, key, token)
				if err != nil && ctx.Err() == nil {
					st.failed(err)
				}
				if err == nil && !ok {
					return // lapsed and taken: the other holder answers too
				}
			}
		}
	}()
	return l
}

// finish hands the result to the waiting instances and gives the lease
// back (once; nil-safe).
func (l *sharedLease) finish(res *result) {
	if l == nil || l.done {
		return
	}
	l.done = true
	l.stop()
	answer := encodeAnswer(res, l.s.Version(), l.s.clock())
	l.st.failed(l.st.tier.Finish(context.Background(), l.key, l.token, answer))
}

// cancelUnlessFollowed ends a flight's platform request after its last
// local caller went away, unless other instances wait for it: then it
// runs on and its answer is stored and shared.
func (s *Store) cancelUnlessFollowed(key string, f *flight, st *sharedState) {
	n, err := st.tier.Followers(context.Background(), key)
	if err == nil && n > 0 {
		st.keptForRemote.Add(1)
		return
	}
	st.failed(err)
	f.cancel()
}

// answerRemote answers the flight's leader with another instance's
// answer, as a caller that waited for a flight is answered.
func (s *Store) answerRemote(w http.ResponseWriter, r *http.Request, inm string, res *result, pol Policy, next Next, stale *Entry, dropped string) error {
	if !res.shared {
		return s.passBy(w, r, pol, next, "uncoalesced")
	}
	if st := s.shared.Load(); st != nil {
		st.coalesced.Add(1)
	}
	s.note(pol.Kind, "coalesced")
	now := s.clock()
	if stale != nil && staleOnError(res, stale, pol, now) {
		s.note(pol.Kind, "stale")
		return s.writeEntry(w, r, inm, stale, now, staleErrorStatus(res, stale, now), "")
	}
	if err := r.Context().Err(); err != nil {
		return err
	}
	return s.writeResult(w, r, inm, res, res.stored, missStatus(res, stale, dropped, true))
}
