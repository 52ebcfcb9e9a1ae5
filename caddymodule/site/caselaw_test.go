package site_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/besluitbron/besluitbron/fanout"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/internal/testtier"
	rsfeed "github.com/besluitbron/besluitbron/platforms/rechtspraak"
	rechtspraak "github.com/besluitbron/besluitbron/platforms/rechtspraak/emulator"
	"github.com/besluitbron/besluitbron/replica"
)

// caseLawHouse serves Rechtspraak's emulator at a fixed moment (its feed
// does not change while the test runs), counting the feed pages asked,
// and a site whose besluitbron app keeps the case-law index in dir.
type caseLawHouse struct {
	base, emu, dir, since string
	pages                 atomic.Int64
	port                  int
}

func newCaseLawHouse(t *testing.T, since string) *caseLawHouse {
	testtier.Full(t, "a harvest of thousands of decisions")
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	h := &caseLawHouse{dir: filepath.Join(t.TempDir(), "caselaw"), since: since, port: testproc.FreePort(t)}
	emu := rechtspraak.New(rechtspraak.Config{Seed: 1, Clock: fakeclock.New(at)})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/uitspraken/zoeken" {
			h.pages.Add(1)
		}
		emu.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	h.emu, h.base = srv.URL, fmt.Sprintf("http://127.0.0.1:%d", h.port)
	return h
}

// load starts (or starts again) the house over the same index directory.
func (h *caseLawHouse) load(t *testing.T) {
	t.Helper()
	testcaddy.Load(t, fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
	besluitbron {
		allow_private 127.0.0.1/8
		caselaw {
			since %s
			dir %s
		}
		platform rechtspraak {
			base_url %s
		}
	}
}
http://:%d {
	handle_path /platforms/rechtspraak/* {
		route {
			platform_cache rechtspraak
			platform_limit rechtspraak
			platform_proxy rechtspraak
		}
	}
	besluitbron_site {
		platforms rechtspraak
		deadline 1m
	}
}
`, h.since, h.dir, h.emu, h.port))
}

// status is /status.json's case-law part.
func (h *caseLawHouse) status(t *testing.T) replica.Status {
	t.Helper()
	var st struct{ CaseLaw *replica.Status }
	if err := json.Unmarshal([]byte(get(t, h.base+"/status.json", nil)), &st); err != nil {
		t.Fatal(err)
	}
	if st.CaseLaw == nil {
		t.Fatal("/status.json shows no case-law index")
	}
	return *st.CaseLaw
}

// await polls /status.json until ok says so: an event, with a bound.
func (h *caseLawHouse) await(t *testing.T, what string, ok func(replica.Status) bool) replica.Status {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		st := h.status(t)
		if ok(st) {
			return st
		}
		if st.Error != "" || time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %+v", what, st)
		}
		time.Sleep(50 * time.Millisecond) // a poll of the house's state, not a wait for time to pass
	}
}

// feedTotal asks the emulator how many decisions with a document the
// feed holds in the harvested scope, up to the pass's bound.
func (h *caseLawHouse) feedTotal(t *testing.T, until time.Time) int {
	t.Helper()
	p := rsfeed.FeedParams{ModifiedUntil: until, Max: 1}
	if h.since != "all" {
		p.DateFrom, p.DateTo = h.since, "2026-12-31"
		if len(h.since) == len("2006") {
			p.DateFrom += "-01-01"
		}
	}
	r, err := rsfeed.FeedRequest(p)
	if err != nil {
		t.Fatal(err)
	}
	code, body := fetch(t, h.emu+r.Path, nil)
	if code != http.StatusOK {
		t.Fatalf("emulator: HTTP %d", code)
	}
	feed, err := rsfeed.ParseFeed([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	h.pages.Add(-1) // not the harvest's
	return feed.Total
}

// TestCaseLawThroughCaddy harvests Rechtspraak's feed through the route
// (cache, budget, proxy), stops the house halfway and starts it again
// over the same directory: the harvest resumes where it stopped, ends
// with every decision of the scope in the index once, and the page's
// search then finds rulings by words, says where they came from, and
// reads a hit's full text from the platform.
//
// Without the race detector it harvests the emulator's whole feed (over
// 100,000 decisions); under it, the decisions since 1 September 2025 (eight
// pages: enough to stop after three and find some left).
func TestCaseLawThroughCaddy(t *testing.T) {
	since := "all"
	if raceDetector {
		since = "2025-09-01"
	}
	h := newCaseLawHouse(t, since)
	h.load(t)
	st := h.await(t, "half the pages", func(st replica.Status) bool { return st.PagesDone >= 3 && st.PagesDone >= st.PagesLeft })
	if st.CompleteUpTo != "" {
		t.Fatalf("complete before the first pass ended: %+v", st)
	}
	// Stop halfway, as a restart would.
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	before := h.pages.Load()
	h.load(t)
	st = h.await(t, "the first complete pass", func(st replica.Status) bool { return st.CompleteUpTo != "" })
	until, err := time.Parse(time.RFC3339, st.CompleteUpTo)
	if err != nil {
		t.Fatal(err)
	}
	want := h.feedTotal(t, until)
	if st.Records != uint64(want) {
		t.Fatalf("the index holds %d decisions, the feed %d in scope", st.Records, want)
	}
	// Resumed, not started over: after the restart it asked the pages
	// left, give or take a few (a page asked before and never stored is
	// asked again; each page starts a second before the last one's end,
	// platforms/rechtspraak/caselaw/paging.go, so a pass reads a little more than
	// its count).
	pagesTotal := int64(want+999) / 1000
	if after := h.pages.Load() - before; after > pagesTotal-before+3 {
		t.Errorf("after the restart the harvest asked %d pages, %d were left of %d: it started over", after, pagesTotal-before, pagesTotal)
	}
	t.Logf("%d decisions in %d pages; %d asked before the restart, %d after", want, pagesTotal, before, h.pages.Load()-before)

	// Words now find rulings, from the index, in BM25 order.
	var res fanout.Result
	body := get(t, h.base+"/search?q="+url.QueryEscape("stikstof vergunning")+"&platforms=rechtspraak", http.Header{"Accept": {"application/json"}})
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatal(err)
	}
	o := res.Outcomes[0]
	if o.State != fanout.StateAnswered || o.Hits == 0 || !strings.Contains(o.Provenance, "complete up to") {
		t.Fatalf("Rechtspraak's outcome %+v", o)
	}
	hit := res.Hits[0]
	if !strings.HasPrefix(hit.ID, "ECLI:NL:") {
		t.Fatalf("first hit %+v", hit)
	}
	// The full text comes from the platform, as for any ruling.
	page := get(t, h.base+"/lezen?platform=rechtspraak&id="+url.QueryEscape(hit.ID), nil)
	if !strings.Contains(page, hit.ID) {
		t.Fatalf("the reader does not show %s", hit.ID)
	}
}
