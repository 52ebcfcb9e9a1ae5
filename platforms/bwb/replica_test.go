package bwb_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/koopsru"
	"github.com/besluitbron/besluitbron/adapters/koopsru/datereplica"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/replicatest"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/bwb"
	emu "github.com/besluitbron/besluitbron/platforms/bwb/emulator"
	"github.com/besluitbron/besluitbron/replica"
)

var harvestStart = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// emulatorFetch is the emulator as the harvest's fetch sees it through
// the route: a non-2xx answer is the route's RouteError.
func emulatorFetch(h http.Handler) replica.Fetch { return replicatest.Fetch(platforms.BWB, h, nil) }

// allVersions lists every version the emulator holds ("<id>_<from>"),
// read with cql.allRecords from an emulator that cuts no page.
func allVersions(t *testing.T, generated int) map[string]bool {
	t.Helper()
	fetch := emulatorFetch(emu.New(emu.Config{Generated: generated}))
	out := map[string]bool{}
	for offset := 0; ; offset += 1000 {
		body, _, err := fetch(context.Background(), adapters.Get(bwb.SearchPath, koopsru.SearchRetrieve("BWB", "cql.allRecords=1", offset, 1000)))
		if err != nil {
			t.Fatal(err)
		}
		var resp struct {
			Total   int `xml:"numberOfRecords"`
			Records []struct {
				ID   string `xml:"recordData>gzd>originalData>meta>owmskern>identifier"`
				From string `xml:"recordData>gzd>originalData>meta>bwbipm>geldigheidsperiode_startdatum"`
			} `xml:"records>record"`
		}
		if err := koopsru.Decode(body, &resp); err != nil {
			t.Fatal(err)
		}
		for _, r := range resp.Records {
			out[r.ID+"_"+r.From] = true
		}
		if offset+1000 >= resp.Total {
			return out
		}
	}
}

func laws(t *testing.T) replica.Provider {
	t.Helper()
	p, ok := platforms.ProviderOf(platforms.BWB)
	if !ok {
		t.Fatal("bwb is not registered")
	}
	return p.(replica.Provider)
}

type held struct {
	idx replica.Index
	h   replica.Harvester
}

func (h held) Current() (replica.Index, replica.Harvester, error) { return h.idx, h.h, nil }
func (held) Broken(error)                                         {}

// harvest runs one complete pass of the laws' replica over the emulator.
func harvest(t *testing.T, h http.Handler, clk *fakeclock.Clock) (*datereplica.Index, *datereplica.Harvester) {
	t.Helper()
	p := laws(t)
	idx, _, err := p.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idx.Close() })
	hv, err := p.Harvester(idx, replica.Harvest{Fetch: emulatorFetch(h), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	dh := hv.(*datereplica.Harvester)
	if err := dh.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	return idx.(*datereplica.Index), dh
}

// The emulator cuts every page at 100 records without a word: the
// harvest by modification date still brings every version of every
// regulation into the replica exactly once.
func TestReplicaHoldsEveryVersionDespiteASilentCap(t *testing.T) {
	const generated = 3000
	want := allVersions(t, generated)
	if len(want) < generated {
		t.Fatalf("the emulator lists %d versions", len(want))
	}
	clk := fakeclock.New(harvestStart)
	idx, h := harvest(t, emu.New(emu.Config{Generated: generated, PageCap: 100, Clock: clk}), clk)
	got := map[string]bool{}
	for offset := 0; ; offset += 100 {
		res, err := idx.Search(context.Background(), datereplica.Query{Limit: 100, Offset: offset, Order: datereplica.OrderOldest})
		if err != nil {
			t.Fatal(err)
		}
		for _, hit := range res.Hits {
			if got[hit.ID] {
				t.Fatalf("%s held twice", hit.ID)
			}
			got[hit.ID] = true
		}
		if len(res.Hits) < 100 {
			break
		}
	}
	for id := range want {
		if !got[id] {
			t.Errorf("%s is missing", id)
		}
	}
	if len(got) != len(want) {
		t.Errorf("held %d versions, the emulator has %d", len(got), len(want))
	}
	if p := h.Progress(); !p.CompleteUpTo.Equal(harvestStart) || len(p.Unread) != 0 || p.Records != uint64(len(want)) {
		t.Errorf("progress %+v", p)
	}
}

// bwb_search's question through the surface: from the replica once it
// has caught up (no platform request; provenance "complete up to"), from
// the platform before that and for what it cannot answer, saying why; and
// from the replica, with its freshness, while the platform is down.
func TestSurfaceAnswersFromTheReplica(t *testing.T) {
	clk := fakeclock.New(harvestStart)
	h := emu.New(emu.Config{Generated: 500, Clock: clk})
	p := laws(t)
	idx, _, err := p.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idx.Close() })
	hv, err := p.Harvester(idx, replica.Harvest{Fetch: emulatorFetch(h), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	local := p.(replica.Offerer).Offer(held{idx, hv}, clk).(datereplica.Searcher)
	surface := bwb.SurfaceWith(local)
	var asked []string
	env := adapters.Env{Now: clk.Now(), Get: func(_ context.Context, _ string, req adapters.Request) ([]byte, error) {
		asked = append(asked, req.Path)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, req.Path, nil))
		return rec.Body.Bytes(), nil
	}}
	ask := func(q adapters.Question) adapters.Page {
		t.Helper()
		asked = nil
		page, err := surface.Search(context.Background(), env, q)
		if err != nil {
			t.Fatal(err)
		}
		return page
	}
	q := adapters.Question{Words: "belastingcapaciteit", Limit: 5}
	if page := ask(q); len(asked) != 1 || page.Provenance != "asked Wetten (Basiswettenbestand): the replica is still being built" {
		t.Fatalf("before a pass: asked %v, provenance %q", asked, page.Provenance)
	}
	platformPage := ask(q)
	if err := hv.(*datereplica.Harvester).Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	page := ask(q)
	if len(asked) != 0 || !strings.Contains(page.Provenance, "complete up to "+harvestStart.Format(time.RFC3339)) {
		t.Fatalf("caught up: asked %v, provenance %q", asked, page.Provenance)
	}
	if len(page.Hits) != 1 || len(platformPage.Hits) != 1 || page.Hits[0].ID != platformPage.Hits[0].ID ||
		page.Hits[0].Title != platformPage.Hits[0].Title || page.Hits[0].Date != platformPage.Hits[0].Date ||
		page.Hits[0].URL != platformPage.Hits[0].URL || page.Hits[0].Snippet != platformPage.Hits[0].Snippet {
		t.Errorf("the replica's hits %+v, the platform's %+v", page.Hits, platformPage.Hits)
	}
	// The words of a generated regulation, in force on a day: the
	// replica and the platform find the same regulations.
	for _, q := range []adapters.Question{{Words: "woningbouw", Limit: 50}, {Words: "Regeling", To: "2010-06-01", Limit: 50}} {
		local := ask(q)
		asked = nil
		remote, err := bwb.Surface().Search(context.Background(), env, q)
		if err != nil {
			t.Fatal(err)
		}
		if local.Total != remote.Total || len(local.Hits) != len(remote.Hits) {
			t.Errorf("%+v: the replica finds %d (%d hits), the platform %d (%d hits)", q, local.Total, len(local.Hits), remote.Total, len(remote.Hits))
		}
	}
	// The platform down: the replica still answers, saying how fresh.
	env.Get = func(context.Context, string, adapters.Request) ([]byte, error) {
		return nil, adapters.Classify(platforms.BWB, http.StatusBadGateway, false, 0, false, nil)
	}
	if down := ask(q); len(down.Hits) != 1 || !strings.Contains(down.Provenance, "complete up to") {
		t.Fatalf("the platform down: %+v", down)
	}
}

