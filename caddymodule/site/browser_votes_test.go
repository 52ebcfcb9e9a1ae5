package site_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/besluitbron/besluitbron/adapters"
	obvad "github.com/besluitbron/besluitbron/platforms/obv"
	tkad "github.com/besluitbron/besluitbron/platforms/tk"
)

// TestBrowserVotes: the reader's votes (issue 37, point 4) in a real
// browser, with JavaScript and without: a Tweede Kamer motion (a bar per
// fractie in seats, out of 150), a council motion with votes per member
// (a bar per group), a council motion without (the published tally and
// the sentence that no per-member votes are published). The bars are
// drawn (each segment as wide as its count says, on one scale), the
// table holds the same numbers, and axe-core finds no serious or
// critical violation. With -screenshots it writes vote-kamer-*.png,
// vote-council-*.png and vote-tally-*.png. A house of its own: the
// readers would spend the other test's site_search allowance.
func TestBrowserVotes(t *testing.T) {
	b := browser(t)
	axeSource(t)
	base := offlineHouse(t)
	pages := votePages(t, base)
	for _, scripts := range []bool{true, false} {
		name := "javascript"
		if !scripts {
			name = "no-javascript"
		}
		t.Run(name, func(t *testing.T) {
			ctx := tab(t, b, scripts)
			for _, p := range pages {
				step(t, ctx, "reader "+p.name, chromedp.Navigate(base+p.path), chromedp.WaitVisible(chromedp.CSS("section.votes")))
				p.check(t, ctx)
				checkAxe(t, ctx, "votes "+p.name, scripts)
				if scripts && *screenshots {
					shoot(t, ctx, "vote-"+p.name)
				}
			}
		})
	}
}

type votePage struct {
	name, path string
	check      func(t *testing.T, ctx context.Context)
}

// votePages finds, through the house's platform routes (as an app would;
// this fills the cache the reader then reads from), a Tweede Kamer motion
// that was voted on, a council motion with per-member votes and one
// without.
func votePages(t *testing.T, base string) []votePage {
	t.Helper()
	env := adapters.Env{Memo: &adapters.Memo{}, Get: func(ctx context.Context, platform string, r adapters.Request) ([]byte, error) {
		resp, err := http.Get(base + "/platforms/" + platform + r.Path)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s: HTTP %d", r.Path, resp.StatusCode)
		}
		return b, err
	}}
	ctx := context.Background()
	read := func(platform, id string) string {
		// At the votes, so the screenshots show them.
		return "/lezen?" + url.Values{"platform": {platform}, "id": {id}}.Encode() + "#votes-h"
	}
	var out []votePage

	body, err := env.Get(ctx, "tk", adapters.Get(tkad.DefaultRoot+"/Document", url.Values{"$filter": {"Soort eq 'Motie' and Verwijderd eq false"},
		"$select": {"Nummer"}, "$orderby": {"Datum desc,Id"}, "$top": {"20"}}))
	if err != nil {
		t.Fatal(err)
	}
	var kamer string
	for _, part := range strings.Split(string(body), `"Nummer":"`)[1:] {
		nummer, _, _ := strings.Cut(part, `"`)
		charts, err := tkad.Surface("").Votes(ctx, env, nummer, "Motie")
		if err != nil {
			t.Fatal(err)
		}
		if len(charts) > 0 && len(charts[0].Bars) > 0 {
			kamer = nummer
			break
		}
	}
	if kamer == "" {
		t.Fatal("no Tweede Kamer motion was voted on")
	}
	out = append(out, votePage{"kamer", read("tk", kamer), func(t *testing.T, ctx context.Context) {
		checkVoteChart(t, ctx, "kamer")
		if total := eval[string](t, ctx, `document.querySelector("table.votes tfoot td:last-child").textContent`); total != "150" {
			t.Errorf("the Kamer's vote counts %s seats, want 150", total)
		}
	}})

	council := func(org string, perMember bool) string {
		r, err := obvad.SearchRequest(obvad.SearchParams{Organization: org, EntityType: "Motion", Sort: "date_desc", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		body, err := env.Get(ctx, "obv", r)
		if err != nil {
			t.Fatal(err)
		}
		p, err := obvad.ParseSearch(body)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range p.Hits {
			charts, err := obvad.Surface().Votes(ctx, env, h.ID, h.Type)
			if err != nil {
				t.Fatal(err)
			}
			if len(charts) == 1 && (len(charts[0].Bars) > 0) == perMember && !charts[0].NotVoted && (perMember || charts[0].Tally != nil) {
				return h.ID
			}
		}
		t.Fatalf("no motion of %s with per-member votes %v", org, perMember)
		return ""
	}
	out = append(out, votePage{"council", read("obv", council("houten", true)), func(t *testing.T, ctx context.Context) {
		checkVoteChart(t, ctx, "council")
	}})
	out = append(out, votePage{"tally", read("obv", council("soest", false)), func(t *testing.T, ctx context.Context) {
		if n := eval[int](t, ctx, `document.querySelectorAll(".vrow[data-party]").length`); n != 0 {
			t.Errorf("%d bars per group where no per-member votes are published", n)
		}
		if !strings.Contains(eval[string](t, ctx, `document.querySelector("section.votes").innerText`), "Er zijn geen stemmen per raadslid gepubliceerd") {
			t.Error("the council without per-member votes does not say so")
		}
		if n := eval[int](t, ctx, `document.querySelectorAll("table.votes.tally caption").length`); n != 1 {
			t.Errorf("%d tables of the published tally", n)
		}
	}})
	return out
}

// checkVoteChart holds the drawn chart to the table: a bar per table
// row, each segment as wide (in pixels) as its count on one scale, and
// the numbers beside the bars (not colour alone).
func checkVoteChart(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	got := eval[map[string]any](t, ctx, `(() => {
		const rows = [...document.querySelectorAll(".vrow[data-party]")];
		const table = [...document.querySelectorAll("table.votes:not(.tally) tbody tr")];
		let scale = 0, bad = [];
		const px = rows.map(r => [...r.querySelectorAll("rect.seg")].map(s => [+s.dataset.count, s.getBoundingClientRect().width]));
		const track = rows.length ? rows[0].querySelector("rect.track").getBoundingClientRect().width : 0;
		px.forEach(segs => segs.forEach(([n, w]) => { if (n > 0) scale = Math.max(scale, w / n); }));
		px.forEach((segs, i) => segs.forEach(([n, w]) => { if (Math.abs(w - n * scale) > 1.5) bad.push(rows[i].dataset.party + ": " + n + " is " + w + "px"); }));
		const sums = rows.map((r, i) => px[i].reduce((a, [n]) => a + n, 0));
		const tableSums = table.map(tr => +tr.querySelector("td:last-child").textContent);
		const text = rows.every(r => /\d/.test(r.querySelector(".vnum").textContent));
		return {rows: rows.length, table: table.length, bad: bad.join("; "), sums: sums.join(","), tableSums: tableSums.join(","), text, track};
	})()`)
	if got["rows"].(float64) < 2 || got["rows"] != got["table"] {
		t.Errorf("%s: %v bars, %v table rows", name, got["rows"], got["table"])
	}
	if got["bad"] != "" {
		t.Errorf("%s: bars not in proportion: %s", name, got["bad"])
	}
	if got["sums"] != got["tableSums"] {
		t.Errorf("%s: the bars count %s, the table %s", name, got["sums"], got["tableSums"])
	}
	if got["text"] != true || got["track"].(float64) < 50 {
		t.Errorf("%s: numbers beside every bar %v, track %vpx wide", name, got["text"], got["track"])
	}
}
