// Package cache is BesluitBron's per-platform HTTP cache (docs/rules.md, "Cache"):
// a bounded memory tier (bigcache, with each entry's own expiry in its
// header) in front of a durable tier on local disk (bbolt), entries stamped
// with the BesluitBron version that wrote them and dropped lazily when
// asked for under another version, coalescing of identical misses,
// storage rules, stale-if-error and stale-while-revalidate, and figures per
// platform. It knows nothing of Caddy: the platform_cache module adapts it.
package cache

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/allegro/bigcache/v3"
	"go.uber.org/zap"
)

// Defaults for Options.
const (
	DefaultMemoryBytes = 128 << 20
	DefaultDiskBytes   = 2 << 30
	DefaultMaxBody     = 8 << 20
	DefaultSweepEvery  = 10 * time.Minute
	// DefaultFlightTimeout bounds a flight (a miss's upstream request that
	// identical callers wait for, or a background refresh) until its
	// answer is shared. A flight buffers at most max_body (8 MiB by
	// default): even at 32 KiB a second that arrives in about 4 minutes,
	// after headers that platform_proxy awaits at most a minute. Past 5
	// minutes the platform has stalled mid-answer, and every caller of the
	// key waits on it. An answer too large to buffer streams to its own
	// caller and is not bounded by it.
	DefaultFlightTimeout = 5 * time.Minute
)

// Options configure a Store.
type Options struct {
	// Platform is the platform key; it is part of every cache key.
	Platform string
	// Version stamps every entry written; entries naming another version
	// are dropped when asked for.
	Version string
	// Dir holds the durable file <platform>.db; empty means memory only.
	Dir string
	// MemoryBytes bounds the memory tier (rounded down to whole MiB, at
	// least 1 MiB).
	MemoryBytes int64
	// DiskBytes bounds the durable file's entries (0: DefaultDiskBytes).
	DiskBytes int64
	// MaxBody is the largest body the memory tier must hold; it sizes
	// bigcache's shards.
	MaxBody int64
	// Clock gives the time (time.Now when nil).
	Clock func() time.Time
	// SweepEvery is how often expired durable entries are removed
	// (0: DefaultSweepEvery; negative: never, for tests).
	SweepEvery time.Duration
	// Logger receives damage reports (nop when nil).
	Logger *zap.Logger
	// Observe, when set, is told of every answer: kind and result (hit,
	// miss, stale, coalesced, bypass).
	Observe func(kind, result string)
	// FlightTimeout bounds a flight until its answer is shared (0:
	// DefaultFlightTimeout); then its callers get ErrFlightTimeout or a
	// stale entry, its upstream request is ended and the key is free.
	FlightTimeout time.Duration
	// Shared, when set, is the tier several instances share (shared.go),
	// behind the local ones, and coalesces misses across instances. Nil:
	// this instance alone. SetShared changes it later.
	Shared Shared
}

// InUseMessage is logged when a platform's durable file is locked by
// another process: most likely a second BesluitBron instance on the same
// machine with the same cache directory.
const InUseMessage = "durable cache file is in use by another instance (another Caddy on this cache directory); " +
	"this platform's cache runs memory-only in this instance: give each instance its own cache_dir " +
	"(besluitbron { cache_dir <path> }; the default Caddyfile takes BESLUITBRON_CACHE_DIR)"

// Store is one platform's cache.
type Store struct {
	platform string
	version  atomic.Pointer[string]
	clk      atomic.Pointer[func() time.Time] // Options.Clock, or SetClock's
	logger   *zap.Logger
	observe  func(kind, result string) // nil: nobody listens; set once, in Open

	mem    *bigcache.BigCache
	hot    *hotSet
	disk   *disk                       // nil: memory only
	shared atomic.Pointer[sharedState] // nil: this instance alone

	flightsMu     sync.Mutex
	flights       map[string]*flight
	flightTimeout time.Duration

	bg         sync.WaitGroup
	background atomic.Int64  // goroutines counted in bg (Stats.Background)
	stopSweep  chan struct{} // closed by Close: ends the sweeper
	closeCtx   context.Context
	closeAll   context.CancelFunc // ends background refreshes
	closeOnce  sync.Once

	hits, misses, stale, coalesced, bypass atomic.Int64
	stored, versionDrops, refreshes        atomic.Int64
	upstreamErrors                         atomic.Int64
}

