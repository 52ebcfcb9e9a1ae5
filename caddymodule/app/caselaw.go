package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/rechtspraak"
	"github.com/besluitbron/besluitbron/platforms/rechtspraak/caselaw"
	"github.com/besluitbron/besluitbron/replica"
	"github.com/besluitbron/besluitbron/sharedstore"
)

// shareCaseLaw makes the harvester of hc share its harvest with the other
// instances on the store in force (replica.Share).
func (a *App) shareCaseLaw(ctx context.Context, hc *caselaw.HarvesterConfig) {
	created := a.shared
	store := func() *sharedstore.Store {
		if s := runningStore(); s != nil {
			return s
		}
		return created // before this config is in force
	}
	scope, _ := caselaw.ParseScope(hc.Since) // checked at Provision
	relay := replica.Share(ctx, store, "caselaw", scope, a.clock, replica.VisitorsFirstPoll)
	hc.PassStart, hc.Follow, hc.Stored = relay.PassStart, relay.Follow, relay.Stored
}

// CaseLawConfig turns on BesluitBron's own full-text index of
// Rechtspraak's feed (platforms/rechtspraak/caselaw), which answers words for the
// one platform without a word search: the fan-out, rechtspraak_search's
// query and the status page use it. docs/caselaw.md says how it harvests.
type CaseLawConfig struct {
	// Since is the harvested scope: a year ("2015") or a date
	// (YYYY-MM-DD) from which decisions are kept, or "all" for the whole
	// feed (about 3.2 million decisions). Default DefaultCaseLawSince.
	Since string `json:"since,omitempty"`
	// Interval is the wait between incremental passes (what changed since
	// the last complete pass). Default 1h, at least 1m.
	Interval caddy.Duration `json:"interval,omitempty"`
	// Dir holds the index. Default: <cache dir>/caselaw; required when
	// the cache directory is off.
	Dir string `json:"dir,omitempty"`
}

// DefaultCaseLawSince is the default scope: the decisions of the last
// decade, which hold nearly every summary (older entries mostly carry
// "-" as inhoudsindicatie, so words find little in them) at about a
// third of the feed's size (docs/caselaw.md).
const DefaultCaseLawSince = "2015"

// minCaseLawInterval bounds Interval from below: a pass costs at least
// one request to the feed.
const minCaseLawInterval = time.Minute

// caseLawKeeper holds one index and its harvester for the process,
// counted in the pool under its directory and settings, so it survives a
// reload that keeps them. A reload that changes them makes a new keeper,
// which opens the index once the old config's keeper has let it go.
type caseLawKeeper struct {
	key    string        // in the pool
	turn   chan struct{} // the directory's turn (Figures.caseLawDirs), held from open to close
	held   bool          // this keeper holds turn (set by run, read by Destruct after run ended)
	dir    string
	logger *zap.Logger
	cancel context.CancelFunc
	done   chan struct{}

	mu        sync.Mutex
	index     *caselaw.Index
	harvester *caselaw.Harvester
	report    caselaw.OpenReport
	openErr   error
	// loggedBroken: the index's failure, found by a search, is in the
	// log; the public answers show only its kind.
	loggedBroken bool
}

// caseLawKey is the pool's key of the keeper of dir under cfg.
func caseLawKey(dir string, cfg CaseLawConfig) string {
	return fmt.Sprintf("caselaw:%s|%s|%v", dir, cfg.since(), time.Duration(cfg.Interval))
}

// checkCaseLaw checks the case-law settings at Provision.
func (a *App) checkCaseLaw() error {
	c := a.CaseLaw
	if c == nil {
		return nil
	}
	if c.Since != "all" {
		if _, err := caselaw.ParseScope(c.since()); err != nil {
			return fmt.Errorf("besluitbron: caselaw since %q: give a year, a date YYYY-MM-DD or all", c.Since)
		}
	}
	if c.Interval != 0 && time.Duration(c.Interval) < minCaseLawInterval {
		return fmt.Errorf("besluitbron: caselaw interval %v: give at least %v", time.Duration(c.Interval), minCaseLawInterval)
	}
	if a.caseLawDir() == "" {
		return errors.New("besluitbron: caselaw needs a directory: set caselaw { dir <path> } or a cache_dir")
	}
	return nil
}

// since is the harvester's scope ("" for the whole feed).
func (c *CaseLawConfig) since() string {
	switch c.Since {
	case "":
		return DefaultCaseLawSince
	case "all":
		return ""
	}
	return c.Since
}

