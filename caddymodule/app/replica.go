package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/replica"
	"github.com/besluitbron/besluitbron/sharedstore"
)

// The app hosts the replicas: BesluitBron's own copy of a platform's
// data, kept from the platform's feed (package replica). A platform
// that keeps one implements replica.Provider in its own folder; the
// operator turns it on (replica <key> {...}, or the older caselaw
// block). The app opens its index, harvests through the platform's
// route behind the visitors-first gate, shares the harvest between
// instances, keeps it across reloads and shows its state. It knows no
// platform: it asks the registry which platforms keep a replica.

// ReplicaConfig turns on a platform's replica.
type ReplicaConfig struct {
	// Since is the harvested scope, in the platform's terms (a year or a
	// date YYYY-MM-DD for case law), or "all" for the whole feed.
	// Default: the platform's (replica.Spec.DefaultScope).
	Since string `json:"since,omitempty"`
	// Sources are the parts of the feed kept, for a platform whose feed
	// is per source (OpenBesluitvorming's organisations, by key).
	// Default: the platform's. A platform whose feed is one refuses them.
	Sources []string `json:"sources,omitempty"`
	// Interval is the wait between incremental passes (what changed since
	// the last complete pass). Default the platform's (1h for case law),
	// at least 1m.
	Interval caddy.Duration `json:"interval,omitempty"`
	// Dir holds the index. Default: <cache dir>/<the replica's name>
	// (<cache dir>/caselaw); required when the cache directory is off.
	Dir string `json:"dir,omitempty"`
	// MaxDisk is the most the index's folder may hold, in bytes: at or
	// over it, harvesting waits (the index still answers) and the status
	// says why. Default 0: no budget.
	MaxDisk int64 `json:"max_disk,omitempty"`
}

// LegacyReplica is the name of the replica that configurations, pages
// and metrics named before replicas were generic: the JSON field
// caselaw, the Caddyfile's caselaw block, /status's caselaw member, the
// admin route /besluitbron/caselaw and the metrics
// caddy_besluitbron_caselaw_*. They mean the replica a registered
// platform names so (replica.Spec.Name), and keep working.
const LegacyReplica = "caselaw"

// minReplicaInterval bounds Interval from below: a pass costs at least
// one request to the feed.
const minReplicaInterval = time.Minute

// hostedReplica is a replica this config keeps, as resolved at
// Provision.
type hostedReplica struct {
	platform string
	provider replica.Provider
	spec     replica.Spec
	label    string // how the operator named it: "replica <key>", or the legacy name
	scope    string // canonical (Provider.Scope); "" the whole feed
	interval time.Duration
	dir      string
	maxDisk  int64
}

