package datereplica

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// inForceCorpus are n versions with start and end days spread over 30
// years and a few after today, some open at either end, some with no
// in-force period at all, each titled with a word shared by a third of
// them.
func inForceCorpus(n int) []Record {
	rng := rand.New(rand.NewPCG(3, 5))
	base := time.Date(1996, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]Record, 0, n)
	for i := range n {
		from := base.AddDate(0, 0, rng.IntN(31*365))
		r := Record{ID: fmt.Sprintf("V%05d", i), Title: fmt.Sprintf("Regeling %d %s", i, []string{"woningbouw", "jeugdzorg", "stikstof"}[i%3]),
			Type: "wet", Date: from.Format(time.DateOnly), Modified: "2026-01-01", InForceFrom: from.Format(time.DateOnly)}
		switch i % 7 {
		case 0: // still in force
		case 1: // nothing in force
			r.InForceFrom = ""
		case 2: // open start, an end
			r.InForceFrom, r.InForceUntil = "", from.AddDate(0, 0, rng.IntN(4000)).Format(time.DateOnly)
		default:
			r.InForceUntil = from.AddDate(0, 0, rng.IntN(4000)).Format(time.DateOnly)
		}
		out = append(out, r)
	}
	return out
}

// inForce is what "in force on day" means, read from the records
// themselves: a version with a period whose start ("" open) is on or
// before day and whose end ("" open) is on or after it.
func inForce(r Record, day string) bool {
	if r.InForceFrom == "" && r.InForceUntil == "" {
		return false
	}
	return r.InForceFrom <= day && (r.InForceUntil == "" || r.InForceUntil >= day)
}

