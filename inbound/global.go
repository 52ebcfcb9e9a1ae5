package inbound

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/sharedstore"
)

// This file makes a zone's session and address buckets global when
// several instances share a store (issue 13, point 6): a client that
// spreads its requests over the instances meets the same limits as on one.
// The process and connector layers stay per process (the process layer
// protects this process; a connector's bucket is one endpoint's share of
// it).
//
// One Lua script judges a request's session and address buckets together
// in one round trip and counts it in both or in neither, so a refusal
// takes nothing and there is nothing to give back. The buckets are the
// same GCRA as the local ones (one theoretical arrival time per key, in
// microseconds), kept with a TTL of the time until the bucket is full
// again: a key exists only while it holds information. Both keys of a
// request share a Redis Cluster hash tag, the zone and the client
// address: {<prefix>:in:<zone>:<address key>}:a and ...:s:<session key>.
// (A session is thus counted per address it comes from; the address
// bucket still bounds every address.) A trusted source's session, which
// has no address layer, is tagged by the session.
//
// github.com/go-redis/redis_rate was weighed and left: it judges one key
// per call (two round trips, and a token taken at the session while the
// address refuses must be given back with a second call, whose negative
// cost it drops when the bucket would be full), keeps its keys under its
// own "rate:" prefix outside the store's, and reads only Redis's clock.
//
// Time is Redis's clock (TIME), one clock for every instance, unless the
// Global was made with CallerClock (tests pass their clock's now).
//
// When the store is degraded (or a call fails), the per-key layers fall
// back to local buckets holding limit ÷ Instances (the rate divided, the
// burst divided, at least 1), so the instances together stay within the
// limit; they rejoin by themselves when the store is healthy again. What a
// client used of its local share is not carried over: at the switch back
// it may get up to one burst more than the limit allows.

// Tier says where a request's session and address buckets were judged.
type Tier uint8

const (
	TierLocal  Tier = iota // no shared store: this process's buckets
	TierShared             // the shared store's global buckets
	TierShare              // store degraded: the local share (limit ÷ instances)
)

// String names the tier for metrics.
func (t Tier) String() string {
	switch t {
	case TierShared:
		return "shared"
	case TierShare:
		return "local_share"
	}
	return "local"
}

// Global is one zone's session and address buckets in a shared store.
type Global struct {
	store       *sharedstore.Store
	zone        string
	callerClock bool
	share       *Keyed // the local share while the store is degraded
	instances   int64

	shared, local, errs atomic.Int64
}

// NewGlobal returns zone's global buckets in store, with a local share of
// at most maxKeys keys for when the store is degraded. With callerClock
// the buckets run on the now passed to Allow instead of Redis's clock.
func NewGlobal(store *sharedstore.Store, zone string, maxKeys int, callerClock bool) *Global {
	return &Global{store: store, zone: zone, callerClock: callerClock, share: NewKeyed(maxKeys), instances: int64(max(store.Instances(), 1))}
}

// Store returns the shared store.
func (g *Global) Store() *sharedstore.Store { return g.store }

// Share returns the local share's buckets (for sweeping).
func (g *Global) Share() *Keyed { return g.share }

// GlobalStats counts requests judged in each tier, and calls that failed
// with an answer from Redis (a script error; the request fell back).
type GlobalStats struct {
	Shared int64 `json:"shared"`
	Local  int64 `json:"local_share"`
	Errors int64 `json:"errors"`
}

// Stats returns the counts so far.
func (g *Global) Stats() GlobalStats {
	return GlobalStats{Shared: g.shared.Load(), Local: g.local.Load(), Errors: g.errs.Load()}
}