// resolveReplicas checks the replica settings at Provision and resolves
// them against the registered providers.
func (a *App) resolveReplicas() error {
	a.replicas = nil
	providers := map[string]replica.Provider{}
	var keys []string
	for _, p := range platforms.Each[replica.Provider]() {
		key := p.(platforms.Provider).Platform().Key
		providers[key] = p
		keys = append(keys, key)
	}
	configs := map[string]*ReplicaConfig{}
	labels := map[string]string{}
	for key, c := range a.ReplicaConfigs {
		if c == nil {
			continue
		}
		if providers[key] == nil {
			return fmt.Errorf("besluitbron: replica %s: no registered platform of that key keeps a replica (those that do: %v)", key, keys)
		}
		configs[key], labels[key] = c, "replica "+key
	}
	if a.CaseLaw != nil {
		key := ""
		for k, p := range providers {
			if p.Replica().Name == LegacyReplica {
				key = k
			}
		}
		switch {
		case key == "":
			return fmt.Errorf("besluitbron: %s: no registered platform keeps that replica (those that do: %v)", LegacyReplica, keys)
		case configs[key] != nil:
			return fmt.Errorf("besluitbron: %s and replica %s are one replica: configure it once", LegacyReplica, key)
		}
		configs[key], labels[key] = a.CaseLaw, LegacyReplica
	}
	for _, key := range keys {
		c := configs[key]
		if c == nil {
			continue
		}
		p := providers[key]
		r := hostedReplica{platform: key, provider: p, spec: p.Replica(), label: labels[key], interval: time.Duration(c.Interval)}
		since := c.Since
		switch since {
		case "":
			since = r.spec.DefaultScope
		case "all":
			since = ""
		}
		scope, err := p.Scope(replica.ScopeConfig{Since: since, Sources: c.Sources})
		if err != nil {
			if len(c.Sources) > 0 {
				return fmt.Errorf("besluitbron: %s since %q, sources %q: %v", r.label, c.Since, c.Sources, err)
			}
			return fmt.Errorf("besluitbron: %s since %q: %v", r.label, c.Since, err)
		}
		r.scope = scope
		if r.interval != 0 && r.interval < minReplicaInterval {
			return fmt.Errorf("besluitbron: %s interval %v: give at least %v", r.label, r.interval, minReplicaInterval)
		}
		if c.MaxDisk < 0 {
			return fmt.Errorf("besluitbron: %s max_disk %d: give a size of 0 (no budget) or more", r.label, c.MaxDisk)
		}
		r.dir, r.maxDisk = c.Dir, c.MaxDisk
		if r.dir == "" {
			if d := a.CacheDirectory(); d != "" {
				r.dir = filepath.Join(d, r.spec.Name)
			}
		}
		if r.dir == "" {
			return fmt.Errorf("besluitbron: %s needs a directory: set %s { dir <path> } or a cache_dir", r.label, r.label)
		}
		for _, other := range a.replicas {
			if other.dir == r.dir {
				return fmt.Errorf("besluitbron: %s and %s both keep their index in %s: give each a directory of its own", other.label, r.label, r.dir)
			}
		}
		a.replicas = append(a.replicas, r)
	}
	return nil
}

// replicaKeeper holds one replica's index and its harvester for the
// process, counted in the pool under its platform, directory and
// settings, so it survives a reload that keeps them. A reload that
// changes them makes a new keeper, which opens the index once the old
// config's keeper has let it go.
type replicaKeeper struct {
	key      string        // in the pool
	platform string        // the platform's key, for the log
	turn     chan struct{} // the directory's turn (Figures.replicaDirs), held from open to close
	held     bool          // this keeper holds turn (set by run, read by Destruct after run ended)
	dir      string
	maxDisk  int64 // bytes; 0 none
	unit     string
	logger   *zap.Logger
	cancel   context.CancelFunc
	done     chan struct{}
	// pause holds the harvest between pages while an operator wants it
	// (the admin API); it outlives a reload that keeps the keeper.
	pause replica.Pause
	// rebuilds carries an operator's rebuild to run (buffered: one).
	rebuilds chan struct{}

	mu        sync.Mutex
	index     replica.Index
	harvester replica.Harvester
	report    replica.OpenReport
	openErr   error
	// loggedBroken: the index's failure, found by a search, is in the
	// log; the public answers show only its kind.
	loggedBroken bool
}

// poolKey is the pool's key of the keeper of r.
func (r hostedReplica) poolKey() string {
	return fmt.Sprintf("replica:%s:%s|%s|%v|%d", r.platform, r.dir, r.scope, r.interval, r.maxDisk)
}

// startReplicas takes the keepers of this config's replicas from the
// pool, starting those that are new.
func (a *App) startReplicas() error {
	keepers := map[string]*replicaKeeper{}
	for _, r := range a.replicas {
		key := r.poolKey()
		v, _, err := pool.LoadOrNew(key, func() (caddy.Destructor, error) {
			k := a.newReplicaKeeper(r)
			k.key = key
			return k, nil
		})
		if err != nil {
			for _, k := range keepers {
				_, _ = pool.Delete(k.key)
			}
			return fmt.Errorf("besluitbron: the replica of %s: %w", r.platform, err)
		}
		keepers[r.platform] = v.(*replicaKeeper)
	}
	a.staged.mu.Lock()
	a.staged.replicas = keepers
	a.staged.mu.Unlock()
	return nil
}

