//go:build figures

package site_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/emulators/corpus"
	"github.com/besluitbron/besluitbron/fanout"
)

// moonQuestion is one word question to every platform at once.
type moonQuestion struct{ words, from, to string }

// moonQuestions draws n distinct word questions with a fixed seed: half
// a policy topic (corpus.Topics), one in five a topic and a kind of
// document, three in ten one word of the documents' running text
// (corpus.Words); half of them for one year of 2024 to 2026, the rest
// for any date.
func moonQuestions(n int) []moonQuestion {
	r := corpus.Rand(36, "moonshot questions")
	kinds := []string{"besluit", "regeling", "motie", "wet", "verordening"}
	seen := map[moonQuestion]bool{}
	var out []moonQuestion
	for len(out) < n {
		var q moonQuestion
		switch d := r.IntN(10); {
		case d < 5:
			q.words = corpus.Topics[r.IntN(len(corpus.Topics))]
		case d < 7:
			q.words = corpus.Topics[r.IntN(len(corpus.Topics))] + " " + kinds[r.IntN(len(kinds))]
		default:
			q.words = corpus.Words(r, 1)
		}
		if r.IntN(2) == 0 {
			y := 2024 + r.IntN(3)
			q.from, q.to = fmt.Sprintf("%d-01-01", y), fmt.Sprintf("%d-12-31", y)
		}
		if !seen[q] {
			seen[q] = true
			out = append(out, q)
		}
	}
	return out
}

// TestFiguresMoonshotRequests counts the platform requests that 1,000
// distinct word questions to the six platforms BesluitBron keeps a
// replica of cost through the site's fan-out (/search, as search_all
// asks alike): once with no replica (every question goes to every
// platform that searches words), once with the six replicas caught up.
// Every platform's budget is raised so the run counts requests, not
// waits. Issue 36's figure for docs/benchmarks.md.
//
//	go test -tags figures -run TestFiguresMoonshotRequests -v -timeout 1h ./caddymodule/site/
func TestFiguresMoonshotRequests(t *testing.T) {
	questions := moonQuestions(1000)
	type tally struct {
		requests         map[string]int64
		answered, local  map[string]int
		failed, timedOut int
	}
	run := func(replicas bool) tally {
		h := startMoonHouse(t, replicas, 1_000_000)
		// The platforms' caches outlive a reload (a caddy.UsagePool per
		// platform), so the first house's answers are purged: the second
		// counts its own questions' cost, not the first's cache.
		h.purgeCaches(t)
		tl := tally{requests: map[string]int64{}, answered: map[string]int{}, local: map[string]int{}}
		for _, q := range questions {
			v := url.Values{"q": {q.words}, "platforms": {strings.Join(moonPlatforms, ",")}}
			if q.from != "" {
				v.Set("from", q.from)
				v.Set("to", q.to)
			}
			var res fanout.Result
			body := get(t, h.base+"/search?"+v.Encode(), http.Header{"Accept": {"application/json"}})
			if err := json.Unmarshal([]byte(body), &res); err != nil {
				t.Fatalf("/search %v: %v in %.300s", v, err, body)
			}
			for _, o := range res.Outcomes {
				switch o.State {
				case fanout.StateCache:
					t.Errorf("%s answered %q from the cache: the questions are distinct", o.Platform, q.words)
					fallthrough
				case fanout.StateAnswered:
					tl.answered[o.Platform]++
					if strings.Contains(o.Provenance, "complete up to") {
						tl.local[o.Platform]++
					}
				case fanout.StateTimeout:
					tl.timedOut++
				case fanout.StateFailed:
					tl.failed++
					t.Logf("%s failed on %q: %s", o.Platform, q.words, o.Error)
				}
			}
		}
		for _, k := range moonPlatforms {
			tl.requests[k], _ = h.emus[k].seen()
		}
		return tl
	}
	before, after := run(false), run(true)
	var sumBefore, sumAfter int64
	t.Logf("%d distinct questions to %s", len(questions), strings.Join(moonPlatforms, ", "))
	t.Logf("%-12s %10s %10s %8s %18s", "platform", "before", "after", "fewer", "answered locally")
	for _, k := range moonPlatforms {
		b, a := before.requests[k], after.requests[k]
		sumBefore += b
		sumAfter += a
		t.Logf("%-12s %10d %10d %7.0f%% %12d of %d", k, b, a, fewer(b, a), after.local[k], after.answered[k])
	}
	t.Logf("%-12s %10d %10d %7.0f%%", "all", sumBefore, sumAfter, fewer(sumBefore, sumAfter))
	t.Logf("outcomes failed / timed out: before %d / %d, after %d / %d", before.failed, before.timedOut, after.failed, after.timedOut)
	if before.failed+before.timedOut+after.failed+after.timedOut > 0 {
		t.Errorf("some outcomes failed or timed out: the counts above are not of answered questions")
	}
}

// fewer is how many fewer after is than before, in percent.
func fewer(before, after int64) float64 {
	if before == 0 {
		return 0
	}
	return 100 * float64(before-after) / float64(before)
}