// bucketScript judges one request of cost 1 against KEYS (one or two
// buckets) at ARGV[1] (microseconds; 0: Redis's clock). ARGV[2] is "1" to
// only look. Then per key: the refill time in microseconds and the burst.
// It returns {allowed, wait1, debt1[, wait2, debt2]} in microseconds: a
// key's wait is 0 if it lets the request pass, else how long until it
// would; its debt is the time until it is full again (after the request,
// if it passes). Only if every key lets it pass, and not looking, is the
// request counted in each, with a TTL of that key's debt.
var bucketScript = redis.NewScript(`
local now = tonumber(ARGV[1])
if now == 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local out = {1}
local nexts = {}
for i = 1, #KEYS do
  local every = tonumber(ARGV[1 + 2 * i])
  local tau = every * tonumber(ARGV[2 + 2 * i])
  local tat = tonumber(redis.call('GET', KEYS[i]) or '0') or 0
  local base = math.max(tat, now)
  if base - now > tau then base = now + tau end
  local nxt = base + every
  local debt = nxt - now
  if debt > tau then
    out[1] = 0
    out[2 * i] = debt - tau
    out[2 * i + 1] = base - now
  else
    out[2 * i] = 0
    out[2 * i + 1] = debt
    nexts[i] = nxt
  end
end
if out[1] == 1 and ARGV[2] ~= '1' then
  for i = 1, #KEYS do
    redis.call('SET', KEYS[i], string.format('%d', nexts[i]), 'PX', string.format('%d', math.ceil((nexts[i] - now) / 1000)))
  end
end
return out`)

// keys returns the Redis keys of the session and address buckets.
func (g *Global) keys(c Client) (session, address string) {
	tag := "in:" + g.zone + ":" + c.Address
	if c.Address == "" {
		tag = "in:" + g.zone + ":" + c.Session
	}
	if c.Session != "" {
		session = g.store.Tagged(tag, "s", c.Session)
	}
	if c.Address != "" {
		address = g.store.Tagged(tag, "a")
	}
	return session, address
}

// judge fills rs[0] (session) and rs[1] (address) for client c at t (ns):
// counting the request in both or neither, or only looking (peek). It
// returns the tier used.
func (g *Global) judge(ctx context.Context, t int64, c Client, lims [2]*Limit, peek bool, rs *[4]result) Tier {
	sk, ak := g.keys(c)
	names := [2]string{sk, ak}
	var keys []string
	var idx [2]int
	args := make([]any, 2, 6)
	args[0], args[1] = int64(0), "0"
	if g.callerClock {
		args[0] = t / 1000
	}
	if peek {
		args[1] = "1"
	}
	for i := range names {
		if names[i] == "" || lims[i].Unlimited() {
			rs[i] = unlimitedResult
			continue
		}
		idx[len(keys)] = i
		keys = append(keys, names[i])
		args = append(args, int64(lims[i].Every/time.Microsecond), lims[i].Burst)
	}
	if len(keys) == 0 {
		return TierShared
	}
	var out []int64
	err := g.store.Do(ctx, func(ctx context.Context, rc redis.UniversalClient) error {
		var err error
		out, err = bucketScript.Run(ctx, rc, keys, args...).Int64Slice()
		return err
	})
	if err == nil && len(out) == 1+2*len(keys) {
		g.shared.Add(1)
		for j, i := range idx[:len(keys)] {
			wait, debt := out[1+2*j]*1000, out[2+2*j]*1000
			rs[i] = result{ok: wait == 0, every: int64(lims[i].Every), burst: lims[i].Burst, wait: wait, debt: debt}
		}
		return TierShared
	}
	if err == nil || !sharedstore.Trouble(err) {
		g.errs.Add(1)
	}
	g.local.Add(1)
	g.judgeShare(t, names, lims, peek, rs)
	return TierShare
}

// judgeShare is judge on the local share of each limit.
func (g *Global) judgeShare(t int64, names [2]string, lims [2]*Limit, peek bool, rs *[4]result) {
	var hs [2]uint64
	var shares [2]Limit
	refused := peek
	for i := range names {
		if names[i] == "" || lims[i].Unlimited() {
			rs[i] = unlimitedResult
			continue
		}
		shares[i] = Limit{Every: lims[i].Every * time.Duration(g.instances), Burst: max(lims[i].Burst/int(g.instances), 1)}
		hs[i] = g.share.Hash(names[i])
		if refused {
			rs[i] = g.share.peek(hs[i], t, &shares[i])
			continue
		}
		rs[i] = g.share.reserve(hs[i], t, &shares[i])
		refused = !rs[i].ok
	}
	if refused && !peek && rs[0].ok && !rs[1].ok {
		g.share.undo(hs[0], t, rs[0]) // no-op when unlimited
	}
}

// String describes g for logs.
func (g *Global) String() string {
	return "zone " + g.zone + " in the shared store (instances " + strconv.FormatInt(g.instances, 10) + ")"
}