// stopReplicas releases this config's hold on its keepers.
func (a *App) stopReplicas() {
	a.staged.mu.Lock()
	keepers := a.staged.replicas
	a.staged.replicas = nil
	a.staged.mu.Unlock()
	for _, k := range keepers {
		_, _ = pool.Delete(k.key)
	}
}

// replicaKeeper is the keeper of platform's replica this config holds;
// nil when it keeps none or has not started.
func (a *App) replicaKeeper(platform string) *replicaKeeper {
	a.staged.mu.Lock()
	defer a.staged.mu.Unlock()
	return a.staged.replicas[platform]
}

// newReplicaKeeper opens r's index and harvests into it until Destruct,
// asking the feed through the running server's route of the platform as
// the shared session, only when visitors leave room in its budget
// (replica.VisitorsFirst), and sharing the harvest with the other
// instances on the store in force (replica.Share).
func (a *App) newReplicaKeeper(r hostedReplica) *replicaKeeper {
	ctx, cancel := context.WithCancel(context.Background())
	turn, _ := a.figures.replicaDirs.LoadOrStore(r.dir, make(chan struct{}, 1))
	k := &replicaKeeper{platform: r.platform, dir: r.dir, maxDisk: r.maxDisk, unit: r.spec.Units(), turn: turn.(chan struct{}),
		logger: a.logger, cancel: cancel, done: make(chan struct{}), rebuilds: make(chan struct{}, 1)}
	figures := a.figures
	budget := func() (replica.BudgetRoom, bool) {
		st, ok := figures.Budget(r.platform)
		return replica.BudgetRoom{Waiting: st.Waiting, Available: st.Available, Capacity: st.Capacity}, ok
	}
	route := &a.figures.route
	fetch := func(ctx context.Context, req adapters.Request) ([]byte, http.Header, error) {
		ans, err := route.do(ctx, r.platform, req)
		if err != nil {
			return nil, nil, err
		}
		return ans.Body, ans.Header, nil
	}
	created := a.shared
	store := func() *sharedstore.Store {
		if s := runningStore(); s != nil {
			return s
		}
		return created // before this config is in force
	}
	h := replica.Harvest{
		Fetch:    fetch,
		Clock:    a.clock,
		Gate:     k.pause.Gate(replica.DiskBudget(r.dir, r.maxDisk, replica.VisitorsFirst(budget, a.clock, replica.VisitorsFirstPoll))),
		Relay:    replica.Share(ctx, store, r.spec.Name, r.scope, a.clock, replica.VisitorsFirstPoll),
		Scope:    r.scope,
		Interval: r.interval,
	}
	go k.run(ctx, r.provider, h)
	return k
}

// run opens the index, waiting while another keeper (of the config
// before a reload) still uses the directory, then harvests. An
// operator's rebuild (requestRebuild) stops the harvest, closes and
// removes the index, and starts over with a new, empty one; so does a
// rebuild asked while the index cannot be opened or has failed.
func (k *replicaKeeper) run(ctx context.Context, p replica.Provider, h replica.Harvest) {
	defer close(k.done)
	select {
	case k.turn <- struct{}{}:
		k.held = true
	case <-ctx.Done():
		return
	}
	for {
		idx, ok := k.open(ctx, p, h)
		harvested := false
		if ok {
			harvester, err := p.Harvester(idx, h)
			if err != nil {
				k.logf("starting the replica's harvester", err)
			} else {
				k.mu.Lock()
				k.index, k.harvester = idx, harvester
				k.mu.Unlock()
				if !k.harvest(ctx, harvester) {
					return // Destruct closes the index
				}
				harvested = true
			}
		}
		// An index that cannot open, or a harvester that cannot start,
		// waits for a rebuild.
		if !harvested && !k.awaitRebuild(ctx) {
			if idx != nil {
				_ = idx.Close()
			}
			return
		}
		if !k.rebuild(p, idx) {
			return
		}
	}
}

