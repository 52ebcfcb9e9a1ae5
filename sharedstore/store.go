// Package sharedstore is the Redis connection several BesluitBron
// instances share (docs/scaling.md: one cache tier, one budget per platform,
// sessions valid on every instance). It knows nothing of Caddy: the
// besluitbron app opens one per Redis URL and hands it to the handlers.
//
// Every call to Redis goes through Do, which bounds it with a short
// deadline (Timeout) and watches for trouble: a call that fails for any
// reason but an answer from Redis (a timeout, a refused or reset
// connection) puts the store in degraded mode. While degraded, Healthy
// reports false at once, so callers use their local fallback without
// waiting for another deadline; a probe pings Redis every ProbeEvery and,
// on the first answer, the store is up again and the OnRejoin hooks run
// (a budget charges what it spent locally, a cache forgets what it may
// have missed). Callers decide what a fallback is; the store only tells
// them when to use it.
//
// Keys: every key starts with Prefix. Keys that must change atomically
// together (one platform's budget, say) share a Redis Cluster hash tag:
// Tagged("p", "tat") is "{bb:p}:tat", so a Lua script may touch all of
// them on a Cluster too.
package sharedstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// Defaults of Options' zero fields.
const (
	DefaultPrefix     = "bb"
	DefaultTimeout    = 150 * time.Millisecond
	DefaultProbeEvery = 500 * time.Millisecond
)

// Options configure a Store.
type Options struct {
	// URL is the Redis address: redis://[user:password@]host:port/db,
	// rediss:// for TLS, or redis+cluster://host:port?addr=host2:port for a
	// Redis Cluster (several addresses).
	URL string
	// Prefix starts every key (default "bb"); tests use their own.
	Prefix string
	// Timeout bounds every Redis call (default 150ms).
	Timeout time.Duration
	// ProbeEvery is how often a degraded store pings Redis (default 500ms).
	ProbeEvery time.Duration
	// Instances is the number of instances an operator runs on this Redis
	// (default 1). When Redis is down each instance keeps 1/Instances of
	// a shared limit, so together they stay within it.
	Instances int
	// Logger receives mode changes (nop when nil).
	Logger *zap.Logger
}

// Store is one Redis connection with its health.
type Store struct {
	client    redis.UniversalClient
	prefix    string
	timeout   time.Duration
	probe     time.Duration
	instances int
	instance  string
	logger    *zap.Logger
	url       string // redacted

	degraded     atomic.Bool
	mu           sync.Mutex
	since        time.Time // of the current mode
	lastErr      string
	degradations int64
	rejoins      int64
	onRejoin     []func()
	probing      bool

	subMu sync.Mutex
	subs  map[string][]*subscriber
	ps    *redis.PubSub

	closed  chan struct{}
	closeMu sync.Once
	bg      sync.WaitGroup
}

type subscriber struct{ f func(payload string) }

// Open connects to Redis. It does not fail when Redis is unreachable: the
// store starts degraded and joins when Redis answers (an instance must
// start and serve from its local tiers while Redis is down).
func Open(o Options) (*Store, error) {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if strings.ContainsAny(o.Prefix, "{} \t\r\n") {
		return nil, fmt.Errorf("sharedstore: prefix %q must not hold braces or white space", o.Prefix)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.ProbeEvery <= 0 {
		o.ProbeEvery = DefaultProbeEvery
	}
	if o.Instances <= 0 {
		o.Instances = 1
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	client, redacted, err := newClient(o.URL, o.Timeout)
	if err != nil {
		return nil, err
	}
	s := &Store{
		client:    client,
		prefix:    o.Prefix,
		timeout:   o.Timeout,
		probe:     o.ProbeEvery,
		instances: o.Instances,
		instance:  newInstanceID(),
		logger:    o.Logger,
		url:       redacted,
		since:     time.Now(),
		subs:      map[string][]*subscriber{},
		closed:    make(chan struct{}),
	}
	if err := s.Do(context.Background(), func(ctx context.Context, c redis.UniversalClient) error {
		return c.Ping(ctx).Err()
	}); err != nil {
		s.logger.Warn("shared store unreachable at start; serving from local tiers until it answers",
			zap.String("redis", redacted), zap.Error(err))
	}
	return s, nil
}

// newClient parses the URL into a client whose own timeouts are the
// store's deadline, so a dead connection is noticed in time.
func newClient(raw string, timeout time.Duration) (redis.UniversalClient, string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, "", fmt.Errorf("sharedstore: %q is not a Redis URL: write redis://host:port/db (or rediss://, redis+cluster://host:port?addr=host2:port)", raw)
	}
	redacted := u.Redacted()
	switch u.Scheme {
	case "redis", "rediss":
		opt, err := redis.ParseURL(raw)
		if err != nil {
			return nil, "", fmt.Errorf("sharedstore: %s: %w", redacted, err)
		}
		opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = max(timeout, time.Second), timeout, timeout
		opt.MaxRetries = 0 // a retry is the caller's decision (its fallback)
		opt.ContextTimeoutEnabled = true
		return redis.NewClient(opt), redacted, nil
	case "redis+cluster", "rediss+cluster":
		u.Scheme = strings.TrimSuffix(u.Scheme, "+cluster")
		opt, err := redis.ParseClusterURL(u.String())
		if err != nil {
			return nil, "", fmt.Errorf("sharedstore: %s: %w", redacted, err)
		}
		opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = max(timeout, time.Second), timeout, timeout
		opt.MaxRetries = 0
		opt.ContextTimeoutEnabled = true
		return redis.NewClusterClient(opt), redacted, nil
	}
	return nil, "", fmt.Errorf("sharedstore: scheme %q: write redis://, rediss:// or redis+cluster://", u.Scheme)
}

func newInstanceID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Client returns the Redis client. Call it through Do, which bounds the
// call and watches for trouble.
func (s *Store) Client() redis.UniversalClient { return s.client }

// Instance returns this process's id among the instances (random, new
// for every Open).
func (s *Store) Instance() string { return s.instance }

// Instances returns the configured number of instances.
func (s *Store) Instances() int { return s.instances }

// Timeout returns the deadline of one Redis call.
func (s *Store) Timeout() time.Duration { return s.timeout }

// Key returns prefix:part1:part2...
func (s *Store) Key(parts ...string) string {
	return s.prefix + ":" + strings.Join(parts, ":")
}

// Tagged returns a key in group's hash slot: {prefix:group}:part1:...
// Keys of one group may be changed together by one script, on a Cluster
// too.
func (s *Store) Tagged(group string, parts ...string) string {
	k := "{" + s.prefix + ":" + group + "}"
	if len(parts) > 0 {
		k += ":" + strings.Join(parts, ":")
	}
	return k
}

// Healthy tells whether Redis answered the last call. When false, use the
// local fallback at once.
func (s *Store) Healthy() bool { return !s.degraded.Load() }

// ErrDegraded is returned by Do while the store is degraded, without
// calling Redis.
var ErrDegraded = errors.New("shared store degraded: Redis did not answer in time")

// Do runs f with a context bounded by the store's timeout. An error that
// is not an answer from Redis (redis.Nil and script errors are answers)
// makes the store degraded. While degraded, Do returns ErrDegraded at
// once.
func (s *Store) Do(ctx context.Context, f func(ctx context.Context, c redis.UniversalClient) error) error {
	if s.degraded.Load() {
		return ErrDegraded
	}
	callCtx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	err := f(callCtx, s.client)
	if err != nil && Trouble(err) {
		if ctx.Err() != nil {
			// The caller went away or its own deadline passed (a search's
			// deadline, say): Redis is not to blame.
			return err
		}
		s.degrade(err)
	}
	return err
}

// Trouble tells whether err means Redis could not be reached or did not
// answer in time (rather than an answer such as redis.Nil or a script's
// error reply).
func Trouble(err error) bool {
	if err == nil || errors.Is(err, redis.Nil) {
		return false
	}
	if errors.Is(err, ErrDegraded) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, redis.ErrClosed) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var re redis.Error
	if errors.As(err, &re) {
		// An error reply: Redis answered. LOADING and similar replies
		// mean it cannot serve yet.
		msg := re.Error()
		return strings.HasPrefix(msg, "LOADING") || strings.HasPrefix(msg, "CLUSTERDOWN") || strings.HasPrefix(msg, "TRYAGAIN") || strings.HasPrefix(msg, "MASTERDOWN")
	}
	return true // io.EOF, connection reset and the like
}

