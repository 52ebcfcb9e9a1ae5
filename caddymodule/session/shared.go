package session

import (
	"context"
	"errors"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/sharedstore"
)

// This file makes the registry's sessions valid on every instance that
// shares a store (issue 13, point 6). The local registry stays the first
// place to look, so a session this instance already knows costs no Redis
// call on the hot path; Redis holds one key per session:
//
//	<prefix>:sess:<id> = "<ttl ms> <issuer>"   PX <ttl> (the connector's idle time)
//
// An id unknown here is looked up there once, then known locally. A known
// id is refreshed there at most once per SharedTouchEvery, and that same
// call tells whether another instance ended it. Ending a session (the
// client's DELETE) deletes the key and publishes a notice, so the others
// forget it at once (and within SharedTouchEvery if the notice is lost).
//
// Redis trouble: a session this instance issued or already knows stays
// valid from the local registry; one issued while Redis is unreachable is
// written when it answers again. An id unknown here while Redis cannot be
// asked is Unverified: the connector accepts it (so no honest request of a
// session issued elsewhere is lost), but for every other purpose (Has,
// IssuedBy, the inbound limits, the fair queue) it is no session at all,
// and its requests count as their address alone. An invented id thus buys
// what a request without a session gets, never more.

// Verdict is what the registry knows of an id.
type Verdict uint8

const (
	// Unknown: no connector issued the id (or not the one asked about),
	// or it ended.
	Unknown Verdict = iota
	// Known: the id is a live session (of the connector asked about).
	Known
	// Unverified: the id is not known here and the shared store cannot be
	// asked (degraded).
	Unverified
)

// IDs is what a connector's session-id manager needs of the registry.
type IDs interface {
	// Issue records a new id of the named connector, valid for ttl
	// without use.
	Issue(id, issuer string, ttl time.Duration)
	// Check tells whether the named connector issued id.
	Check(id, issuer string) Verdict
	// End ends the session everywhere (the client's DELETE).
	End(id, issuer string) bool
	// Remove forgets it here only (idle sweep, shutdown).
	Remove(id, issuer string) bool
}

var _ IDs = (*Registry)(nil)

// Tuning of the shared side. A session in use is refreshed in Redis (and
// checked for an end elsewhere) at most once per SharedTouchEvery, so its
// idle expiry is exact to that and a DELETE on another instance whose
// notice was lost takes at most that long to reach this one. Lookups that
// found nothing are remembered for missTTL (at most missCap of them), so
// the three lookups one request makes (inbound limits, fair queue,
// connector) cost one Redis call. Writes that failed while Redis was
// unreachable (at most pendingCap of each kind) are made on rejoin.
const (
	SharedTouchEvery = 10 * time.Second
	missTTL          = 2 * time.Second
	missCap          = 4096
	pendingCap       = 10_000
	maxSharedID      = 128 // longer ids are never ours: not looked up
)

// shared is the registry's Redis side for one store.
type shared struct {
	store      *sharedstore.Store
	channel    string
	touchEvery time.Duration
	unsub      func()
	unrejoin   func()

	mu            sync.Mutex
	misses        map[string]time.Time
	pendingIssued []string
	pendingEnds   []string

	fetched, found, missed, unverified, gone, ended, notices, errs atomic.Int64
}

func (sh *shared) key(id string) string { return sh.store.Key("sess", id) }

func value(ttl time.Duration, issuer string) string {
	return strconv.FormatInt(ttl.Milliseconds(), 10) + " " + issuer
}

func parseValue(v string) (time.Duration, string, bool) {
	ms, issuer, ok := strings.Cut(v, " ")
	n, err := strconv.ParseInt(ms, 10, 64)
	if !ok || err != nil || n <= 0 {
		return 0, "", false
	}
	return time.Duration(n) * time.Millisecond, issuer, true
}

// fetchScript returns a session's value and refreshes its TTL, in one
// call (the TTL is in the value, so the reader needs not know it).
var fetchScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v then return false end
local ttl = tonumber(string.match(v, '^(%d+) '))
if ttl and ttl > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
return v`)

// endScript deletes a session's key if ARGV[1] issued it.
var endScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local sp = string.find(v, ' ', 1, true)
if sp and string.sub(v, sp + 1) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0`)

