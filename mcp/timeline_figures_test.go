//go:build figures

package mcp

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/mcptest"
	"github.com/besluitbron/besluitbron/platforms/tk/emulator/timelinechain"
)

// The figures of docs/benchmarks.md for dossier_timeline: for each of a
// few bills (a dossier with votes, its Staatsblad publication and the law
// version it set in force, in the three emulators on loopback, no round
// trip added), the platform requests and the time of one timeline cold
// (every cache empty, the emulators' data already built) and again from
// the cache. It logs the figures and asserts no time: run it with
//
//	go test -tags figures ./mcp/ -run TestDossierTimelineFigures -v
func TestDossierTimelineFigures(t *testing.T) {
	const bills = 5
	ups, ds, _ := timelinechain.Chain(t, bills)
	base, logs := timelineSite(t, ups, connectorBlock("kamer", "tk ob bwb"))
	c := mcptest.Connect(t, base+"/mcp/kamer")
	// One call to another dossier first: the Kamer's $metadata is
	// fetched once a day, not per timeline.
	if _, text, isErr := callTimeline(t, c, map[string]any{"dossier": "99999"}); !isErr {
		t.Fatalf("warm-up: %s", text)
	}
	for _, l := range logs {
		l.take()
	}
	var cold, cached, own []time.Duration
	var lines []string
	for i, d := range ds {
		args := map[string]any{"dossier": d, "law": fmt.Sprintf("BWBR91%05d", i)}
		start := time.Now()
		res, text, isErr := callTimeline(t, c, args)
		took := time.Since(start)
		if isErr || res["from_cache"] != false {
			t.Fatalf("%s: %s", d, text)
		}
		asked := map[string]int{}
		var upstream time.Duration
		for k, l := range logs {
			upstream += l.took()
			asked[k] = len(l.take())
		}
		start = time.Now()
		again, _, _ := callTimeline(t, c, args)
		tookCached := time.Since(start)
		for k, l := range logs {
			if got := l.take(); len(got) != 0 {
				t.Fatalf("%s: the cached timeline asked %s %d times: %v", d, k, len(got), got)
			}
		}
		if again["from_cache"] != true {
			t.Fatalf("%s: not from the cache", d)
		}
		cold, cached, own = append(cold, took), append(cached, tookCached), append(own, took-upstream)
		lines = append(lines, fmt.Sprintf("dossier %s: %d steps; requests tk %d, ob %d, bwb %d (tool says %v); cold %v (the emulators answering %v of it, waiting for the budgets %vms), cached %v",
			d, int(res["count"].(float64)), asked["tk"], asked["ob"], asked["bwb"], res["requests"], took.Round(100*time.Microsecond),
			upstream.Round(100*time.Microsecond), res["queue_wait_ms"], tookCached.Round(10*time.Microsecond)))
	}
	t.Log("dossier_timeline figures (emulators on loopback, no round trip added):\n" + strings.Join(lines, "\n"))
	t.Logf("cold: median %v, min %v, max %v (without the emulators' own time: median %v); cached: median %v, min %v, max %v",
		median(cold), minOf(cold), maxOf(cold), median(own), median(cached), minOf(cached), maxOf(cached))
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2].Round(10 * time.Microsecond)
}

func minOf(ds []time.Duration) time.Duration {
	m := ds[0]
	for _, d := range ds {
		m = min(m, d)
	}
	return m.Round(10 * time.Microsecond)
}

func maxOf(ds []time.Duration) time.Duration {
	m := ds[0]
	for _, d := range ds {
		m = max(m, d)
	}
	return m.Round(10 * time.Microsecond)
}
