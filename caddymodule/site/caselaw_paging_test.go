package site_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/mcptest"
	"github.com/besluitbron/besluitbron/platforms/rechtspraak/caselaw"
)

// TestCaseLawDeepPagingOverMCP pages rechtspraak_search's newest-first
// word search through Caddy by its cursor (after, next_after): every
// ruling once, in the index's order, and no next_offset beside it. An
// offset past the date order's bound, a garbled cursor and a cursor where
// none belongs are isError results that say what to do instead.
func TestCaseLawDeepPagingOverMCP(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "caselaw")
	want := seedCaseLaw(t, dir, 45)
	// A scope after every ruling of the feed and a pass just completed:
	// the house harvests nothing while the test runs.
	h := loadCaseLawHouse(t, dir, "2100")
	h.await(t, "the seeded index", func(st caselawStatusForTest) bool { return st.Decisions == uint64(len(want)) })
	mc := mcptest.Connect(t, h.base+"/mcp/rechtspraak")

	type page struct {
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
		HasMore    bool   `json:"has_more"`
		NextOffset int    `json:"next_offset"`
		NextAfter  string `json:"next_after"`
	}
	args := map[string]any{"query": "huurovereenkomst", "sort": "DESC", "limit": 7}
	var got []string
	for pages := 1; ; pages++ {
		text, _, isError := callMCPToolParts(t, mc, "rechtspraak_search", args)
		if isError {
			t.Fatalf("page %d: %s", pages, text)
		}
		var p page
		if err := json.Unmarshal([]byte(text), &p); err != nil {
			t.Fatalf("page %d: %v\n%s", pages, err, text)
		}
		for _, r := range p.Results {
			got = append(got, r.ID)
		}
		if p.NextOffset != 0 {
			t.Errorf("page %d offers next_offset %d beside next_after", pages, p.NextOffset)
		}
		if p.HasMore != (p.NextAfter != "") {
			t.Errorf("page %d: has_more %v, next_after %q", pages, p.HasMore, p.NextAfter)
		}
		if p.NextAfter == "" {
			break
		}
		if pages > 10 {
			t.Fatal("the cursor never ends")
		}
		args["after"] = p.NextAfter
	}
	if !slices.Equal(got, want) {
		t.Fatalf("paged by cursor:\n %v\nwant newest first, then by ECLI:\n %v", got, want)
	}

	for _, c := range []struct {
		args map[string]any
		says []string
	}{
		{map[string]any{"query": "huurovereenkomst", "sort": "DESC", "offset": caselaw.MaxDateOffset + 1},
			[]string{fmt.Sprint(caselaw.MaxDateOffset), "after", "narrow the dates"}},
		{map[string]any{"query": "huurovereenkomst", "sort": "DESC", "after": "bm90IGEgY3Vyc29y"},
			[]string{"after", "not a cursor"}},
		{map[string]any{"query": "huurovereenkomst", "after": "bm90IGEgY3Vyc29y"},
			[]string{"after", "date order only"}},
		{map[string]any{"court": "HR", "after": "bm90IGEgY3Vyc29y"},
			[]string{"after", "without query, page with offset"}},
	} {
		text, _, isError := callMCPToolParts(t, mc, "rechtspraak_search", c.args)
		if !isError {
			t.Errorf("%v: answered %s", c.args, text)
			continue
		}
		for _, s := range c.says {
			if !strings.Contains(text, s) {
				t.Errorf("%v: %q does not say %q", c.args, text, s)
			}
		}
	}
}

// seedCaseLaw writes n rulings on tenancy into a new index under dir,
// several on the same days, with a harvest checkpoint of a pass just
// completed in scope 2100-01-01, and returns their ECLIs in the date
// order (newest first, then by ECLI).
func seedCaseLaw(t *testing.T, dir string, n int) []string {
	t.Helper()
	ix, _, err := caselaw.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	type seeded struct{ ecli, date string }
	var batch []caselaw.Decision
	var all []seeded
	for k := range n {
		day := time.Date(2001+k%25, time.Month(1+k%12), 1+k%3, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
		if k%5 == 0 {
			day = "2024-03-01" // ties: the ECLI orders them
		}
		ecli := fmt.Sprintf("ECLI:NL:RBDHA:%s:%d", day[:4], 100+k)
		all = append(all, seeded{ecli, day})
		batch = append(batch, caselaw.Decision{ECLI: ecli, Title: ecli + ", Rechtbank Den Haag, huur",
			Summary: "Huurrecht. Ontbinding van de huurovereenkomst wegens achterstand.", Court: "Rechtbank Den Haag",
			Date: day, Type: caselaw.TypeRuling, Modified: time.Now()})
	}
	now := time.Now()
	if err := ix.Apply(batch, caselaw.Checkpoint{Scope: "2100-01-01", LastComplete: now, CompletedAt: now}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(all, func(a, b seeded) int {
		if c := strings.Compare(b.date, a.date); c != 0 {
			return c
		}
		return strings.Compare(a.ecli, b.ecli)
	})
	out := make([]string, len(all))
	for k, s := range all {
		out[k] = s.ecli
	}
	return out
}
