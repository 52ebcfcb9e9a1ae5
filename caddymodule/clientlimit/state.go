package clientlimit

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/besluitbron/besluitbron/caddymodule/inbound"
)

// pool holds the limiter state, so it survives config reloads: the key
// "process" holds the one process bucket every client_limit shares, and
// "zone:<name>" each connector's buckets. A reloaded config takes the same
// objects and changes their limits in place; nothing restarts full.
var pool = caddy.NewUsagePool()

const processKey = "process"

func zoneKey(name string) string { return "zone:" + name }

// sweepInterval is how often a zone drops the keys whose bucket is full.
const sweepInterval = time.Minute

// generation numbers the configs this process loaded, in order, so that a
// reloaded config's limits take effect when it serves its first request,
// not while it is provisioned: a config that fails to load never changes
// the limits of the one still running.
var gens struct {
	sync.Mutex
	seq  uint64
	byCh map[<-chan struct{}]uint64
}

func generation(ctx caddy.Context) uint64 {
	done := ctx.Done()
	gens.Lock()
	defer gens.Unlock()
	if seq, ok := gens.byCh[done]; ok {
		return seq
	}
	if gens.byCh == nil {
		gens.byCh = make(map[<-chan struct{}]uint64)
	}
	gens.seq++
	seq := gens.seq
	gens.byCh[done] = seq
	go func() {
		<-done
		gens.Lock()
		delete(gens.byCh, done)
		gens.Unlock()
	}()
	return seq
}

// staged holds a setting per config generation until that generation
// serves its first request (activate), then applies it.
type staged[T comparable] struct {
	mu      sync.Mutex
	applied atomic.Uint64 // generation whose setting is in force
	byGen   map[uint64]stagedValue[T]
	apply   func(T)
}

type stagedValue[T comparable] struct {
	v        T
	explicit bool
}

// stage records the setting of one handler of generation seq. Within a
// generation an explicit setting wins over a default one, and two explicit
// settings must agree (describe names the setting in the error). The first
// generation ever staged applies at once (so does a change to the
// generation in force).
func (s *staged[T]) stage(seq uint64, v T, explicit bool, describe func(T) string, done <-chan struct{}) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byGen == nil {
		s.byGen = make(map[uint64]stagedValue[T])
	}
	old, ok := s.byGen[seq]
	switch {
	case !ok:
		s.byGen[seq] = stagedValue[T]{v, explicit}
		go func() { // forget a generation that is unloaded (or failed to load)
			<-done
			s.mu.Lock()
			delete(s.byGen, seq)
			s.mu.Unlock()
		}()
	case explicit && old.explicit && old.v != v:
		return fmt.Errorf("set to %s here but to %s in another client_limit of the same config", describe(v), describe(old.v))
	case explicit && !old.explicit:
		s.byGen[seq] = stagedValue[T]{v, true}
	}
	if a := s.applied.Load(); a == 0 || a == seq {
		s.apply(s.byGen[seq].v)
		s.applied.Store(seq)
	}
	return nil
}

// activate puts generation seq's setting in force, if it is newer than the
// one in force. It costs one atomic load once done.
func (s *staged[T]) activate(seq uint64) {
	if s.applied.Load() >= seq {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.applied.Load() >= seq {
		return
	}
	if sv, ok := s.byGen[seq]; ok {
		s.apply(sv.v)
	}
	s.applied.Store(seq)
}

// processState is the process bucket shared by every client_limit.
type processState struct {
	bucket   *inbound.Bucket
	settings staged[inbound.Limit]
}

func newProcessState() *processState {
	p := &processState{bucket: inbound.NewBucket(inbound.Limit{})}
	p.settings.apply = p.bucket.SetLimit
	return p
}

// Destruct implements caddy.Destructor.
func (*processState) Destruct() error { return nil }

// zoneState is one connector's buckets and its sweeper.
type zoneState struct {
	name     string
	zone     *inbound.Zone
	settings staged[inbound.Config]
	stop     chan struct{}
	stopped  sync.WaitGroup
}

func newZoneState(name string) *zoneState {
	z := &zoneState{name: name, zone: inbound.NewZone(inbound.Config{MaxKeys: defaultMaxKeys}), stop: make(chan struct{})}
	z.settings.apply = z.zone.Configure
	z.stopped.Add(1)
	go z.sweep()
	return z
}

// sweep drops idle keys every sweepInterval. The goroutine belongs to the
// pooled state, not to a config, and ends in Destruct.
func (z *zoneState) sweep() {
	defer z.stopped.Done()
	t := time.NewTicker(sweepInterval)
	defer t.Stop()
	for {
		select {
		case <-z.stop:
			return
		case <-t.C:
			n := z.zone.Keys().Sweep(now())
			keysGauge.WithLabelValues(z.name).Set(float64(n))
			evictedGauge.WithLabelValues(z.name).Set(float64(z.zone.Keys().Evicted()))
		}
	}
}

// Destruct implements caddy.Destructor: the last config using the zone is
// gone.
func (z *zoneState) Destruct() error {
	close(z.stop)
	z.stopped.Wait()
	keysGauge.DeleteLabelValues(z.name)
	evictedGauge.DeleteLabelValues(z.name)
	return nil
}

var (
	_ caddy.Destructor = (*processState)(nil)
	_ caddy.Destructor = (*zoneState)(nil)
)
