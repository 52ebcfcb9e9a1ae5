package cvdr_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/koopsru"
	"github.com/besluitbron/besluitbron/adapters/koopsru/datereplica"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/replicatest"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/cvdr"
	emu "github.com/besluitbron/besluitbron/platforms/cvdr/emulator"
	"github.com/besluitbron/besluitbron/replica"
)

var harvestStart = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// emulatorFetch is the emulator as the harvest's fetch sees it through
// the route: a non-2xx answer is the route's RouteError.
func emulatorFetch(h http.Handler) replica.Fetch { return replicatest.Fetch(platforms.CVDR, h, nil) }

// allVersions lists every version the emulator holds, read with
// cql.allRecords from an emulator that cuts no page.
func allVersions(t *testing.T, generated int) map[string]bool {
	t.Helper()
	fetch := emulatorFetch(emu.NewWith(emu.Config{Generated: generated}))
	out := map[string]bool{}
	for offset := 0; ; offset += 1000 {
		body, _, err := fetch(context.Background(), adapters.Get(cvdr.SearchPath, koopsru.SearchRetrieve("cvdr", "cql.allRecords=1", offset, 1000)))
		if err != nil {
			t.Fatal(err)
		}
		var resp struct {
			Total int      `xml:"numberOfRecords"`
			IDs   []string `xml:"records>record>recordData>gzd>originalData>meta>owmskern>identifier"`
		}
		if err := koopsru.Decode(body, &resp); err != nil {
			t.Fatal(err)
		}
		for _, id := range resp.IDs {
			out[id] = true
		}
		if offset+1000 >= resp.Total {
			return out
		}
	}
}

func localRegulations(t *testing.T) replica.Provider {
	t.Helper()
	p, ok := platforms.ProviderOf(platforms.CVDR)
	if !ok {
		t.Fatal("cvdr is not registered")
	}
	return p.(replica.Provider)
}

type held struct {
	idx replica.Index
	h   replica.Harvester
}

func (h held) Current() (replica.Index, replica.Harvester, error) { return h.idx, h.h, nil }
func (held) Broken(error)                                         {}

func openReplica(t *testing.T, h http.Handler, clk *fakeclock.Clock, since string) (*datereplica.Index, *datereplica.Harvester) {
	t.Helper()
	p := localRegulations(t)
	scope, err := p.Scope(replica.ScopeConfig{Since: since})
	if err != nil {
		t.Fatal(err)
	}
	idx, _, err := p.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idx.Close() })
	hv, err := p.Harvester(idx, replica.Harvest{Fetch: emulatorFetch(h), Clock: clk, Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	return idx.(*datereplica.Index), hv.(*datereplica.Harvester)
}

// The emulator cuts every page at 100 records without a word, as a
// public client reports of the CVDR: the harvest by modification date
// still brings every version into the replica exactly once.
func TestReplicaHoldsEveryVersionDespiteASilentCap(t *testing.T) {
	const generated = 2500
	want := allVersions(t, generated)
	clk := fakeclock.New(harvestStart)
	idx, h := openReplica(t, emu.NewWith(emu.Config{Generated: generated, PageCap: 100}), clk, "all")
	if err := h.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
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
	if len(got) != len(want) || len(want) < generated {
		t.Errorf("held %d versions, the emulator has %d", len(got), len(want))
	}
	if p := h.Progress(); !p.CompleteUpTo.Equal(harvestStart) || len(p.Unread) != 0 {
		t.Errorf("progress %+v", p)
	}
}

// cvdr_search's question through the surface: the replica answers words,
// organisation and in force as the platform does once it has caught up;
// before that, for a day before its scope, or when it holds no match,
// the platform answers and the provenance says why; with the platform
// down the replica still answers.
func TestSurfaceAnswersFromTheReplica(t *testing.T) {
	clk := fakeclock.New(harvestStart)
	h := emu.NewWith(emu.Config{Generated: 600})
	p := localRegulations(t)
	idx, hv := openReplica(t, h, clk, "2016")
	local := p.(replica.Offerer).Offer(held{idx, hv}, clk).(datereplica.Searcher)
	surface := cvdr.SurfaceWith(local)
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
	q := adapters.Question{Words: "parkeren", Organisation: "Kampen", Limit: 50}
	if page := ask(q); len(asked) != 1 || page.Provenance != "asked Lokale regelgeving (CVDR): the replica is still being built" {
		t.Fatalf("before a pass: asked %v, provenance %q", asked, page.Provenance)
	}
	if err := hv.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, q := range []adapters.Question{
		{Words: "parkeren", Organisation: "Kampen", Limit: 50},
		{Words: "Verordening", Organisation: "Soest", Limit: 50},
		{Words: "jeugdhulp", To: "2020-03-01", Limit: 50},
		{Organisation: "Zeeland", Limit: 50},
	} {
		page := ask(q)
		if len(asked) != 0 || !strings.Contains(page.Provenance, "complete up to "+harvestStart.Format(time.RFC3339)) {
			t.Fatalf("%+v: asked %v, provenance %q", q, asked, page.Provenance)
		}
		remote, err := cvdr.Surface().Search(context.Background(), env, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Hits) == 0 || !sameHits(page.Hits, remote.Hits, remote.TotalApprox) {
			t.Errorf("%+v: the replica finds %d hits, the platform %d", q, len(page.Hits), len(remote.Hits))
		}
	}
	for q, why := range map[adapters.Question]string{
		{Words: "parkeren", To: "2012-01-01", Limit: 5}: "the replica keeps what is in force from 2016-01-01 on",
		{Words: "xyzzyplugh", Limit: 5}:                 "the replica holds no match",
	} {
		if page := ask(q); len(asked) != 1 || !strings.HasPrefix(page.Provenance, "asked Lokale regelgeving (CVDR): "+why) {
			t.Errorf("%+v: asked %v, provenance %q", q, asked, page.Provenance)
		}
	}
	env.Get = func(context.Context, string, adapters.Request) ([]byte, error) {
		return nil, adapters.Classify(platforms.CVDR, http.StatusServiceUnavailable, false, 0, false, nil)
	}
	if down := ask(q); len(down.Hits) == 0 || !strings.Contains(down.Provenance, "complete up to") {
		t.Fatalf("the platform down: %+v", down)
	}
}

// sameHits: the same versions, each with the same title, organisation,
// date, link and citation (the platform's order is its own). When the
// platform's page left out versions that ended before the day
// (approximate), every one of its hits is among the replica's.
func sameHits(a, b []adapters.Hit, approx bool) bool {
	key := func(h adapters.Hit) string {
		return strings.Join([]string{h.ID, h.Title, h.Source, h.Date, h.URL, h.Citation, h.Snippet}, "|")
	}
	seen := map[string]int{}
	for _, h := range a {
		seen[key(h)]++
	}
	for _, h := range b {
		seen[key(h)]--
	}
	for _, n := range seen {
		if n < 0 || n > 0 && !approx {
			return false
		}
	}
	return true
}