// Share makes the registry's sessions valid on every instance that shares
// store (nil: this instance alone, as without it). The besluitbron app
// calls it when a config starts; sharing the same store again changes
// nothing.
func (g *Registry) Share(store *sharedstore.Store) {
	g.shareMu.Lock()
	defer g.shareMu.Unlock()
	old := g.sh.Load()
	if old != nil && old.store == store {
		return
	}
	if store == nil {
		g.sh.Store(nil)
	} else {
		// Ids known before (issued alone, or into another store) are
		// written to this store on their next use, not taken for ended.
		g.mu.Lock()
		for _, e := range g.ids {
			e.pending, e.synced = true, time.Time{}
		}
		g.mu.Unlock()
		sh := &shared{store: store, channel: store.Channel("sess", "end"), touchEvery: SharedTouchEvery, misses: map[string]time.Time{}}
		sh.unsub = store.Subscribe(sh.channel, func(id string) {
			sh.notices.Add(1)
			g.forget(id)
		})
		sh.unrejoin = store.OnRejoin(func() { g.flush(sh) })
		g.sh.Store(sh)
	}
	if old != nil {
		old.unsub()
		old.unrejoin()
	}
}

// Issue records id as issued by the named connector, valid for ttl
// without use (0: the registry's idle time). With a shared store it is
// written there before the id is handed out, so every instance knows it
// by the time the client can name it; if Redis cannot take it now, it is
// written when Redis answers again, and it is valid here meanwhile.
func (g *Registry) Issue(id, issuer string, ttl time.Duration) { g.IssueTo(id, issuer, "", ttl) }

// SetTrusted names the trusted sources (the besluitbron app's
// trusted_sources): their sessions count against no address's share.
func (g *Registry) SetTrusted(prefixes []netip.Prefix) { g.trusted.Store(&prefixes) }

// IssueTo is Issue for a session issued to a client at addr (Caddy's
// client IP), which counts against that address's share of the registry
// (AddrShareDivisor) and, for IPv6, its site's (SiteShareDivisor): past
// either, the address's (or the site's) own newest session is forgotten,
// and with a shared store ended everywhere, so a flood from one address
// or one site does not pile up there either. An empty addr, or one of the
// trusted sources (SetTrusted), counts against no address.
func (g *Registry) IssueTo(id, issuer, addr string, ttl time.Duration) {
	if ttl <= 0 {
		ttl = g.idle
	}
	var keys [levels]string
	if t := g.trusted.Load(); t == nil || !Trusted(addr, *t) {
		keys = groupKeys(addr) // parsed outside the registry's one lock
	}
	sh := g.sh.Load()
	g.mu.Lock()
	now := g.now()
	e, gave, gaveIssuer := g.addLocked(id, issuer, keys, now)
	if e != nil {
		e.ttl, e.synced = ttl, now
	}
	g.mu.Unlock()
	if sh == nil || e == nil {
		return
	}
	if gave != "" {
		g.End(gave, gaveIssuer)
	}
	sh.unmiss(id)
	err := sh.store.Do(context.Background(), func(ctx context.Context, c redis.UniversalClient) error {
		return c.Set(ctx, sh.key(id), value(ttl, issuer), ttl).Err()
	})
	if err != nil {
		g.mu.Lock()
		if cur, ok := g.ids[id]; ok && cur == e {
			e.pending = true
		}
		g.mu.Unlock()
		sh.addPending(&sh.pendingIssued, id)
	}
}

// Check tells whether the named connector issued id: Known, Unknown, or
// (with a shared store that cannot be asked, for an id unknown here)
// Unverified. The connector accepts Unverified ids; see the top of this
// file.
func (g *Registry) Check(id, issuer string) Verdict {
	if sh := g.sh.Load(); sh != nil {
		return g.check(sh, id, issuer, true)
	}
	if g.IssuedBy(id, issuer) {
		return Known
	}
	return Unknown
}

