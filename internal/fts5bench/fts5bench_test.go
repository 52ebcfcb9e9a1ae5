package fts5bench

import (
	"context"
	"path/filepath"
	"testing"
)

func TestTable(t *testing.T) {
	if testing.Short() {
		t.Skip("opens an SQLite database on disk")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bench.db")
	s := Schema{Table: "docs", Columns: []Column{{Name: "text", Indexed: true}, {Name: "day"}, {Name: "kind"}}}
	tb, err := Open(path, s)
	if err != nil {
		t.Fatal(err)
	}
	rows := [][]any{
		{"beroep ongegrond beroep beroep", "2020-01-01", "a"},
		{"beroep gegrond", "2024-05-01", "b"},
		{"beroep ongegrond", "2022-03-03", "a"},
		{"huur ontbinding", "2023-01-01", "a"},
		{"beroep niet", "2022-03-03", "c"},
	}
	if err := tb.Insert(ctx, rows[:2]); err != nil {
		t.Fatal(err)
	}
	if err := tb.Insert(ctx, rows[2:]); err != nil {
		t.Fatal(err)
	}
	if err := tb.Insert(ctx, [][]any{{"too few"}}); err == nil {
		t.Error("a row with too few values was stored")
	}
	if err := tb.Optimize(ctx); err != nil {
		t.Fatal(err)
	}

	// bm25: "beroep" is in most rows, so weighs next to nothing;
	// "ongegrond" weighs more in the shorter row.
	hits, err := tb.Search(ctx, Query{Match: "beroep AND ongegrond", Columns: []string{"day"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Values[0] != "2022-03-03" || hits[1].Values[0] != "2020-01-01" || hits[0].Rank >= hits[1].Rank {
		t.Errorf("bm25 order: %+v", hits)
	}
	// Date order, a filter on an unindexed column, a page.
	hits, err = tb.Search(ctx, Query{Match: "beroep", Where: "kind = ?", Args: []any{"a"}, OrderBy: "day", Desc: true, Limit: 1, Columns: []string{"day", "kind"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Values[0] != "2022-03-03" || hits[0].RowID != 3 {
		t.Errorf("date order with a filter: %+v", hits)
	}
	hits, err = tb.Search(ctx, Query{Match: "beroep", OrderBy: "day", Desc: true, Offset: 1, Columns: []string{"day"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 3 || hits[0].Values[0] != "2022-03-03" {
		t.Errorf("second page in date order: %+v", hits)
	}
	// Equal days: the tie-breaker decides.
	hits, err = tb.Search(ctx, Query{Match: "beroep", OrderBy: "day", Desc: true, ThenBy: "kind", Limit: 2, Offset: 1, Columns: []string{"kind"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || hits[0].Values[0] != "a" || hits[1].Values[0] != "c" {
		t.Errorf("ties broken by kind: %+v", hits)
	}
	n, err := tb.Count(ctx, Query{Match: "beroep"})
	if err != nil || n != 4 {
		t.Errorf("count = %d, %v; want 4", n, err)
	}
	if _, err := tb.Search(ctx, Query{Match: "x", OrderBy: "day; DROP TABLE docs"}); err == nil {
		t.Error("an order that is not a column was run")
	}
	if size, err := tb.Size(); err != nil || size == 0 {
		t.Errorf("size %d, %v", size, err)
	}
	if err := tb.Close(); err != nil {
		t.Fatal(err)
	}

	// Opened again, the table and its rows are there.
	tb, err = Open(path, s)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	if n, err := tb.Count(ctx, Query{Match: "ontbinding"}); err != nil || n != 1 {
		t.Errorf("after reopening: count = %d, %v; want 1", n, err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "x.db"), Schema{Table: "t", Columns: []Column{{Name: "a"}}}); err == nil {
		t.Error("a table without an indexed column was created")
	}
}