// The in-force filter, asked over the period's days as numbers (what
// Search asks), or over the keyword days as two ranges, or with the
// start days after the day or the end days before it excluded (inForce,
// as before): each way gives exactly the versions in force, with and
// without words, on days where each exclusion is the cheaper one.
func TestInForceFilterIsExact(t *testing.T) {
	days := []string{"1996-01-01", "1999-06-30", "2005-03-01", "2011-07-15", "2020-02-29", "2026-12-01", "2027-06-01", "2040-01-01"}
	idx := openIndex(t, t.TempDir())
	records := inForceCorpus(1000)
	// On each day's edges: a version that starts or ends on it (in
	// force), and one that starts the day after or ended the day before.
	for i, day := range days {
		d, _ := time.Parse(time.DateOnly, day)
		next, prev := d.AddDate(0, 0, 1).Format(time.DateOnly), d.AddDate(0, 0, -1).Format(time.DateOnly)
		for j, r := range []Record{{InForceFrom: day}, {InForceFrom: "1990-01-01", InForceUntil: day}, {InForceFrom: next}, {InForceFrom: "1990-01-01", InForceUntil: prev}} {
			r.ID, r.Title, r.Type, r.Date, r.Modified = fmt.Sprintf("E%02d%d", i, j), "Regeling rand woningbouw", "wet", day, "2026-01-01"
			records = append(records, r)
		}
	}
	if err := idx.apply(records, []byte("1")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ways := map[string]int{}
	for _, day := range days {
		_, out, err := idx.inForce(day, false)
		if err != nil {
			t.Fatal(err)
		}
		way := "two ranges"
		if len(out) == 1 {
			way = out[0].(interface{ Field() string }).Field() + " excluded"
		}
		ways[way]++
		for _, words := range []string{"", "woningbouw"} {
			var want []string
			for _, r := range records {
				if inForce(r, day) && (words == "" || strings.HasSuffix(r.Title, words)) {
					want = append(want, r.ID)
				}
			}
			slices.Sort(want)
			for _, asked := range []struct {
				name                   string
				termInForce, rangeOnly bool
			}{{name: "days as numbers"}, {name: "keyword days, " + way, termInForce: true}, {name: "keyword days, two ranges", rangeOnly: true}} {
				var got []string
				total := uint64(0)
				for offset := 0; ; offset += 100 {
					res, err := idx.Search(ctx, Query{Words: words, InForceOn: day, Limit: 100, Offset: offset, termInForce: asked.termInForce, rangeOnly: asked.rangeOnly})
					if err != nil {
						t.Fatal(err)
					}
					total = res.Total
					for _, h := range res.Hits {
						got = append(got, h.ID)
					}
					if len(res.Hits) < 100 {
						break
					}
				}
				slices.Sort(got)
				if total != uint64(len(want)) || !slices.Equal(got, want) {
					t.Fatalf("in force on %s, words %q (%s): %d found (total %d), want %d", day, words, asked.name, len(got), total, len(want))
				}
			}
		}
	}
	if ways[fieldFrom+" excluded"] == 0 || ways[fieldUntil+" excluded"] == 0 {
		t.Fatalf("the ways taken: %v", ways)
	}
}

// versionChains are n versions of regulations as the BWB holds them:
// each regulation's versions follow each other, every one in force until
// the day before the next starts, the newest open; start days spread over
// 30 years, and one regulation in fifty has a version scheduled after
// today (2026-12-01).
func versionChains(n int) []Record {
	rng := rand.New(rand.NewPCG(11, 13))
	base := time.Date(1996, 1, 1, 0, 0, 0, 0, time.UTC)
	out := make([]Record, 0, n)
	for reg := 0; len(out) < n; reg++ {
		day := base.AddDate(0, 0, rng.IntN(30*365))
		versions := 1 + rng.IntN(3)
		if reg%50 == 0 {
			versions++
		}
		for v := 0; v < versions && len(out) < n; v++ {
			r := Record{ID: fmt.Sprintf("BWBR%07d_%d", reg, v), Group: fmt.Sprintf("BWBR%07d", reg), Type: "wet",
				Title: fmt.Sprintf("Regeling %d %s", reg, []string{"woningbouw", "jeugdzorg", "stikstof"}[reg%3]),
				Date:  day.Format(time.DateOnly), Modified: "2026-01-01", InForceFrom: day.Format(time.DateOnly)}
			next := day.AddDate(0, 0, 30+rng.IntN(3000))
			if reg%50 == 0 && v == versions-2 {
				next = time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(365)) // scheduled
			} else if next.After(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) {
				versions = v + 1 // nothing after it yet: the newest, open
			}
			if v < versions-1 {
				r.InForceUntil = next.AddDate(0, 0, -1).Format(time.DateOnly)
			}
			out = append(out, r)
			day = next
		}
	}
	return out
}

// BenchmarkInForce: a word search in force over 30,000 versions (about
// the BWB's, versionChains), side by side: today as both keyword day
// ranges, as the start days after it excluded (inForce's way there), and
// as numbers (what Search asks); a day years back over keyword days and
// as numbers; and the words alone.
//
//	go test -run '^$' -bench InForce -benchtime 200x ./adapters/koopsru/datereplica/
func BenchmarkInForce(b *testing.B) {
	idx := openIndexB(b)
	if err := idx.apply(versionChains(30_000), []byte("1")); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, way := range []struct {
		name        string
		on          string
		rangeOnly   bool
		termInForce bool
	}{{"two-ranges", "2026-12-01", true, false}, {"start-days-after-today-excluded", "2026-12-01", false, true},
		{"days-as-numbers", "2026-12-01", false, false}, {"past-day-keyword-days", "2014-12-31", false, true},
		{"past-day-as-numbers", "2014-12-31", false, false}, {"no-date-filter", "", false, false}} {
		b.Run(way.name, func(b *testing.B) {
			q := Query{Words: "woningbouw", InForceOn: way.on, rangeOnly: way.rangeOnly, termInForce: way.termInForce}
			for b.Loop() {
				if _, err := idx.Search(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func openIndexB(b *testing.B) *Index {
	b.Helper()
	idx, _, err := Open(b.TempDir(), "bench index")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = idx.Close() })
	return idx
}
