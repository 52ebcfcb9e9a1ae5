package emulator

import (
	"bytes"
	"encoding/xml"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

type feedEntry struct {
	Title   string     `xml:"title"`
	Updated string     `xml:"updated"`
	Link    []atomLink `xml:"link"`
	Content struct {
		Inner string `xml:",innerxml"`
	} `xml:"content"`
	token int64
}

func (e feedEntry) deleted() bool { return strings.Contains(e.Content.Inner, `tk:verwijderd="true"`) }

func tokenOf(t *testing.T, href string) int64 {
	t.Helper()
	u, err := url.Parse(href)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseInt(u.Query().Get("skiptoken"), 10, 64)
	if err != nil {
		t.Fatalf("no skiptoken in %s", href)
	}
	return n
}

// walk pages category (empty: all) from skiptoken from to rel="resume"
// and returns the entries and the token to resume from.
func walk(t *testing.T, h *Emulator, category string, from int64) ([]feedEntry, int64) {
	t.Helper()
	var out []feedEntry
	token := from
	for pages := 0; ; pages++ {
		if pages > 10000 {
			t.Fatal("feed never ends")
		}
		target := "/SyncFeed/2.0/Feed?skiptoken=" + strconv.FormatInt(token, 10)
		if category != "" {
			target += "&category=" + category
		}
		code, body, _ := do(t, h, "GET", target)
		mustOK(t, code, body)
		var f struct {
			Links   []atomLink  `xml:"link"`
			Entries []feedEntry `xml:"entry"`
		}
		if err := xml.Unmarshal(body, &f); err != nil {
			t.Fatal(err)
		}
		feed := atomFeed{Links: f.Links}
		if len(f.Entries) == 0 {
			if feed.link("resume") == "" {
				t.Fatalf("empty page without resume: %s", body)
			}
			return out, token
		}
		for _, e := range f.Entries {
			for _, l := range e.Link {
				if l.Rel == "next" {
					e.token = tokenOf(t, l.Href)
				}
			}
			if e.token <= token {
				t.Fatalf("entry %s token %d after %d", e.Title, e.token, token)
			}
			token = e.token
			out = append(out, e)
		}
		if next := tokenOf(t, feed.link("next")); next != token {
			t.Fatalf("feed next %d, last entry %d", next, token)
		}
	}
}

// smallFeed: 300 base documents and 1,700 generated ones, 100 re-sent,
// 20 deleted, 30 new ones from the next day on.
func smallFeed(clk *fakeclock.Clock) Config {
	return Config{Seed: 3, Clock: clk, Documents: 300,
		Feed: FeedConfig{Documents: 2000, Resent: 100, Deleted: 20, New: 30}}
}

func TestFeedModeDeterministic(t *testing.T) {
	a := NewEmulator(smallFeed(fakeclock.New(fixedNow())))
	b := NewEmulator(smallFeed(fakeclock.New(fixedNow())))
	cfg := smallFeed(fakeclock.New(fixedNow()))
	cfg.Seed = 4
	c := NewEmulator(cfg)
	for _, target := range []string{"/SyncFeed/2.0/Feed?category=Document", "/SyncFeed/2.0/Feed?skiptoken=15003001",
		"/SyncFeed/2.0/Feed?category=Document&skiptoken=15005000"} {
		_, ba, _ := do(t, a, "GET", target)
		_, bb, _ := do(t, b, "GET", target)
		_, bc, _ := do(t, c, "GET", target)
		if !bytes.Equal(ba, bb) || bytes.Equal(ba, bc) {
			t.Errorf("%s: same config must give the same bytes, another seed others", target)
		}
	}
}

// Paging the whole Document category visits every document; the last
// entry of each id is its current version, as Entiteiten shows it;
// re-sends repeat an earlier entry's content at a later token; deletions
// are later entries with tk:verwijderd="true"; the counts agree.
func TestFeedWalkLatestVersions(t *testing.T) {
	clk := fakeclock.New(fixedNow())
	h := NewEmulator(smallFeed(clk))
	entries, _ := walk(t, h, "Document", 0)
	first := map[string]feedEntry{}
	last := map[string]feedEntry{}
	var resent, deletions int
	for _, e := range entries {
		f, seen := first[e.Title]
		if !seen {
			first[e.Title] = e
			if e.deleted() {
				t.Errorf("%s is deleted on its first entry", e.Title)
			}
		} else if e.deleted() {
			deletions++
		} else {
			resent++
			if e.Content.Inner != f.Content.Inner || e.Updated < f.Updated {
				t.Errorf("re-send of %s differs:\n%s\n%s", e.Title, f.Content.Inner, e.Content.Inner)
			}
		}
		last[e.Title] = e
	}
	c := h.FeedCounts()
	t.Logf("counts %+v", c)
	if len(entries) != c.Entries || len(first) != c.Documents || resent != c.Resent || deletions != c.Deleted {
		t.Errorf("walked %d entries, %d ids, %d re-sends, %d deletions; counts %+v", len(entries), len(first), resent, deletions, c)
	}
	// now is noon of the data's last day: the new documents start tomorrow
	if c.Documents != 2000 || c.Resent != 100 || c.Deleted != 20 || c.Live != 1980 {
		t.Errorf("counts %+v", c)
	}
	ids := 0
	h.FeedDocuments(func(id string, deleted bool) bool {
		ids++
		if e, ok := last[id]; !ok || e.deleted() != deleted {
			t.Errorf("FeedDocuments %s deleted=%v, feed %v (seen %v)", id, deleted, e.deleted(), ok)
		}
		return true
	})
	if ids != len(last) {
		t.Errorf("FeedDocuments gave %d ids, the feed %d", ids, len(last))
	}
	checked := 0
	for id, e := range last {
		// every deleted one, and a sample of the rest (generated and base)
		if !e.deleted() && checked%17 != 0 {
			checked++
			continue
		}
		checked++
		code, body, _ := do(t, h, "GET", "/SyncFeed/2.0/Entiteiten/"+id)
		mustOK(t, code, body)
		got := strings.Replace(string(body), ` xmlns:tk="`+nsTK+`"`, "", 1)
		got = strings.TrimPrefix(got, `<?xml version="1.0" encoding="utf-8"?>`+"\n")
		if got != e.Content.Inner {
			t.Errorf("Entiteiten/%s:\n%s\nlast feed entry:\n%s", id, got, e.Content.Inner)
		}
		code, _, _ = do(t, h, "GET", "/SyncFeed/2.0/Resources/"+id)
		if want := map[bool]int{true: 404, false: 200}[e.deleted()]; code != want {
			t.Errorf("Resources/%s deleted=%v: %d", id, e.deleted(), code)
		}
	}
}

// A generated document's file is a PDF of its ContentLength; OData keeps
// to the base data.
func TestFeedGeneratedDocument(t *testing.T) {
	h := NewEmulator(smallFeed(fakeclock.New(fixedNow())))
	code, body, _ := do(t, h, "GET", "/SyncFeed/2.0/Feed?category=Document")
	mustOK(t, code, body)
	var f atomFeed
	if err := xml.Unmarshal(body, &f); err != nil {
		t.Fatal(err)
	}
	id := f.Entries[0].Title
	if _, ok := h.data.byGUID[id]; ok {
		t.Fatalf("the first document %s is a base one, want a generated (older) one", id)
	}
	if f.Entries[0].Updated[:4] != "2008" {
		t.Errorf("first document updated %s, want 2008", f.Entries[0].Updated)
	}
	code, ent, _ := do(t, h, "GET", "/SyncFeed/2.0/Entiteiten/"+id)
	mustOK(t, code, ent)
	var doc struct {
		Length int `xml:"contentLength"`
	}
	if err := xml.Unmarshal(ent, &doc); err != nil {
		t.Fatal(err)
	}
	code, pdf, hdr := do(t, h, "GET", "/SyncFeed/2.0/Resources/"+id)
	mustOK(t, code, pdf)
	if hdr.Get("Content-Type") != "application/pdf" || len(pdf) != doc.Length || !bytes.HasPrefix(pdf, []byte("%PDF-1.4")) {
		t.Errorf("resource %s: %d bytes, ContentLength %d", hdr.Get("Content-Type"), len(pdf), doc.Length)
	}
	if code, _, _ := do(t, h, "GET", "/OData/v4/2.0/Document("+id+")"); code != 404 {
		t.Errorf("OData of a generated document: %d, want 404 (OData keeps to the base data)", code)
	}
	// a GUID of the generated form with another index is unknown
	bad := id[:len(id)-1] + map[bool]string{true: "0", false: "1"}[id[len(id)-1] != '0']
	if code, _, _ := do(t, h, "GET", "/SyncFeed/2.0/Entiteiten/"+bad); code != 404 {
		t.Errorf("Entiteiten/%s: %d", bad, code)
	}
}

// The feed grows with the clock: a harvester caught up at noon finds the
// new documents after its stored skiptoken a day later.
func TestFeedGrowsWithClock(t *testing.T) {
	clk := fakeclock.New(fixedNow())
	h := NewEmulator(smallFeed(clk))
	before, stored := walk(t, h, "", 0)
	if c := h.FeedCounts(); c.LastToken != stored {
		t.Errorf("LastToken %d, caught up at %d", c.LastToken, stored)
	}
	p := h.feedPlan()
	newID := p.extraGUID(p.hist)
	if code, _, _ := do(t, h, "GET", "/SyncFeed/2.0/Entiteiten/"+newID); code != 404 {
		t.Errorf("a document due tomorrow is served today: %d", code)
	}
	if again, _ := walk(t, h, "Document", stored); len(again) != 0 {
		t.Fatalf("%d entries after the stored token before the clock moved", len(again))
	}
	clk.Advance(24 * time.Hour)
	after, _ := walk(t, h, "Document", stored)
	var fresh int
	for _, e := range after {
		if e.token <= stored {
			t.Errorf("token %d not after %d", e.token, stored)
		}
		if e.Title == newID {
			fresh++
		}
	}
	// noon the next day: new documents at 0:00 … 12:00 (13 of them)
	c := h.FeedCounts()
	if fresh != 1 || c.Documents != 2013 {
		t.Errorf("after a day: %d entries, new document seen %d times, counts %+v", len(after), fresh, c)
	}
	if code, _, _ := do(t, h, "GET", "/SyncFeed/2.0/Entiteiten/"+newID); code != 200 {
		t.Errorf("a new document that is due: %d", code)
	}
	if c.LastToken <= stored || len(before) == 0 {
		t.Errorf("LastToken %d after a day, caught up at %d", c.LastToken, stored)
	}
}

// Other categories page past the generated history unchanged, and feed
// mode without a history keeps the base feed's tokens.
func TestFeedModeOtherCategories(t *testing.T) {
	h := NewEmulator(smallFeed(fakeclock.New(fixedNow())))
	got, _ := walk(t, h, "Fractie", 0)
	if len(got) != len(fracties) {
		t.Errorf("%d fracties", len(got))
	}
	plain := NewEmulator(Config{Seed: 3, Clock: fakeclock.New(fixedNow()), Documents: 300})
	clocked := NewEmulator(Config{Seed: 3, Clock: fakeclock.New(fixedNow().AddDate(0, 0, 3)), Documents: 300,
		Data: plain.Data(), Feed: FeedConfig{Clocked: true}})
	for _, target := range []string{"/SyncFeed/2.0/Feed?category=Persoon", "/SyncFeed/2.0/Feed?skiptoken=15000400"} {
		_, a, _ := do(t, plain, "GET", target)
		_, b, _ := do(t, clocked, "GET", target)
		// only the feed's own <updated> (the clock) differs
		strip := func(b []byte) string {
			s := string(b)
			i := strings.Index(s, "<updated>")
			return s[:i] + s[i+len("<updated>2026-11-29T12:00:00Z</updated>"):]
		}
		if strip(a) != strip(b) {
			t.Errorf("%s: feed mode without extras changed the page", target)
		}
	}
	c := plain.FeedCounts()
	if c.Documents != 300 || c.Live != 300 || c.Entries != 300 {
		t.Errorf("default counts %+v", c)
	}
}
