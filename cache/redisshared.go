package cache

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/sharedstore"
)

// RedisShared is the Shared tier over the instances' Redis
// (sharedstore). Every call goes through the store's Do, so it
// has the store's short deadline and returns at once while degraded.
//
// Keys of platform P (prefix bb), with K the hex of a cache key:
//
//	bb:cache:P:gen        purge generation (absent: "0"); set by a purge
//	bb:cache:P:<gen>:e:K  encoded entry; TTL: until its last stale window ends
//	{bb:cache:P:f:K}:l    lease of the instance asking the platform; TTL Lease, renewed
//	{bb:cache:P:f:K}:r    a complete but unstorable answer for the waiting instances; TTL AnswerTTL
//	{bb:cache:P:f:K}:w    how many instances wait for K; TTL 2×Lease, refreshed while waiting
//	bb:ch:cache:P         notices: "d:K" a led fetch ended, "p:<gen>" a purge
//
// No script touches two keys. A flight's three keys share a hash tag for
// the order of their commands (see flightKey); entries need none, so a
// platform's entries and flights spread over a Redis Cluster's nodes. A purge starts a
// new generation: the old generation's entries are never read again and
// end by their TTL, so a purge costs two commands, on a Cluster too. The
// generation key's TTL is renewed by every write of an entry, so it
// outlives every entry of its generation; should it still lapse, the
// generation falls back to "0", whose entries all predate the first purge
// and have expired by then.
type RedisShared struct {
	st       *sharedstore.Store
	platform string
	t        SharedTimings
	answer   time.Duration

	genMu    sync.Mutex
	gen      string
	onPurged func()
}

// RedisSharedOptions tune a RedisShared (zero fields take the defaults).
type RedisSharedOptions struct {
	// Lease is how long a lease lives unless renewed (default 3s; renewed
	// every Lease/3 while the platform request runs).
	Lease time.Duration
	// Poll is how often a waiting instance looks (default 50ms).
	Poll time.Duration
	// AnswerTTL is how long an unstorable answer (a 404, 429, 5xx) stays
	// for the instances waiting for it (default 10s).
	AnswerTTL time.Duration
}

// Defaults of RedisSharedOptions.
const (
	DefaultLease     = 3 * time.Second
	DefaultPoll      = 50 * time.Millisecond
	DefaultAnswerTTL = 10 * time.Second
	// generationTTL outlives every entry: entries' TTLs are capped at
	// maxSharedTTL.
	generationTTL = 400 * 24 * time.Hour
	maxSharedTTL  = 366 * 24 * time.Hour
)

// NewRedisShared returns platform's shared tier over st.
func NewRedisShared(st *sharedstore.Store, platform string, o RedisSharedOptions) *RedisShared {
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.AnswerTTL <= 0 {
		o.AnswerTTL = DefaultAnswerTTL
	}
	return &RedisShared{st: st, platform: platform, t: SharedTimings{Lease: o.Lease, Poll: o.Poll}, answer: o.AnswerTTL, gen: "0"}
}

// Backend returns the store the tier runs on.
func (r *RedisShared) Backend() *sharedstore.Store { return r.st }

func (r *RedisShared) key(parts ...string) string {
	return r.st.Key(append([]string{"cache", r.platform}, parts...)...)
}

func (r *RedisShared) genKey() string { return r.key("gen") }
func (r *RedisShared) entryKey(g, k string) string {
	return r.key(g, "e", hex.EncodeToString([]byte(k)))
}

// A flight's keys (lease, answer, waiters) share one hash tag, so on a
// Cluster they live on one node, where one pipeline's commands run in
// order: Finish writes the answer before it releases the lease, and Poll
// reads the lease before the answer, so a waiter that finds the lease
// gone finds the answer too. Across nodes a pipeline runs per node at
// once and that order is lost (a waiter then took the lease over and
// asked the platform a second time).
func (r *RedisShared) flightKey(k, part string) string {
	return r.st.Tagged("cache:"+r.platform+":f:"+hex.EncodeToString([]byte(k)), part)
}
func (r *RedisShared) leaseKey(k string) string  { return r.flightKey(k, "l") }
func (r *RedisShared) answerKey(k string) string { return r.flightKey(k, "r") }
func (r *RedisShared) followKey(k string) string { return r.flightKey(k, "w") }
func (r *RedisShared) channel() string           { return r.st.Channel("cache", r.platform) }

func (r *RedisShared) generation() string {
	r.genMu.Lock()
	defer r.genMu.Unlock()
	return r.gen
}

// seeGeneration notes the generation Redis holds; a new one means another
// instance purged, and this one clears its local tiers.
func (r *RedisShared) seeGeneration(g string) (changed bool) {
	if g == "" {
		g = "0"
	}
	r.genMu.Lock()
	changed = g != r.gen
	r.gen = g
	f := r.onPurged
	r.genMu.Unlock()
	if changed && f != nil {
		f()
	}
	return changed
}

