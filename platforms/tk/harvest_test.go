package tk_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/tk/feed"
	"github.com/besluitbron/besluitbron/platforms/tk/localindex"
	"github.com/besluitbron/besluitbron/replica"
)

var harvestStart = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// logEntry is one entry of a test's SyncFeed.
type logEntry struct {
	category, guid string
	deleted        bool
	fields         map[string]string
}

// logFeed is a SyncFeed over a log of entries, pages of pageSize entries
// in the Atom shape of the real feed (testdata/fixtures/tk): the token of
// entry i is 1000+i. A test may answer a request itself (hostile).
type logFeed struct {
	mu       sync.Mutex
	log      []logEntry
	pageSize int
	asked    []string
	hostile  func(path string, n int) (status int, retryAfter int, body string, ok bool)
}

func (f *logFeed) add(e ...logEntry) {
	f.mu.Lock()
	f.log = append(f.log, e...)
	f.mu.Unlock()
}

func (f *logFeed) fetch(_ context.Context, req adapters.Request) ([]byte, http.Header, error) {
	f.mu.Lock()
	f.asked = append(f.asked, req.Path)
	n, hostile := len(f.asked), f.hostile
	f.mu.Unlock()
	if hostile != nil {
		if status, retry, body, ok := hostile(req.Path, n); ok {
			if status/100 != 2 {
				return nil, nil, adapters.Classify("tk", status, false, retry, retry > 0, []byte(body))
			}
			return []byte(body), http.Header{}, nil
		}
	}
	return []byte(f.serve(req.Path)), http.Header{}, nil
}

// serve is the page path asks, as the feed holds it now.
func (f *logFeed) serve(path string) string {
	u, _ := url.Parse(path)
	skip, _ := strconv.ParseInt(u.Query().Get("skiptoken"), 10, 64)
	category := strings.ToLower(u.Query().Get("category"))
	f.mu.Lock()
	defer f.mu.Unlock()
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom" xmlns:tk="http://www.tweedekamer.nl/xsd/tkData/v1-0">`)
	link := func(rel string, token int64) {
		fmt.Fprintf(&b, `<link rel="%s" href="https://gegevensmagazijn.tweedekamer.nl/SyncFeed/2.0/Feed?category=%s&amp;skiptoken=%d"/>`, rel, category, token)
	}
	var entries strings.Builder
	count, last := 0, int64(0)
	for i, e := range f.log {
		token := int64(1000 + i)
		if token <= skip || e.category != category || count == f.pageSize {
			continue
		}
		count, last = count+1, token
		fmt.Fprintf(&entries, `<entry><title>%s</title><updated>2026-10-01T10:00:00Z</updated><category term="%s"/>`+
			`<link rel="next" href="https://gegevensmagazijn.tweedekamer.nl/SyncFeed/2.0/Feed?category=%s&amp;skiptoken=%d"/>`+
			`<content type="application/xml"><%s xmlns="http://www.tweedekamer.nl/xsd/tkData/v1-0" id="%s" tk:bijgewerkt="2026-10-01T09:00:00Z" tk:verwijderd="%t">`,
			e.guid, e.category, e.category, token, e.category, e.guid, e.deleted)
		for k, v := range e.fields {
			fmt.Fprintf(&entries, "<%s>%s</%s>", k, v, k)
		}
		fmt.Fprintf(&entries, "</%s></content></entry>", e.category)
	}
	if count == 0 {
		link("resume", skip)
	} else {
		link("next", last)
	}
	b.WriteString(entries.String())
	b.WriteString("</feed>")
	return b.String()
}

func (f *logFeed) paths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.asked...)
}

func guidOf(n int) string { return fmt.Sprintf("00000000-0000-0000-0000-%012d", n) }

func document(n int, titel, datum string) logEntry {
	return logEntry{category: "document", guid: guidOf(n), fields: map[string]string{
		"soort": "Motie", "documentNummer": fmt.Sprintf("2026D%05d", n), "titel": titel, "datum": datum}}
}

// parliament is the Tweede Kamer's registered replica provider.
func parliament(t *testing.T) replica.Provider {
	t.Helper()
	p, ok := platforms.ProviderOf(platforms.TK)
	if !ok {
		t.Fatal("tk is not registered")
	}
	rp, ok := p.(replica.Provider)
	if !ok {
		t.Fatal("tk keeps no replica")
	}
	return rp
}