// check is Has (byIssuer false) and IssuedBy with a shared store.
func (g *Registry) check(sh *shared, id, issuer string, byIssuer bool) Verdict {
	g.mu.Lock()
	if e, ok := g.ids[id]; ok && g.liveLocked(e) {
		if byIssuer && e.issuer != issuer {
			g.mu.Unlock()
			return Unknown
		}
		now := g.now()
		if now.Sub(e.synced) < sh.touchEvery {
			g.mu.Unlock()
			return Known
		}
		e.synced = now // one refresh per interval, however many lookups
		ttl, pending, iss := e.ttl, e.pending, e.issuer
		g.mu.Unlock()
		return g.refresh(sh, id, iss, ttl, pending)
	}
	now := g.now()
	g.mu.Unlock()
	return g.fetch(sh, id, issuer, byIssuer, now)
}

// refresh renews a known id's TTL in Redis (or writes it, if it is still
// pending) and learns whether another instance ended it.
func (g *Registry) refresh(sh *shared, id, issuer string, ttl time.Duration, pending bool) Verdict {
	if ttl <= 0 {
		ttl = g.idle
	}
	alive := true
	err := sh.store.Do(context.Background(), func(ctx context.Context, c redis.UniversalClient) error {
		if pending {
			return c.SetNX(ctx, sh.key(id), value(ttl, issuer), ttl).Err()
		}
		ok, err := c.PExpire(ctx, sh.key(id), ttl).Result()
		alive = ok
		return err
	})
	if err != nil {
		if !sharedstore.Trouble(err) {
			sh.errs.Add(1)
		}
		return Known // known here: valid from the local registry
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	e, ok := g.ids[id]
	if !ok || e.issuer != issuer {
		return Unknown // forgotten meanwhile (ended)
	}
	if pending {
		e.pending = false
	}
	if !alive {
		// Ended on another instance (its notice did not reach us) or
		// expired there: idle on every instance for its TTL.
		g.removeLocked(e)
		sh.gone.Add(1)
		return Unknown
	}
	return Known
}

// fetch looks up an id this instance does not know.
func (g *Registry) fetch(sh *shared, id, issuer string, byIssuer bool, now time.Time) Verdict {
	if id == "" || len(id) > maxSharedID || sh.isMiss(id, now) {
		return Unknown
	}
	sh.fetched.Add(1)
	var v string
	err := sh.store.Do(context.Background(), func(ctx context.Context, c redis.UniversalClient) error {
		var err error
		v, err = fetchScript.Run(ctx, c, []string{sh.key(id)}).Text()
		return err
	})
	switch {
	case errors.Is(err, redis.Nil):
		sh.missed.Add(1)
		sh.addMiss(id, now)
		return Unknown
	case err != nil && sharedstore.Trouble(err):
		sh.unverified.Add(1)
		return Unverified
	case err != nil:
		sh.errs.Add(1)
		return Unknown
	}
	ttl, iss, ok := parseValue(v)
	if !ok {
		sh.errs.Add(1)
		return Unknown
	}
	sh.found.Add(1)
	g.mu.Lock()
	if e, _, _ := g.addLocked(id, iss, [levels]string{}, g.now()); e != nil {
		e.ttl, e.synced = ttl, now
	}
	g.mu.Unlock()
	if byIssuer && iss != issuer {
		return Unknown
	}
	return Known
}

// End ends the session everywhere, if the named connector issued it: it is
// forgotten here, deleted from the shared store, and the other instances
// are told to forget it. It reports whether there was such a session.
// Without a shared store it is Remove.
func (g *Registry) End(id, issuer string) bool {
	removed := g.Remove(id, issuer)
	sh := g.sh.Load()
	if sh == nil {
		return removed
	}
	sh.ended.Add(1)
	var deleted bool
	err := sh.store.Do(context.Background(), func(ctx context.Context, c redis.UniversalClient) error {
		n, err := endScript.Run(ctx, c, []string{sh.key(id)}, issuer).Int()
		deleted = n == 1
		return err
	})
	if err != nil {
		if removed {
			sh.addPending(&sh.pendingEnds, issuer+" "+id)
		}
		return removed
	}
	if removed || deleted {
		_ = sh.store.Publish(context.Background(), sh.channel, id)
	}
	return removed || deleted
}

// forget drops id here, whoever issued it (another instance ended it).
func (g *Registry) forget(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if e, ok := g.ids[id]; ok {
		g.removeLocked(e)
	}
}

// flush makes the writes that failed while Redis was unreachable: ids
// issued then are written (unless ended since), sessions ended then are
// deleted. It stops at the first failure and keeps the rest.
func (g *Registry) flush(sh *shared) {
	ids := sh.takePending(&sh.pendingIssued)
	for i, id := range ids {
		g.mu.Lock()
		e, ok := g.ids[id]
		if !ok || !e.pending {
			g.mu.Unlock()
			continue
		}
		ttl, issuer := e.ttl, e.issuer
		g.mu.Unlock()
		if g.refresh(sh, id, issuer, ttl, true) == Known && !g.stillPending(id) {
			continue
		}
		for _, rest := range ids[i:] {
			sh.addPending(&sh.pendingIssued, rest)
		}
		break
	}
	ends := sh.takePending(&sh.pendingEnds)
	for i, v := range ends {
		issuer, id, _ := strings.Cut(v, " ")
		err := sh.store.Do(context.Background(), func(ctx context.Context, c redis.UniversalClient) error {
			return endScript.Run(ctx, c, []string{sh.key(id)}, issuer).Err()
		})
		if err != nil {
			for _, rest := range ends[i:] {
				sh.addPending(&sh.pendingEnds, rest)
			}
			break
		}
		_ = sh.store.Publish(context.Background(), sh.channel, id)
	}
}

func (g *Registry) stillPending(id string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	e, ok := g.ids[id]
	return ok && e.pending
}

func (sh *shared) isMiss(id string, now time.Time) bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	at, ok := sh.misses[id]
	if ok && now.Sub(at) >= missTTL {
		delete(sh.misses, id)
		return false
	}
	return ok
}