// Get reads the generation and the entry in one round trip; when the
// generation moved (a purge this instance missed), it clears the local
// tiers and reads again under the new one.
func (r *RedisShared) Get(ctx context.Context, key string) ([]byte, error) {
	for i := 0; i < 2; i++ {
		g := r.generation()
		var genCmd, eCmd *redis.StringCmd
		err := r.st.Do(ctx, func(ctx context.Context, c redis.UniversalClient) error {
			p := c.Pipeline()
			genCmd = p.Get(ctx, r.genKey())
			eCmd = p.Get(ctx, r.entryKey(g, key))
			_, err := p.Exec(ctx)
			return nilIsAnswer(err)
		})
		if err != nil {
			return nil, err
		}
		if r.seeGeneration(genCmd.Val()) {
			continue
		}
		b, err := eCmd.Bytes()
		if errors.Is(err, redis.Nil) {
			return nil, nil
		}
		return b, err
	}
	return nil, nil
}

// nilIsAnswer: a pipeline reports a missing key (redis.Nil) as its error;
// that is an answer, not a failure.
func nilIsAnswer(err error) error {
	if errors.Is(err, redis.Nil) {
		return nil
	}
	return err
}

// Put stores the entry under the current generation and renews the
// generation's TTL (see the type's comment).
func (r *RedisShared) Put(ctx context.Context, key string, b []byte, ttl time.Duration) error {
	ttl = min(ttl, maxSharedTTL)
	g := r.generation()
	return r.st.Do(ctx, func(ctx context.Context, c redis.UniversalClient) error {
		p := c.Pipeline()
		p.Set(ctx, r.entryKey(g, key), b, ttl)
		p.PExpire(ctx, r.genKey(), generationTTL)
		_, err := p.Exec(ctx)
		return err
	})
}

// Del removes the entry under the current generation.
func (r *RedisShared) Del(ctx context.Context, key string) error {
	g := r.generation()
	return r.st.Do(ctx, func(ctx context.Context, c redis.UniversalClient) error {
		return c.Unlink(ctx, r.entryKey(g, key)).Err()
	})
}

// Purge starts a new generation and tells the other instances.
func (r *RedisShared) Purge(ctx context.Context) error {
	g := randomToken()
	err := r.st.Do(ctx, func(ctx context.Context, c redis.UniversalClient) error {
		p := c.Pipeline()
		p.Set(ctx, r.genKey(), g, generationTTL)
		p.Publish(ctx, r.channel(), "p:"+g)
		_, err := p.Exec(ctx)
		return err
	})
	if err == nil {
		r.genMu.Lock()
		r.gen = g // this instance purged its local tiers itself
		r.genMu.Unlock()
	}
	return err
}

func randomToken() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Lead takes the lease when free, and in the same round trip reads the
// entry stored under key (a fetch may have ended between this instance's
// miss and now; the caller judges whether it serves). With the lease
// taken and no entry seen, it reads the entry once more (see below).
func (r *RedisShared) Lead(ctx context.Context, key string) (string, []byte, error) {
	token := r.st.Instance() + ":" + randomToken()
	g := r.generation()
	var setCmd *redis.BoolCmd
	var eCmd *redis.StringCmd
	err := r.st.Do(ctx, func(ctx context.Context, c redis.UniversalClient) error {
		p := c.Pipeline()
		setCmd = p.SetNX(ctx, r.leaseKey(key), token, r.t.Lease)
		eCmd = p.Get(ctx, r.entryKey(g, key))
		_, err := p.Exec(ctx)
		return nilIsAnswer(err)
	})
	if err != nil {
		return "", nil, err
	}
	b, _ := eCmd.Bytes() // nil when absent
	if !setCmd.Val() {
		return "", b, nil
	}
	if b == nil {
		// Read the entry once more, now that the lease is ours. On a
		// Cluster the entry and the lease live on different nodes and a
		// pipeline runs per node at once, so the read above may have run
		// before a previous leader stored the entry while the SETNX ran
		// after it released the lease; this read comes after both. One
		// round trip more, only for an instance about to ask the platform.
		// Should it fail, this instance leads as it would have: the lease
		// is ours, and Finish meets (and reports) the same trouble.
		_ = r.st.Do(ctx, func(ctx context.Context, c redis.UniversalClient) error {
			v, err := c.Get(ctx, r.entryKey(g, key)).Bytes()
			b = v
			return nilIsAnswer(err)
		})
	}
	return token, b, nil
}

