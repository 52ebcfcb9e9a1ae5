//go:build figures

package tk_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/besluitbron/besluitbron/internal/figures"
	"github.com/besluitbron/besluitbron/internal/mcptest"
)

// Figures of tk_votes and of the Kamer's part of dossier_timeline
// (docs/benchmarks.md): a vote question's and a timeline's platform
// requests and time through a house's connector, asked of the platform
// (the emulator, in process: no network, so the times are BesluitBron's
// and the emulator's own) for the first time, again (from BesluitBron's
// cache), and from the replica once it has completed a pass. The same
// emulator data behind both houses; 40 zaken and 20 dossiers voted on.
// Timings are only logged; what is checked is the number of requests.
//
//	go test -tags figures -run TestFiguresTKVotes -v ./platforms/tk/
func TestFiguresTKVotes(t *testing.T) {
	// One Caddy per process: the house that asks the platform first, then
	// the one that keeps the replica, over the same emulator data.
	plain := loadVotesHouse(t, false)
	raw := httptest.NewServer(plain.emu)
	t.Cleanup(raw.Close)
	zaken, dossiers, words := votedOn(t, raw.URL, 40, 20, 10)
	questions := map[string][]map[string]any{}
	for _, z := range zaken {
		questions["zaak"] = append(questions["zaak"], map[string]any{"zaak": z})
	}
	for _, d := range dossiers {
		questions["dossier"] = append(questions["dossier"], map[string]any{"dossier": d})
		questions["timeline"] = append(questions["timeline"], map[string]any{"dossier": d})
	}
	for _, w := range words {
		questions["words"] = append(questions["words"], map[string]any{"query": w, "date_from": "2020-01-01"})
	}
	kinds := []string{"zaak", "dossier", "words", "timeline"}
	// The tool each kind of question asks: a dossier's timeline is
	// dossier_timeline's (the Kamer's part alone: the connector offers tk).
	tool := func(kind string) string {
		if kind == "timeline" {
			return "dossier_timeline"
		}
		return "tk_votes"
	}
	type figure struct {
		took []time.Duration
		req  int64
		wait float64 // queue_wait_ms summed
	}
	measured := map[string]*figure{}
	ask := func(h votesHouse, c *client.Client, name string) {
		for _, kind := range kinds {
			f := &figure{}
			measured[kind+"/"+name] = f
			for _, args := range questions[kind] {
				before := h.odata.Load()
				start := time.Now()
				res, text, isErr := mcptest.Call(t, c, tool(kind), args)
				f.took = append(f.took, time.Since(start))
				w, _ := res["queue_wait_ms"].(float64)
				f.wait += w
				f.req += h.odata.Load() - before
				if isErr {
					t.Fatalf("%v: %s", args, text)
				}
			}
		}
	}
	pc := mcptest.Connect(t, plain.mcp)
	ask(plain, pc, "platform, cold")
	ask(plain, pc, "platform, cached")
	kept := loadVotesHouse(t, true)
	kept.awaitPass(t)
	ask(kept, mcptest.Connect(t, kept.mcp), "replica")
	for _, kind := range kinds {
		n := len(questions[kind])
		for _, name := range []string{"platform, cold", "platform, cached", "replica"} {
			f := measured[kind+"/"+name]
			p50, p95 := figures.Percentiles(f.took)
			t.Logf("%s by %s, %s: %.2f platform requests a question, p50 %v, p95 %v, of which waiting for the Kamer's budget %.0f ms on average (%d questions)", tool(kind), kind, name,
				float64(f.req)/float64(n), p50.Round(10*time.Microsecond), p95.Round(10*time.Microsecond), f.wait/float64(n), n)
		}
		if measured[kind+"/platform, cached"].req != 0 || measured[kind+"/replica"].req != 0 {
			t.Fatalf("%s: requests from the cache %d, from the replica %d", kind, measured[kind+"/platform, cached"].req, measured[kind+"/replica"].req)
		}
	}
}

// votedOn are up to nz zaken and nd dossiers (36200-VII) with a vote, as
// the emulator at upstream has them, and nw words of their subjects.
func votedOn(t *testing.T, upstream string, nz, nd, nw int) ([]string, []string, []string) {
	t.Helper()
	resp, err := http.Get(upstream + "/OData/v4/2.0/Besluit?$filter=startswith(BesluitSoort,'Stemmen')&$expand=Zaak($expand=Kamerstukdossier)&$top=250&$orderby=Id")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Value []struct {
			Zaak []struct {
				Nummer           string
				Onderwerp        string
				Kamerstukdossier []struct {
					Nummer     int
					Toevoeging *string
				}
			}
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	var zaken, dossiers, words []string
	seen := map[string]bool{}
	for _, b := range env.Value {
		for _, z := range b.Zaak {
			if len(zaken) < nz && !seen[z.Nummer] {
				seen[z.Nummer] = true
				zaken = append(zaken, z.Nummer)
			}
			if w := longestWord(z.Onderwerp); len(words) < nw && w != "" && !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
			for _, k := range z.Kamerstukdossier {
				d := fmt.Sprint(k.Nummer)
				if k.Toevoeging != nil && *k.Toevoeging != "" {
					d += "-" + *k.Toevoeging
				}
				if len(dossiers) < nd && !seen[d] {
					seen[d] = true
					dossiers = append(dossiers, d)
				}
			}
		}
	}
	return zaken, dossiers, words
}