// clock is the store's time.
func (s *Store) clock() time.Time { return (*s.clk.Load())() }

// SetClock moves the store onto another clock (tests of other packages
// that move a running store's time; safe while requests run).
func (s *Store) SetClock(now func() time.Time) { s.clk.Store(&now) }

// Open opens a platform's store; its durable file is opened (or set aside
// when damaged) but nothing in it is judged or removed.
func Open(o Options) (*Store, error) {
	if o.Platform == "" {
		return nil, errors.New("cache: platform is required")
	}
	if o.Version == "" {
		return nil, errors.New("cache: version is required")
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.MemoryBytes <= 0 {
		o.MemoryBytes = DefaultMemoryBytes
	}
	if o.DiskBytes <= 0 {
		o.DiskBytes = DefaultDiskBytes
	}
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.SweepEvery == 0 {
		o.SweepEvery = DefaultSweepEvery
	}
	if o.FlightTimeout <= 0 {
		o.FlightTimeout = DefaultFlightTimeout
	}
	// A quarter of the memory bound holds decoded hot entries (served
	// without a copy), the rest is bigcache's.
	hotBytes := o.MemoryBytes / 4
	mb := int((o.MemoryBytes - hotBytes) >> 20)
	if mb < 1 {
		mb = 1
	}
	// bigcache splits its bound evenly over its shards and refuses an entry
	// larger than one shard: keep shards at least twice the largest body.
	shards := 64
	for shards > 1 && int64(mb)<<20/int64(shards) < 2*o.MaxBody {
		shards /= 2
	}
	mem, err := bigcache.New(context.Background(), bigcache.Config{
		Shards:             shards,
		LifeWindow:         100 * 365 * 24 * time.Hour, // expiry is the entry's own
		CleanWindow:        0,
		MaxEntriesInWindow: shards * 16,
		MaxEntrySize:       4096,
		HardMaxCacheSize:   mb,
		Verbose:            false,
	})
	if err != nil {
		return nil, fmt.Errorf("cache: memory tier: %w", err)
	}
	s := &Store{
		platform:      o.Platform,
		logger:        o.Logger,
		mem:           mem,
		hot:           newHotSet(hotBytes),
		flights:       map[string]*flight{},
		flightTimeout: o.FlightTimeout,
		stopSweep:     make(chan struct{}),
		observe:       o.Observe,
	}
	s.clk.Store(&o.Clock)
	s.closeCtx, s.closeAll = context.WithCancel(context.Background())
	s.version.Store(&o.Version)
	if o.Dir != "" {
		s.disk, err = openDisk(filepath.Join(o.Dir, o.Platform+".db"), o.DiskBytes, o.Clock(), o.Logger)
		if errors.Is(err, errInUse) {
			o.Logger.Error(InUseMessage,
				zap.String("platform", o.Platform), zap.String("file", filepath.Join(o.Dir, o.Platform+".db")))
			s.disk, err = nil, nil
		}
		if err != nil {
			_ = mem.Close()
			return nil, fmt.Errorf("cache: durable tier: %w", err)
		}
		if s.disk != nil && o.SweepEvery > 0 {
			go s.sweepLoop(o.SweepEvery)
		}
	}
	if o.Shared != nil {
		s.SetShared(o.Shared)
	}
	return s, nil
}

// Platform returns the store's platform key.
func (s *Store) Platform() string { return s.platform }

// Version returns the version new entries are stamped with.
func (s *Store) Version() string { return *s.version.Load() }

// SetVersion changes the version (a config reload with another version
// override); entries of the old one are then dropped when asked for.
func (s *Store) SetVersion(v string) { s.version.Store(&v) }

func (s *Store) note(kind, result string) {
	switch result {
	case "hit":
		s.hits.Add(1)
	case "miss":
		s.misses.Add(1)
	case "stale":
		s.stale.Add(1)
	case "coalesced":
		s.coalesced.Add(1)
	case "bypass":
		s.bypass.Add(1)
	}
	if s.observe != nil {
		s.observe(kind, result)
	}
}

// Get returns the entry under key, or nil. An entry another version wrote,
// a damaged one, or one past its last stale window is removed from both
// tiers and reported as absent; dropped tells which it was.
func (s *Store) Get(key string) (e *Entry, dropped string) {
	return s.get(context.Background(), key, "", s.clock())
}

// get is Get; raw is the unhashed key under which a found entry joins the
// hot set ("" for none). The local tiers are asked first; the shared tier
// (if any) only when they hold nothing usable.
func (s *Store) get(ctx context.Context, key, raw string, now time.Time) (e *Entry, dropped string) {
	e, dropped = s.getLocal(key, raw, now)
	st := s.shared.Load()
	if e != nil {
		if st != nil && !now.Before(e.Expires) {
			// Expired here: another instance may have fetched it anew.
			if fresh, _ := s.sharedGet(ctx, st, key, raw, now); fresh != nil && now.Before(fresh.Expires) {
				return fresh, ""
			}
		}
		return e, ""
	}
	if st != nil {
		// After a local drop too: another instance of the new version
		// may have stored the entry anew.
		if e, d := s.sharedGet(ctx, st, key, raw, now); e != nil || d != "" {
			return e, d
		}
	}
	return nil, dropped
}

// getLocal looks in the memory tier, then the durable file.
func (s *Store) getLocal(key, raw string, now time.Time) (e *Entry, dropped string) {
	if b, err := s.mem.Get(key); err == nil {
		if v, ok := peekVersion(b); !ok || v != s.Version() {
			s.remove(key)
			s.versionDrops.Add(1)
			return nil, "other-version"
		}
		e, err := decodeEntry(b, false)
		if err != nil {
			s.remove(key)
			return nil, "damaged"
		}
		if !now.Before(e.KeepUntil) {
			s.remove(key)
			return nil, ""
		}
		s.hot.put(raw, key, e) // e owns b: bigcache returned a copy
		return e, ""
	}
	if s.disk == nil {
		return nil, ""
	}
	b, err := s.disk.get(key)
	if err != nil || b == nil {
		return nil, ""
	}
	e, err = decodeEntry(b, true)
	if err != nil {
		s.logger.Warn("damaged durable cache entry removed", zap.String("platform", s.platform))
		_ = s.disk.del(key)
		return nil, "damaged"
	}
	if e.Version != s.Version() {
		_ = s.disk.del(key)
		s.versionDrops.Add(1)
		return nil, "other-version"
	}
	if !now.Before(e.KeepUntil) {
		_ = s.disk.del(key)
		return nil, ""
	}
	_ = s.mem.Set(key, b) // promote; a body too large for memory stays on disk only
	s.hot.put(raw, key, e)
	return e, ""
}

// Put stores e under key in the local tiers and the shared one (if any);
// the durable write is committed before Put returns.
func (s *Store) Put(key string, e *Entry) error {
	if !e.fits() {
		return errors.New("cache: entry does not fit the format")
	}
	b := e.encode()
	s.hot.del(key)
	_ = s.mem.Set(key, b) // too large for a shard: disk only
	if s.disk != nil {
		if err := s.disk.put(key, b, e.StoredAt, e.KeepUntil); err != nil {
			s.logger.Warn("durable cache write failed", zap.String("platform", s.platform), zap.Error(err))
			return err
		}
	}
	s.sharedPut(key, b, e)
	s.stored.Add(1)
	return nil
}

func (s *Store) remove(key string) {
	s.hot.del(key)
	_ = s.mem.Delete(key)
	if s.disk != nil {
		_ = s.disk.del(key)
	}
}

// Purge removes every entry of this platform from the local tiers and,
// with a shared tier, from it and the other instances' local tiers. When
// the shared tier fails, the local tiers are purged all the same and the
// error says so.
func (s *Store) Purge() error {
	var serr error
	if st := s.shared.Load(); st != nil {
		// The shared tier first: a miss meanwhile must not fetch an old
		// entry back into the local tiers.
		if serr = st.tier.Purge(context.Background()); serr != nil {
			st.failed(serr)
			serr = fmt.Errorf("local tiers purged; shared tier not (other instances keep their entries): %w", serr)
		}
	}
	if err := s.purgeLocal(); err != nil {
		return err
	}
	return serr
}

// purgeLocal removes every entry from the hot set, memory and the file.
func (s *Store) purgeLocal() error {
	s.hot.clear()
	if err := s.mem.Reset(); err != nil {
		return err
	}
	if s.disk != nil {
		return s.disk.purge()
	}
	return nil
}

// Sweep removes durable entries past their last stale window; it runs
// every SweepEvery by itself.
func (s *Store) Sweep() (int, error) {
	if s.disk == nil {
		return 0, nil
	}
	return s.disk.sweep(s.clock())
}

func (s *Store) sweepLoop(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stopSweep:
			return
		case <-t.C:
			if n, err := s.Sweep(); err != nil {
				s.logger.Warn("sweeping durable cache", zap.String("platform", s.platform), zap.Error(err))
			} else if n > 0 {
				s.logger.Debug("swept expired durable cache entries", zap.String("platform", s.platform), zap.Int("removed", n))
			}
		}
	}
}