// open opens the index, trying again while another process holds it;
// false when it cannot be opened (the reason kept for the status) or ctx
// ended.
func (k *replicaKeeper) open(ctx context.Context, p replica.Provider, h replica.Harvest) (replica.Index, bool) {
	for {
		idx, report, err := p.Open(k.dir)
		k.mu.Lock()
		k.report, k.openErr = report, err
		k.mu.Unlock()
		if err == nil {
			if report.Rebuilt && k.logger != nil {
				k.logger.Warn("the replica's index was made by another build: rebuilt empty, harvesting starts over",
					zap.String("platform", k.platform), zap.String("dir", k.dir), zap.String("reason", report.Reason))
			}
			return idx, true
		}
		if !errors.Is(err, replica.ErrLocked) {
			k.logf("opening the replica's index", err)
			return nil, false
		}
		if clock.Sleep(ctx, h.Clock, time.Second) != nil {
			return nil, false
		}
	}
}

// harvest runs harvester until ctx ends (false) or an operator asks for
// a rebuild (true). A harvest that stops on its own (the index failed)
// waits for one.
func (k *replicaKeeper) harvest(ctx context.Context, harvester replica.Harvester) bool {
	hctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- harvester.Run(hctx) }()
	select {
	case err := <-done:
		if err != nil && ctx.Err() == nil {
			k.logf("harvesting the platform's feed stopped", err)
		}
		return k.awaitRebuild(ctx)
	case <-k.rebuilds:
		cancel()
		<-done
		return true
	case <-ctx.Done():
		<-done
		return false
	}
}

// awaitRebuild waits for an operator's rebuild (true) or ctx's end.
func (k *replicaKeeper) awaitRebuild(ctx context.Context) bool {
	select {
	case <-k.rebuilds:
		return true
	case <-ctx.Done():
		return false
	}
}

// rebuild closes idx (nil: none open), removes the index and lets run
// open a new one; false when the index cannot be removed (the reason is
// kept for the status and the log).
func (k *replicaKeeper) rebuild(p replica.Provider, idx replica.Index) bool {
	k.mu.Lock()
	k.index, k.harvester, k.openErr, k.loggedBroken = nil, nil, nil, false
	k.mu.Unlock()
	if idx != nil {
		_ = idx.Close()
	}
	remover, ok := p.(replica.Remover)
	var err error
	if !ok {
		err = errors.New("the platform's replica cannot be rebuilt here: stop BesluitBron and remove its folder")
	} else {
		err = remover.Remove(k.dir)
	}
	if err != nil {
		k.mu.Lock()
		k.openErr = err
		k.mu.Unlock()
		k.logf("removing the replica's index for a rebuild", err)
		return false
	}
	if k.logger != nil {
		k.logger.Warn("the replica's index was removed at an operator's request: rebuilt empty, harvesting starts over",
			zap.String("platform", k.platform), zap.String("dir", k.dir))
	}
	return true
}

// requestRebuild asks run to rebuild the index; asking again before it
// has begun changes nothing.
func (k *replicaKeeper) requestRebuild() {
	select {
	case k.rebuilds <- struct{}{}:
	default:
	}
}

func (k *replicaKeeper) openReport() replica.OpenReport {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.report
}

// noteBroken logs, once, the failure a search found in the open index:
// a failure found by a write stops the harvest, which logs it.
func (k *replicaKeeper) noteBroken(err error) {
	k.mu.Lock()
	first := !k.loggedBroken
	k.loggedBroken = true
	k.mu.Unlock()
	if first {
		k.logf("the replica's index stopped answering searches", err)
	}
}

func (k *replicaKeeper) logf(msg string, err error) {
	if k.logger != nil {
		k.logger.Error(msg, zap.String("platform", k.platform), zap.String("dir", k.dir), zap.Error(err))
	}
}

// Destruct stops harvesting, waits for it, and closes the index.
func (k *replicaKeeper) Destruct() error {
	k.cancel()
	<-k.done
	k.mu.Lock()
	idx := k.index
	k.index, k.harvester = nil, nil
	k.mu.Unlock()
	var err error
	if idx != nil {
		err = idx.Close()
	}
	if k.held {
		<-k.turn // the next keeper of the directory may open it
	}
	return err
}