func (a *App) caseLawDir() string {
	if a.CaseLaw.Dir != "" {
		return a.CaseLaw.Dir
	}
	if d := a.CacheDirectory(); d != "" {
		return filepath.Join(d, "caselaw")
	}
	return ""
}

// startCaseLaw takes the keeper of this config's index from the pool,
// starting it when it is new.
func (a *App) startCaseLaw() error {
	if a.CaseLaw == nil {
		return nil
	}
	dir := a.caseLawDir()
	cfg := *a.CaseLaw
	key := caseLawKey(dir, cfg)
	v, _, err := pool.LoadOrNew(key, func() (caddy.Destructor, error) {
		k := a.newCaseLawKeeper(dir, cfg)
		k.key = key
		return k, nil
	})
	if err != nil {
		return fmt.Errorf("besluitbron: the case-law index: %w", err)
	}
	a.staged.mu.Lock()
	a.staged.caseLaw = v.(*caseLawKeeper)
	a.staged.mu.Unlock()
	return nil
}

// stopCaseLaw releases this config's hold on the keeper.
func (a *App) stopCaseLaw() {
	a.staged.mu.Lock()
	k := a.staged.caseLaw
	a.staged.caseLaw = nil
	a.staged.mu.Unlock()
	if k != nil {
		_, _ = pool.Delete(k.key)
	}
}

// caseLaw is the keeper this config holds; nil when it keeps no index or
// has not started.
func (a *App) caseLaw() *caseLawKeeper {
	a.staged.mu.Lock()
	defer a.staged.mu.Unlock()
	return a.staged.caseLaw
}

// newCaseLawKeeper opens the index under dir and harvests into it until
// Destruct, asking the feed through the running server's Rechtspraak
// route as the shared session, only when visitors leave room in its
// budget (visitorsFirst).
func (a *App) newCaseLawKeeper(dir string, cfg CaseLawConfig) *caseLawKeeper {
	ctx, cancel := context.WithCancel(context.Background())
	turn, _ := a.figures.caseLawDirs.LoadOrStore(dir, make(chan struct{}, 1))
	k := &caseLawKeeper{dir: dir, turn: turn.(chan struct{}), logger: a.logger, cancel: cancel, done: make(chan struct{})}
	figures := a.figures
	budget := func() (replica.BudgetRoom, bool) {
		st, ok := figures.Budget(platforms.Rechtspraak)
		return replica.BudgetRoom{Waiting: st.Waiting, Available: st.Available, Capacity: st.Capacity}, ok
	}
	hc := caselaw.HarvesterConfig{
		Fetch:    a.feedFetcher(),
		Gate:     replica.VisitorsFirst(budget, a.clock, replica.VisitorsFirstPoll),
		Clock:    a.clock,
		Interval: time.Duration(cfg.Interval),
		Since:    cfg.since(),
	}
	a.shareCaseLaw(ctx, &hc) // one harvest for several instances
	go k.run(ctx, hc)
	return k
}

// run opens the index, waiting while another keeper (of the config
// before a reload) still uses the directory, then harvests.
func (k *caseLawKeeper) run(ctx context.Context, hc caselaw.HarvesterConfig) {
	defer close(k.done)
	select {
	case k.turn <- struct{}{}:
		k.held = true
	case <-ctx.Done():
		return
	}
	var idx *caselaw.Index
	for {
		var report caselaw.OpenReport
		var err error
		idx, report, err = caselaw.Open(k.dir)
		k.mu.Lock()
		k.report, k.openErr = report, err
		k.mu.Unlock()
		if err == nil {
			break
		}
		if !errors.Is(err, caselaw.ErrLocked) {
			k.logf("opening the case-law index", err)
			return
		}
		if clock.Sleep(ctx, hc.Clock, time.Second) != nil {
			return
		}
	}
	if report := k.openReport(); report.Rebuilt && k.logger != nil {
		k.logger.Warn("the case-law index was made by another build: rebuilt empty, harvesting starts over",
			zap.String("dir", k.dir), zap.String("reason", report.Reason))
	}
	hc.Index = idx
	h, err := caselaw.NewHarvester(hc)
	if err != nil {
		k.logf("starting the case-law harvester", err)
		_ = idx.Close()
		return
	}
	k.mu.Lock()
	k.index, k.harvester = idx, h
	k.mu.Unlock()
	if err := h.Run(ctx); err != nil && ctx.Err() == nil {
		k.logf("harvesting Rechtspraak's feed stopped", err)
	}
}