// Stats are a platform's figures.
type Stats struct {
	Platform      string `json:"platform"`
	Version       string `json:"version"`
	MemoryEntries int64  `json:"memory_entries"`
	MemoryBytes   int64  `json:"memory_bytes"`
	HotEntries    int64  `json:"hot_entries"`
	DiskEntries   int64  `json:"disk_entries"`
	DiskBytes     int64  `json:"disk_bytes"`
	Hits          int64  `json:"hits"`
	Misses        int64  `json:"misses"`
	Stale         int64  `json:"stale"`
	Coalesced     int64  `json:"coalesced"`
	Bypass        int64  `json:"bypass"`
	Stored        int64  `json:"stored"`
	VersionDrops  int64  `json:"version_drops"`
	Refreshes     int64  `json:"refreshes"`
	// Background is the background work (refreshes, purges another
	// instance asked for) running now.
	Background     int64 `json:"background"`
	UpstreamErrors int64 `json:"upstream_errors"`
	// Shared is the shared tier's figures; absent when this instance
	// runs alone.
	Shared *SharedStats `json:"shared,omitempty"`
}

// Stats returns the store's figures.
func (s *Store) Stats() Stats {
	st := Stats{
		Platform:       s.platform,
		Version:        s.Version(),
		MemoryEntries:  int64(s.mem.Len()),
		MemoryBytes:    int64(s.mem.Capacity()) + s.hot.bytes(),
		HotEntries:     int64(s.hot.len()),
		Hits:           s.hits.Load(),
		Misses:         s.misses.Load(),
		Stale:          s.stale.Load(),
		Coalesced:      s.coalesced.Load(),
		Bypass:         s.bypass.Load(),
		Stored:         s.stored.Load(),
		VersionDrops:   s.versionDrops.Load(),
		Refreshes:      s.refreshes.Load(),
		Background:     s.background.Load(),
		UpstreamErrors: s.upstreamErrors.Load(),
	}
	if s.disk != nil {
		st.DiskEntries, st.DiskBytes = s.disk.stats()
	}
	if sh := s.shared.Load(); sh != nil {
		st.Shared = sh.stats()
	}
	return st
}

// goBackground runs f apart from any request, counted in bg (Close waits
// for it) and in Stats.Background. The caller holds flightsMu, so Close
// cannot begin waiting between its check and this Add.
func (s *Store) goBackground(f func()) {
	s.bg.Add(1)
	s.background.Add(1)
	go func() {
		defer s.bg.Done()
		defer s.background.Add(-1)
		f()
	}()
}

// Close waits for background refreshes, then closes both tiers.
func (s *Store) Close() error {
	var err error
	s.closeOnce.Do(func() {
		if old := s.shared.Swap(nil); old != nil && old.stop != nil {
			old.stop()
		}
		s.flightsMu.Lock() // no refresh starts after this
		close(s.stopSweep)
		s.closeAll()
		s.flightsMu.Unlock()
		s.bg.Wait()
		err = s.mem.Close()
		if s.disk != nil {
			if derr := s.disk.close(); err == nil {
				err = derr
			}
		}
	})
	return err
}

// Waiting returns how many callers wait on flights now (tests use it to
// know that concurrent requests have joined, without sleeping).
func (s *Store) Waiting() int {
	s.flightsMu.Lock()
	defer s.flightsMu.Unlock()
	n := 0
	for _, f := range s.flights {
		n += f.waiters
	}
	return n
}