type running struct {
	h      replica.Harvester
	clk    *fakeclock.Clock
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
	err    error
}

func startHarvest(t *testing.T, idx replica.Index, f *logFeed, clk *fakeclock.Clock, cfg replica.ScopeConfig, gate func(context.Context) error) *running {
	t.Helper()
	p := parliament(t)
	scope, err := p.Scope(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h, err := p.Harvester(idx, replica.Harvest{Fetch: f.fetch, Clock: clk, Gate: gate, Scope: scope, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{h: h, clk: clk, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- h.Run(ctx) }()
	t.Cleanup(func() { r.stop() })
	return r
}

func (r *running) stop() error {
	r.once.Do(func() {
		r.cancel()
		r.err = <-r.done
	})
	return r.err
}

// settle waits until the harvester waits on the clock and returns how
// long it waits.
func (r *running) settle() time.Duration { return r.clk.AwaitTimer().Sub(r.clk.Now()) }

func openParliament(t *testing.T, dir string) *localindex.Index {
	t.Helper()
	idx, _, err := localindex.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	return idx
}

func search(t *testing.T, idx *localindex.Index, words string) []string {
	t.Helper()
	res, err := idx.SearchDocuments(context.Background(), localindex.Query{Words: words, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.Fields["documentNummer"])
	}
	return out
}

// A round reads each category to its end; the next round, after the
// interval, asks only after the skiptoken stored, and finds what came
// since: a new document, a re-sent one (stored once), a deleted one
// (gone).
func TestHarvestFollowsTheFeed(t *testing.T) {
	clk := fakeclock.New(harvestStart)
	f := &logFeed{pageSize: 2}
	for n := 1; n <= 5; n++ {
		f.add(document(n, "Motie over stikstof", "2026-09-0"+strconv.Itoa(n)))
	}
	f.add(logEntry{category: "zaak", guid: guidOf(100), fields: map[string]string{"titel": "Stikstofwet"}})
	idx := openParliament(t, t.TempDir())
	r := startHarvest(t, idx, f, clk, replica.ScopeConfig{Sources: []string{"document", "zaak"}}, nil)

	if wait := r.settle(); wait != time.Hour {
		t.Fatalf("after the first round it waits %v, want the interval", wait)
	}
	p := r.h.Progress()
	if p.Records != 6 || !p.CompleteUpTo.Equal(harvestStart) || p.LastError != nil {
		t.Fatalf("after one round: %+v", p)
	}
	if got := search(t, idx, "stikstof"); len(got) != 5 {
		t.Fatalf("stikstof: %v", got)
	}
	// document: 3 pages of entries and the end page; zaak: 1 and the end.
	if n := len(f.paths()); n != 6 {
		t.Fatalf("asked %d pages: %v", n, f.paths())
	}

	f.add(document(6, "Motie over stikstof en water", "2026-10-01"), document(2, "Motie over stikstof", "2026-09-02"),
		logEntry{category: "document", guid: guidOf(3), deleted: true})
	first := len(f.paths())
	clk.Advance(time.Hour)
	r.settle()
	if got := search(t, idx, "stikstof"); strings.Join(got, " ") != "2026D00006 2026D00005 2026D00004 2026D00002 2026D00001" {
		t.Fatalf("after the second round: %v", got)
	}
	for _, path := range f.paths()[first:] {
		if !strings.Contains(path, "skiptoken=") {
			t.Fatalf("the second round asked %s, from the feed's start", path)
		}
	}
	p = r.h.Progress()
	if !p.CompleteUpTo.Equal(harvestStart.Add(time.Hour)) || p.Records != 6 {
		t.Fatalf("after the second round: %+v", p)
	}
	var cats []string
	for _, s := range p.Sources {
		cats = append(cats, fmt.Sprintf("%s:%d", s.Source, s.Records))
		if !s.CaughtUpAt.Equal(harvestStart.Add(time.Hour)) {
			t.Fatalf("%s caught up at %v", s.Source, s.CaughtUpAt)
		}
	}
	if strings.Join(cats, " ") != "document:5 zaak:1" {
		t.Fatalf("per category: %v", cats)
	}
}

// A harvest stopped part-way resumes at the page after the last one
// stored: no page is asked twice.
func TestHarvestResumesAfterARestart(t *testing.T) {
	clk := fakeclock.New(harvestStart)
	f := &logFeed{pageSize: 2}
	for n := 1; n <= 9; n++ {
		f.add(document(n, "Brief over woningbouw", "2026-09-01"))
	}
	dir := t.TempDir()
	idx := openParliament(t, dir)
	var gates int
	r := startHarvest(t, idx, f, clk, replica.ScopeConfig{Sources: []string{"document"}}, func(context.Context) error {
		if gates++; gates > 2 {
			return errors.New("no room")
		}
		return nil
	})
	r.settle()
	if err := r.stop(); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	before := f.paths()
	if len(before) != 2 {
		t.Fatalf("asked %v before the stop", before)
	}
	r = startHarvest(t, idx, f, clk, replica.ScopeConfig{Sources: []string{"document"}}, nil)
	r.settle()
	seen := map[string]bool{}
	for _, p := range f.paths() {
		if seen[p] {
			t.Fatalf("asked %s twice", p)
		}
		seen[p] = true
	}
	if got := search(t, idx, "woningbouw"); len(got) != 9 {
		t.Fatalf("%d documents after the restart", len(got))
	}
}

// Hostile pages: each ends in a typed state on Progress, stores nothing
// of the bad page and loses nothing stored, and the harvest goes on once
// the platform answers well again.
func TestHarvestSurvivesAHostileFeed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		answer   func(honest func() string) (status, retryAfter int, body string)
		wantKind error
		wantWait time.Duration
	}{
		{"cut off", func(h func() string) (int, int, string) { b := h(); return 200, 0, b[:len(b)/2] }, feed.ErrBadPage, 10 * time.Second},
		{"one entity over the cap", func(h func() string) (int, int, string) {
			return 200, 0, strings.Replace(h(), "<titel>", "<titel>"+strings.Repeat("x", feed.MaxEntityBytes), 1)
		}, feed.ErrBadPage, 10 * time.Second},
		{"the same page forever", func(h func() string) (int, int, string) {
			return 200, 0, strings.ReplaceAll(h(), "skiptoken=1003", "skiptoken=1001")
		}, feed.ErrStuckFeed, 10 * time.Second},
		{"429 with Retry-After", func(func() string) (int, int, string) { return 429, 120, "Too Many Requests" }, nil, 120 * time.Second},
		{"an outage", func(func() string) (int, int, string) { return 503, 0, "Service Unavailable" }, nil, 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := fakeclock.New(harvestStart)
			f := &logFeed{pageSize: 2}
			for n := 1; n <= 6; n++ {
				f.add(document(n, "Motie over defensie", "2026-09-01"))
			}
			var hostileOn sync.Mutex
			bad := true
			f.hostile = func(path string, n int) (int, int, string, bool) {
				hostileOn.Lock()
				defer hostileOn.Unlock()
				if !bad || !strings.Contains(path, "skiptoken=1001") {
					return 0, 0, "", false
				}
				honest := func() string { return f.serve(path) }
				status, retry, body := tc.answer(honest)
				return status, retry, body, true
			}
			idx := openParliament(t, t.TempDir())
			r := startHarvest(t, idx, f, clk, replica.ScopeConfig{Sources: []string{"document"}}, nil)
			if wait := r.settle(); wait != tc.wantWait {
				t.Fatalf("after the bad page it waits %v, want %v", wait, tc.wantWait)
			}
			p := r.h.Progress()
			if p.LastError == nil || p.FailuresInRow != 1 || !p.CompleteUpTo.IsZero() {
				t.Fatalf("after the bad page: %+v", p)
			}
			if tc.wantKind != nil && !errors.Is(p.LastError, tc.wantKind) {
				t.Fatalf("last error %v, want %v", p.LastError, tc.wantKind)
			}
			if got := search(t, idx, "defensie"); len(got) != 2 {
				t.Fatalf("the page before the bad one is kept, nothing of the bad one: %v", got)
			}
			hostileOn.Lock()
			bad = false
			hostileOn.Unlock()
			clk.Advance(tc.wantWait)
			if wait := r.settle(); wait != time.Hour {
				t.Fatalf("after recovering it waits %v", wait)
			}
			if got := search(t, idx, "defensie"); len(got) != 6 {
				t.Fatalf("after recovering: %v", got)
			}
			if p := r.h.Progress(); p.FailuresInRow != 0 || p.CompleteUpTo.IsZero() {
				t.Fatalf("after recovering: %+v", p)
			}
		})
	}
}