func (k *caseLawKeeper) openReport() caselaw.OpenReport {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.report
}

// noteBroken logs, once, the failure a search found in the open index:
// a failure found by a write stops the harvest, which logs it.
func (k *caseLawKeeper) noteBroken(err error) {
	k.mu.Lock()
	first := !k.loggedBroken
	k.loggedBroken = true
	k.mu.Unlock()
	if first {
		k.logf("the case-law index stopped answering searches", err)
	}
}

func (k *caseLawKeeper) logf(msg string, err error) {
	if k.logger != nil {
		k.logger.Error(msg, zap.String("dir", k.dir), zap.Error(err))
	}
}

// Destruct stops harvesting, waits for it, and closes the index.
func (k *caseLawKeeper) Destruct() error {
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
func (k *caseLawKeeper) state() (*caselaw.Index, *caselaw.Harvester, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch {
	case k.index != nil:
		return k.index, k.harvester, nil
	case k.openErr != nil:
		return nil, nil, k.openErr
	}
	return nil, nil, errOpening
}

// errOpening is the keeper's state until its index is open.
var errOpening = errors.New("the index is being opened")

// CaseLawStatus is the case-law index's state as the status page, the
// admin API and the metrics show it.
type CaseLawStatus struct {
	Dir       string `json:"-"` // the admin API only
	Decisions uint64 `json:"decisions"`
	Running   bool   `json:"running"`
	PagesDone int    `json:"pages_done"`
	// PagesLeft is -1 until the pass's first page gave the feed's count.
	PagesLeft     int    `json:"pages_left"`
	SecondsLeft   int64  `json:"seconds_left,omitempty"`
	CompleteUpTo  string `json:"complete_up_to,omitempty"` // RFC 3339; "" before the first complete pass
	NextPass      string `json:"next_pass,omitempty"`
	LastError     string `json:"last_error,omitempty"` // the last failed page, kept after recovery
	FailuresInRow int    `json:"failures_in_row,omitempty"`
	// Opening: the index is being opened (after a start or reload; it
	// waits while the config before holds it).
	Opening bool `json:"opening,omitempty"`
	// Error says why the index cannot answer, "" when it can: only the
	// kind of failure ("index unavailable: corrupt"), for anyone to read.
	Error string `json:"error,omitempty"`

	completeUpTo time.Time // for the metrics
	// errorDetail is the failure as the operator reads it (the admin API,
	// the log): the directory, the system's words for the cause, and
	// what to do. Never on a public answer.
	errorDetail string
}

// CaseLawStatus is the state of this config's case-law index; false when
// it keeps none.
func (a *App) CaseLawStatus() (CaseLawStatus, bool) {
	k := a.caseLaw()
	if k == nil {
		return CaseLawStatus{}, false
	}
	st := CaseLawStatus{Dir: k.dir, PagesLeft: -1}
	idx, h, err := k.state()
	switch {
	case errors.Is(err, errOpening):
		st.Opening = true
		return st, true
	case err != nil:
		st.Error, st.errorDetail = caselaw.PublicReason(err), err.Error()
		return st, true
	}
	p := h.Progress()
	st.Decisions, st.Running, st.PagesDone, st.PagesLeft = p.Records, p.Running, p.PagesDone, p.PagesLeft
	st.SecondsLeft, st.FailuresInRow, st.completeUpTo = int64(p.TimeLeft.Seconds()), p.FailuresInRow, p.CompleteUpTo
	if !p.CompleteUpTo.IsZero() {
		st.CompleteUpTo = p.CompleteUpTo.UTC().Format(time.RFC3339)
	}
	if !p.NextPass.IsZero() {
		st.NextPass = p.NextPass.UTC().Format(time.RFC3339)
	}
	if p.LastError != nil {
		st.LastError = p.LastError.Error()
	}
	stopped := p.Stopped
	if stopped == nil {
		stopped = idx.Err() // a search found it broken; the harvest may not have tried since
	}
	if stopped != nil {
		st.Error, st.errorDetail = caselaw.PublicReason(stopped), stopped.Error()
	}
	return st, true
}

// CaseLawIndex is this config's case-law index as Rechtspraak's surface
// asks it; nil when the config keeps none.
func (a *App) CaseLawIndex() rechtspraak.WordIndex {
	if a.CaseLaw == nil {
		return nil
	}
	return caseLawWords{a: a}
}
