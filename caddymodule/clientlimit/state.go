package clientlimit

import (
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/besluitbron/besluitbron/caddymodule/app"
	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/inbound"
	"github.com/besluitbron/besluitbron/sharedstore"
)

// pool holds the limiter state, so it survives config reloads: the key
// "process" holds the one process bucket every client_limit shares, and
// "zone:<name>" each connector's buckets. A reloaded config takes the same
// objects and changes their limits in place when it starts (app.Setting);
// nothing restarts full, and a config that fails to load changes nothing.
var pool = caddy.NewUsagePool()

const processKey = "process"

func zoneKey(name string) string { return "zone:" + name }

// sweepInterval is how often a zone drops the keys whose bucket is full.
const sweepInterval = time.Minute

// processState is the process bucket shared by every client_limit.
type processState struct {
	bucket   *inbound.Bucket
	settings *app.Setting[inbound.Limit]
}

func newProcessState() *processState {
	p := &processState{bucket: inbound.NewBucket(inbound.Limit{})}
	p.settings = app.NewSetting(p.bucket.SetLimit)
	return p
}

// Destruct implements caddy.Destructor.
func (*processState) Destruct() error { return nil }

// zoneState is one connector's buckets and its sweeper.
type zoneState struct {
	name     string
	zone     *inbound.Zone
	settings *app.Setting[inbound.Config]
	store    *app.Setting[*sharedstore.Store] // the running config's shared store, or nil
	stop     chan struct{}
	stopped  sync.WaitGroup
	clock    clock.Clock // the sweeper's, and the handlers' (h.clock)
	// callerClock runs the shared buckets on the now each request is
	// judged at instead of Redis's clock (inbound.NewGlobal).
	callerClock bool
}

// newZoneState makes a zone on clk. Its shared buckets run on Redis's
// clock, which every instance reads alike; on clk instead when it is a
// clock of its own (a test's), since Redis's cannot be moved.
func newZoneState(name string, clk clock.Clock) *zoneState {
	_, wall := clk.(clock.Wall)
	z := &zoneState{name: name, zone: inbound.NewZone(inbound.Config{MaxKeys: defaultMaxKeys}), stop: make(chan struct{}), clock: clk, callerClock: !wall}
	z.settings = app.NewSetting(z.zone.Configure)
	z.store = app.NewSetting(z.useStore)
	z.stopped.Add(1)
	go z.sweep()
	return z
}

// sweep drops idle keys every sweepInterval on the zone's clock. The
// goroutine belongs to the pooled state, not to a config, and ends in
// Destruct.
func (z *zoneState) sweep() {
	defer z.stopped.Done()
	due := make(chan struct{}, 1)
	for {
		t := z.clock.AfterFunc(sweepInterval, func() { due <- struct{}{} })
		select {
		case <-z.stop:
			t.Stop()
			return
		case <-due:
			tick := z.clock.Now()
			if g := z.zone.Global(); g != nil {
				g.Share().Sweep(tick)
			}
			n := z.zone.Keys().Sweep(tick)
			keysGauge.WithLabelValues(z.name).Set(float64(n))
			evictedGauge.WithLabelValues(z.name).Set(float64(z.zone.Keys().Evicted()))
		}
	}
}

// useStore puts the zone's session and address buckets in store (nil: in
// this process). The same store again keeps the buckets as they are.
func (z *zoneState) useStore(store *sharedstore.Store) {
	switch g := z.zone.Global(); {
	case store == nil:
		z.zone.SetGlobal(nil)
	case g == nil || g.Store() != store:
		z.zone.SetGlobal(inbound.NewGlobal(store, z.name, z.zone.Keys().MaxKeys(), z.callerClock))
	}
}

func describeStore(s *sharedstore.Store) string {
	if s == nil {
		return "no shared store"
	}
	return "a shared store"
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