func (sh *shared) addMiss(id string, now time.Time) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if len(sh.misses) >= missCap {
		clear(sh.misses) // a flood of made-up ids: start over (O(1) amortised)
	}
	sh.misses[id] = now
}

func (sh *shared) unmiss(id string) {
	sh.mu.Lock()
	delete(sh.misses, id)
	sh.mu.Unlock()
}

// addPending queues a write for the rejoin; past pendingCap the oldest
// is dropped (an issued id then lives only here; an end only here and by
// the key's TTL).
func (sh *shared) addPending(list *[]string, v string) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if len(*list) >= pendingCap {
		*list = (*list)[1:]
	}
	*list = append(*list, v)
}

func (sh *shared) takePending(list *[]string) []string {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	out := *list
	*list = nil
	return out
}

// SharedStatus is the shared side's state for metrics and the admin
// status; Mode is "local" without a shared store.
type SharedStatus struct {
	Mode string `json:"mode"` // local, shared or degraded
	// Fetched counts lookups of ids not known here; Found, Missed and
	// Unverified how they ended (Unverified: Redis could not be asked).
	Fetched    int64 `json:"fetched"`
	Found      int64 `json:"found"`
	Missed     int64 `json:"missed"`
	Unverified int64 `json:"unverified"`
	// Gone counts known ids Redis no longer had on refresh (ended
	// elsewhere or expired); Notices the end notices received; Ended the
	// sessions ended here.
	Gone    int64 `json:"gone"`
	Notices int64 `json:"notices"`
	Ended   int64 `json:"ended"`
	// Pending is the writes waiting for Redis to answer again.
	Pending int   `json:"pending"`
	Errors  int64 `json:"errors"`
}

// SharedStatus returns the shared side's state.
func (g *Registry) SharedStatus() SharedStatus {
	sh := g.sh.Load()
	if sh == nil {
		return SharedStatus{Mode: "local"}
	}
	st := SharedStatus{
		Mode:    "shared",
		Fetched: sh.fetched.Load(), Found: sh.found.Load(), Missed: sh.missed.Load(), Unverified: sh.unverified.Load(),
		Gone: sh.gone.Load(), Notices: sh.notices.Load(), Ended: sh.ended.Load(), Errors: sh.errs.Load(),
	}
	if !sh.store.Healthy() {
		st.Mode = "degraded"
	}
	sh.mu.Lock()
	st.Pending = len(sh.pendingIssued) + len(sh.pendingEnds)
	sh.mu.Unlock()
	return st
}