func (s *Store) degrade(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastErr = err.Error()
	if s.degraded.Swap(true) {
		return
	}
	s.since = time.Now()
	s.degradations++
	s.logger.Error("shared store degraded: serving from local tiers with conservative local budgets until Redis answers",
		zap.String("redis", s.url), zap.Error(err))
	if !s.probing {
		s.probing = true
		s.bg.Add(1)
		go s.probeLoop()
	}
}

// probeLoop pings Redis until it answers, then rejoins.
func (s *Store) probeLoop() {
	defer s.bg.Done()
	t := time.NewTicker(s.probe)
	defer t.Stop()
	for {
		select {
		case <-s.closed:
			s.mu.Lock()
			s.probing = false
			s.mu.Unlock()
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
		err := s.client.Ping(ctx).Err()
		cancel()
		if err != nil {
			s.mu.Lock()
			s.lastErr = err.Error()
			s.mu.Unlock()
			continue
		}
		s.mu.Lock()
		s.probing = false
		s.degraded.Store(false)
		s.since = time.Now()
		s.rejoins++
		hooks := append([]func(){}, s.onRejoin...)
		s.mu.Unlock()
		s.logger.Info("shared store rejoined", zap.String("redis", s.url))
		for _, f := range hooks {
			f()
		}
		return
	}
}

// OnRejoin registers f to run each time the store comes back from
// degraded mode (in the probe's goroutine). It returns a function that
// unregisters f.
func (s *Store) OnRejoin(f func()) (remove func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onRejoin = append(s.onRejoin, f)
	idx := len(s.onRejoin) - 1
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if idx < len(s.onRejoin) {
			s.onRejoin[idx] = func() {}
		}
	}
}

// Status is the store's state for metrics and the admin endpoint.
type Status struct {
	Redis        string    `json:"redis"`
	Instance     string    `json:"instance"`
	Instances    int       `json:"instances"`
	Mode         string    `json:"mode"` // "shared" or "degraded"
	Since        time.Time `json:"since"`
	LastError    string    `json:"last_error,omitempty"`
	Degradations int64     `json:"degradations"`
	Rejoins      int64     `json:"rejoins"`
}

// Status returns the store's state.
func (s *Store) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{
		Redis: s.url, Instance: s.instance, Instances: s.instances, Mode: "shared",
		Since: s.since, LastError: s.lastErr, Degradations: s.degradations, Rejoins: s.rejoins,
	}
	if s.degraded.Load() {
		st.Mode = "degraded"
	}
	return st
}

// Close stops the probe and the subscriptions and closes the client.
func (s *Store) Close() error {
	var err error
	s.closeMu.Do(func() {
		close(s.closed)
		s.subMu.Lock()
		if s.ps != nil {
			_ = s.ps.Close()
		}
		s.subMu.Unlock()
		s.bg.Wait()
		err = s.client.Close()
	})
	return err
}