// The lease is changed only by its holder: compare, then act.
var (
	renewScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end return 0`)
	// release deletes the lease if it is still ours; the answer (if any)
	// and the notice go with it.
	releaseScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)
)

// Renew extends the lease while it is this instance's.
func (r *RedisShared) Renew(ctx context.Context, key, token string) (bool, error) {
	var ok bool
	err := r.st.Do(ctx, func(ctx context.Context, c redis.UniversalClient) error {
		n, err := renewScript.Run(ctx, c, []string{r.leaseKey(key)}, token, r.t.Lease.Milliseconds()).Int64()
		ok = n == 1
		return err
	})
	return ok, err
}

// Finish keeps the answer for the waiting instances (before the lease
// goes, so a waiter that sees no lease finds the answer), releases the
// lease and sends the notice.
func (r *RedisShared) Finish(ctx context.Context, key, token string, answer []byte) error {
	return r.st.Do(ctx, func(ctx context.Context, c redis.UniversalClient) error {
		p := c.Pipeline()
		if answer != nil {
			p.Set(ctx, r.answerKey(key), answer, r.answer)
		}
		// Eval, not Run: in a pipeline Run cannot fall back from EVALSHA.
		releaseScript.Eval(ctx, p, []string{r.leaseKey(key)}, token)
		p.Publish(ctx, r.channel(), "d:"+hex.EncodeToString([]byte(key)))
		_, err := p.Exec(ctx)
		return nilIsAnswer(err)
	})
}

// Poll reads the lease first, then the entry and the answer: a leader
// writes its answer before it releases the lease, so a waiter that finds
// no lease and no answer knows there is none to wait for. It also keeps
// this instance's place among the waiters alive.
func (r *RedisShared) Poll(ctx context.Context, key string) (entry, answer []byte, leased bool, err error) {
	g := r.generation()
	var lCmd *redis.IntCmd
	var eCmd, aCmd *redis.StringCmd
	err = r.st.Do(ctx, func(ctx context.Context, c redis.UniversalClient) error {
		p := c.Pipeline()
		lCmd = p.Exists(ctx, r.leaseKey(key))
		eCmd = p.Get(ctx, r.entryKey(g, key))
		aCmd = p.Get(ctx, r.answerKey(key))
		p.PExpire(ctx, r.followKey(key), 2*r.t.Lease)
		_, err := p.Exec(ctx)
		return nilIsAnswer(err)
	})
	if err != nil {
		return nil, nil, false, err
	}
	entry, _ = eCmd.Bytes()
	answer, _ = aCmd.Bytes()
	return entry, answer, lCmd.Val() == 1, nil
}

// Follow counts this instance in or out of key's waiters; the count has
// a TTL (a crashed waiter is forgotten).
func (r *RedisShared) Follow(ctx context.Context, key string, delta int64) error {
	return r.st.Do(ctx, func(ctx context.Context, c redis.UniversalClient) error {
		p := c.Pipeline()
		p.IncrBy(ctx, r.followKey(key), delta)
		p.PExpire(ctx, r.followKey(key), 2*r.t.Lease)
		_, err := p.Exec(ctx)
		return err
	})
}

// Followers returns how many instances wait for key.
func (r *RedisShared) Followers(ctx context.Context, key string) (int64, error) {
	var n int64
	err := r.st.Do(ctx, func(ctx context.Context, c redis.UniversalClient) error {
		v, err := c.Get(ctx, r.followKey(key)).Int64()
		if errors.Is(err, redis.Nil) {
			return nil
		}
		n = v
		return err
	})
	return n, err
}

// Watch subscribes to the platform's notices. On rejoining after Redis
// trouble it reads the generation, so a purge missed meanwhile clears the
// local tiers.
func (r *RedisShared) Watch(done func(key string), purged func()) (stop func()) {
	r.genMu.Lock()
	r.onPurged = purged
	r.genMu.Unlock()
	unsub := r.st.Subscribe(r.channel(), func(payload string) {
		kind, arg, _ := strings.Cut(payload, ":")
		switch kind {
		case "d":
			if k, err := hex.DecodeString(arg); err == nil {
				done(string(k))
			}
		case "p":
			r.seeGeneration(arg)
		}
	})
	read := func() (string, bool) {
		var g string
		err := r.st.Do(context.Background(), func(ctx context.Context, c redis.UniversalClient) error {
			v, err := c.Get(ctx, r.genKey()).Result()
			g = v
			return err
		})
		if g == "" {
			g = "0"
		}
		return g, err == nil || errors.Is(err, redis.Nil)
	}
	// At start the generation is adopted as it is: the local tiers hold
	// what this instance stored, and a purge is an operator's act on the
	// running instances. On rejoining after trouble, a generation that
	// moved meanwhile is a purge this instance missed.
	if g, ok := read(); ok {
		r.genMu.Lock()
		r.gen = g
		r.genMu.Unlock()
	}
	unrejoin := r.st.OnRejoin(func() {
		if g, ok := read(); ok {
			r.seeGeneration(g)
		}
	})
	return func() {
		unsub()
		unrejoin()
		r.genMu.Lock()
		r.onPurged = nil
		r.genMu.Unlock()
	}
}

// Healthy is the store's health.
func (r *RedisShared) Healthy() bool { return r.st.Healthy() }

// Timings returns the lease and poll periods.
func (r *RedisShared) Timings() SharedTimings { return r.t }

var _ Shared = (*RedisShared)(nil)
