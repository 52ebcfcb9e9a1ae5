package ob_test

import (
	"context"
	"net/http"
	"net/url"
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
	"github.com/besluitbron/besluitbron/platforms/ob"
	"github.com/besluitbron/besluitbron/platforms/ob/emulator"
	"github.com/besluitbron/besluitbron/replica"
)

var harvestStart = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// emulatorFetch is the emulator as the harvest's fetch sees it through
// the route: a non-2xx answer is the route's RouteError.
func emulatorFetch(h http.Handler) replica.Fetch { return replicatest.Fetch(platforms.OB, h, nil) }

// published lists every official publication that appeared on or after
// since, from an emulator that cuts no page.
func published(t *testing.T, clk *fakeclock.Clock, since string) map[string]bool {
	t.Helper()
	fetch := emulatorFetch(emulator.New(emulator.Config{Seed: 1, Clock: clk}))
	out := map[string]bool{}
	for offset := 0; ; offset += 1000 {
		q := url.Values{"operation": {"searchRetrieve"}, "version": {"2.0"}, "query": {"c.product-area==officielepublicaties and dt.available>=" + since},
			"startRecord": {strconv.Itoa(offset + 1)}, "maximumRecords": {"1000"}}
		body, _, err := fetch(context.Background(), adapters.Get(ob.SRUPath, q))
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

func publications(t *testing.T) replica.Provider {
	t.Helper()
	p, ok := platforms.ProviderOf(platforms.OB)
	if !ok {
		t.Fatal("ob is not registered")
	}
	return p.(replica.Provider)
}

type held struct {
	idx replica.Index
	h   replica.Harvester
}

func (h held) Current() (replica.Index, replica.Harvester, error) { return h.idx, h.h, nil }
func (held) Broken(error)                                         {}

// The emulator cuts every page at 100 records without a word: the
// harvest of the default scope (2024 on) by modification date still
// brings every publication of the scope into the replica exactly once.
// Then ob_search's questions through the surface: from the replica as
// the platform answers them, from the platform where the replica cannot
// (full text, no match, before its scope), saying why.
func TestReplicaHoldsThePublicationsAndAnswers(t *testing.T) {
	clk := fakeclock.New(harvestStart)
	p := publications(t)
	scope, err := p.Scope(replica.ScopeConfig{Since: p.Replica().DefaultScope})
	if err != nil || scope != "2024-01-01" {
		t.Fatalf("default scope %q %v", scope, err)
	}
	want := published(t, clk, scope)
	idx, _, err := p.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idx.Close() })
	emu := emulator.New(emulator.Config{Seed: 1, Clock: clk, MaxRecords: 100})
	hv, err := p.Harvester(idx, replica.Harvest{Fetch: emulatorFetch(emu), Clock: clk, Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	if err := hv.(*datereplica.Harvester).Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for offset := 0; ; offset += 100 {
		res, err := idx.(*datereplica.Index).Search(context.Background(), datereplica.Query{Limit: 100, Offset: offset, Order: datereplica.OrderOldest})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			if got[h.ID] {
				t.Fatalf("%s held twice", h.ID)
			}
			got[h.ID] = true
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
	if len(got) != len(want) || len(want) < 1000 {
		t.Fatalf("held %d publications, the emulator has %d since %s", len(got), len(want), scope)
	}

	surface := ob.SurfaceWith(nil, p.(replica.Offerer).Offer(held{idx, hv}, clk).(datereplica.Searcher))
	var asked int
	env := adapters.Env{Now: clk.Now(), Get: func(ctx context.Context, _ string, req adapters.Request) ([]byte, error) {
		asked++
		body, _, err := emulatorFetch(emu)(ctx, req)
		return body, err
	}}
	ask := func(q adapters.Question) adapters.Page {
		t.Helper()
		asked = 0
		page, err := surface.Search(context.Background(), env, q)
		if err != nil {
			t.Fatal(err)
		}
		return page
	}
	// Filters the replica holds answer as the platform does: the same
	// publications, newest first.
	for _, q := range []adapters.Question{
		{Organisation: "Utrecht", From: "2025-01-01", Limit: 100},
		{From: "2026-06-01", To: "2026-06-30", Limit: 100},
	} {
		local := ask(q)
		if asked != 0 || !strings.Contains(local.Provenance, "complete up to "+harvestStart.Format(time.RFC3339)) {
			t.Fatalf("%+v: %d platform requests, provenance %q", q, asked, local.Provenance)
		}
		remote, err := ob.Surface(nil).Search(context.Background(), env, q)
		if err != nil {
			t.Fatal(err)
		}
		if local.Total != remote.Total || len(local.Hits) != len(remote.Hits) || len(local.Hits) == 0 {
			t.Fatalf("%+v: the replica %d (%d hits), the platform %d (%d hits)", q, local.Total, len(local.Hits), remote.Total, len(remote.Hits))
		}
		for i := range local.Hits {
			l, r := local.Hits[i], remote.Hits[i]
			if l.ID != r.ID || l.Title != r.Title || l.Date != r.Date || l.Type != r.Type || l.Source != r.Source || l.URL != r.URL || l.Citation != r.Citation {
				t.Errorf("%+v: hit %d: the replica's %+v, the platform's %+v", q, i, l, r)
			}
		}
	}
	if words := ask(adapters.Question{Words: "omgevingsvergunning", Limit: 5}); asked != 0 || len(words.Hits) == 0 ||
		!strings.Contains(words.Provenance, "not in the text") {
		t.Errorf("words: %d platform requests, provenance %q", asked, words.Provenance)
	}
	for q, why := range map[adapters.Question]string{
		{Words: "omgevingsvergunning", Limit: 5, FullText: true}:   "full_text asks for words inside the publications",
		{Words: "xyzzyplugh", Limit: 5}:                            "the replica holds no match",
		{Words: "omgevingsvergunning", To: "2020-12-31", Limit: 5}: "the replica keeps 2024-01-01 on",
	} {
		if page := ask(q); asked != 1 || !strings.HasPrefix(page.Provenance, "asked Officiële Bekendmakingen: "+why) {
			t.Errorf("%+v: %d platform requests, provenance %q", q, asked, page.Provenance)
		}
	}
}