// The scope: a year or a date, nothing else; no sources.
func TestReplicaScope(t *testing.T) {
	p := laws(t)
	for in, want := range map[string]string{"": "", "2015": "2015-01-01", "2015-06-01": "2015-06-01", "all": ""} {
		if got, err := p.Scope(replica.ScopeConfig{Since: in}); err != nil || got != want {
			t.Errorf("%q: %q %v", in, got, err)
		}
	}
	for _, bad := range []replica.ScopeConfig{{Since: "gisteren"}, {Since: "2015-13-01"}, {Sources: []string{"x"}}} {
		if _, err := p.Scope(bad); err == nil {
			t.Errorf("%+v taken", bad)
		}
	}
}

// The platform misbehaving mid-harvest (a page of broken XML, a 503 with
// Retry-After, a 429) costs waits, never versions: the harvester waits at
// least the Retry-After, asks again, and ends with every version once.
func TestHarvestSurvivesAHostilePlatform(t *testing.T) {
	const generated = 500
	want := allVersions(t, generated)
	clk := fakeclock.New(harvestStart)
	e := emu.New(emu.Config{Generated: generated, PageCap: 100, Clock: clk})
	n := 0
	hostile := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		switch n {
		case 2:
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, r)
			_, _ = w.Write(rec.Body.Bytes()[:rec.Body.Len()/2]) // cut mid-record, 200
		case 4:
			w.Header().Set("Retry-After", "90")
			w.WriteHeader(http.StatusServiceUnavailable)
		case 6:
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			e.ServeHTTP(w, r)
		}
	})
	fetch := func(_ context.Context, req adapters.Request) ([]byte, http.Header, error) {
		rec := httptest.NewRecorder()
		hostile.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, req.Path, nil))
		if rec.Code/100 != 2 {
			retry, err := strconv.Atoi(rec.Header().Get("Retry-After"))
			return nil, nil, adapters.Classify(platforms.BWB, rec.Code, false, retry, err == nil, rec.Body.Bytes())
		}
		return rec.Body.Bytes(), rec.Header(), nil
	}
	p := laws(t)
	idx, _, err := p.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idx.Close() })
	hv, err := p.Harvester(idx, replica.Harvest{Fetch: fetch, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- hv.(*datereplica.Harvester).Pass(context.Background()) }()
	var waits []time.Duration
	for len(waits) < 3 {
		due := clk.AwaitTimer()
		waits = append(waits, due.Sub(clk.Now()))
		clk.AdvanceTo(due)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if waits[1] < 90*time.Second || waits[2] < 30*time.Second {
		t.Errorf("waits %v: a Retry-After was not kept", waits)
	}
	if got, err := idx.(*datereplica.Index).Count(); err != nil || got != uint64(len(want)) {
		t.Errorf("held %d versions, want %d (%v)", got, len(want), err)
	}
	if pr := hv.Progress(); pr.LastError == nil || pr.FailuresInRow != 0 || pr.CompleteUpTo.IsZero() {
		t.Errorf("progress %+v", pr)
	}
}