// state is the index and harvester, or why there are none.
func (k *replicaKeeper) state() (replica.Index, replica.Harvester, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch {
	case k.index != nil:
		return k.index, k.harvester, nil
	case k.openErr != nil:
		return nil, nil, k.openErr
	}
	return nil, nil, replica.ErrOpening
}

// status is the keeper's state as the status page shows it.
func (k *replicaKeeper) status() replica.Status {
	idx, h, err := k.state()
	st := replica.StatusOf(k.unit, k.dir, idx, h, err)
	st.Paused = k.pause.Paused()
	st.DiskBytes, _ = replica.DirSize(k.dir)
	st.MaxDisk = k.maxDisk
	return st
}

// PauseReplica holds (pause true) or resumes the harvest of this
// config's replica of platform; false when it keeps none.
func (a *App) PauseReplica(platform string, pause bool) bool {
	k := a.replicaKeeper(platform)
	if k == nil {
		return false
	}
	if pause {
		k.pause.Pause()
	} else {
		k.pause.Resume()
	}
	return true
}

// RebuildReplica has this config's replica of platform built anew: the
// harvest stops, the index is removed, and a new, empty one is
// harvested from the start; false when it keeps none.
func (a *App) RebuildReplica(platform string) bool {
	k := a.replicaKeeper(platform)
	if k == nil {
		return false
	}
	k.requestRebuild()
	return true
}

// ReplicaKeys are the platforms whose replica this config keeps, in the
// table's order.
func (a *App) ReplicaKeys() []string {
	var keys []string
	for _, r := range a.replicas {
		keys = append(keys, r.platform)
	}
	return keys
}

// ReplicaStatus is the state of this config's replica of platform;
// false when it keeps none or has not started.
func (a *App) ReplicaStatus(platform string) (replica.Status, bool) {
	k := a.replicaKeeper(platform)
	if k == nil {
		return replica.Status{}, false
	}
	return k.status(), true
}

// ReplicaState is one replica this config keeps and its state now.
type ReplicaState struct {
	Platform string // the platform's key
	Name     string // replica.Spec.Name
	Source   string // replica.Spec.Source: how its provenance names it
	Status   replica.Status
}

// ReplicaStates are the replicas this config keeps, in the order of
// their platforms' keys, each with its state now.
func (a *App) ReplicaStates() []ReplicaState {
	out := make([]ReplicaState, 0, len(a.replicas))
	for _, r := range a.replicas {
		if st, ok := a.ReplicaStatus(r.platform); ok {
			out = append(out, ReplicaState{Platform: r.platform, Name: r.spec.Name, Source: r.spec.Source, Status: st})
		}
	}
	return out
}

// ReplicaStatusNamed is the state of this config's replica of that name
// (replica.Spec.Name; LegacyReplica for the older forms); false when it
// keeps none.
func (a *App) ReplicaStatusNamed(name string) (replica.Status, bool) {
	for _, r := range a.replicas {
		if r.spec.Name == name {
			return a.ReplicaStatus(r.platform)
		}
	}
	return replica.Status{}, false
}

// Replicas are what this config's replicas offer the platforms'
// surfaces, by platform key (replica.Offerer; adapters.Config.Replica):
// each asks the keeper of the config when used.
func (a *App) Replicas() map[string]any {
	out := map[string]any{}
	for _, r := range a.replicas {
		if o, ok := r.provider.(replica.Offerer); ok {
			out[r.platform] = o.Offer(heldReplica{a: a, platform: r.platform}, a.clock)
		}
	}
	return out
}

// heldReplica is a replica as this config holds it (replica.Held).
type heldReplica struct {
	a        *App
	platform string
}

func (h heldReplica) Current() (replica.Index, replica.Harvester, error) {
	k := h.a.replicaKeeper(h.platform)
	if k == nil {
		return nil, nil, replica.ErrNotStarted
	}
	return k.state()
}

func (h heldReplica) Broken(err error) {
	if k := h.a.replicaKeeper(h.platform); k != nil {
		k.noteBroken(err)
	}
}
