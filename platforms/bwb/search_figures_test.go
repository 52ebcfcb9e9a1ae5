//go:build figures

package bwb_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters/koopsru/datereplica"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/figures"
	emu "github.com/besluitbron/besluitbron/platforms/bwb/emulator"
)

// The replica's word search at the BWB's size, as the fan-out asks it
// (in force on the question's last day, today by default) and without
// that filter, side by side in one run
// (go test -tags figures -run TestFiguresReplicaSearch -v ./platforms/bwb/).
func TestFiguresReplicaSearch(t *testing.T) {
	clk := fakeclock.New(harvestStart)
	idx, _ := harvest(t, emu.New(emu.Config{Generated: emu.RealisticRegulations, Clock: clk}), clk)
	ctx := context.Background()
	// Words of the titles the replica holds: every 50th version's.
	var words []string
	seen := map[string]bool{}
	for offset := 0; offset < 10_000; offset += 100 {
		res, err := idx.Search(ctx, datereplica.Query{Limit: 100, Offset: offset})
		if err != nil {
			t.Fatal(err)
		}
		for i, h := range res.Hits {
			if i%50 != 0 {
				continue
			}
			for _, w := range strings.Fields(strings.ToLower(h.Title)) {
				if len(w) >= 5 && !seen[w] && strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) < 0 {
					seen[w] = true
					words = append(words, w)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	rng.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	words = words[:min(len(words), 100)]
	today := harvestStart.Format(time.DateOnly)
	for _, kind := range []string{"in force today", "no date filter", "in force today", "no date filter"} {
		var took []time.Duration
		var total uint64
		for _, w := range words {
			q := datereplica.Query{Words: w, Limit: 10}
			if kind == "in force today" {
				q.InForceOn = today
			}
			start := time.Now()
			res, err := idx.Search(ctx, q)
			took = append(took, time.Since(start))
			if err != nil {
				t.Fatal(err)
			}
			total += res.Total
		}
		p50, p95 := figures.Percentiles(took)
		t.Logf("%s: %d words, p50 %v, p95 %v, %d matches on average", kind, len(words), p50, p95, total/uint64(len(words)))
	}
}
