// Package fts5bench is a small SQLite FTS5 table for benchmarks only: the
// figures tests put the same generated corpus and the same queries to it
// and to an index of ours, to state one engine's latency as a ratio of the
// other's in one run on one machine. Nothing of the product imports it.
//
// It uses the pure-Go driver modernc.org/sqlite (no cgo). A table is an
// FTS5 virtual table whose columns are either indexed (searched by MATCH)
// or UNINDEXED (stored, returned, filtered and sorted on, but not
// searched); rows get SQLite's rowid. Text is tokenized by FTS5's own
// tokenizer (Schema.Tokenize): a caller that wants the same words as
// another engine analyzes the text itself and stores the analyzed tokens.
package fts5bench

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Column is one column of the table.
type Column struct {
	Name    string
	Indexed bool // searched by MATCH; otherwise UNINDEXED: stored only
}

// Schema describes the table.
type Schema struct {
	Table   string
	Columns []Column
	// Tokenize is FTS5's tokenize option, e.g. "unicode61" (the default
	// when empty) or "unicode61 remove_diacritics 2".
	Tokenize string
}

// Table is an open FTS5 table in a database file.
type Table struct {
	db     *sql.DB
	path   string
	schema Schema
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Open opens the database file at path, creating it and the table when
// they are missing; an existing table is used as it is (a benchmark builds
// its corpus once and reuses it). Journaling and syncing are off: a
// benchmark table that a crash leaves half written is built again, and a
// build at full durability would measure the disk, not the engine. Reads
// go through a memory map of up to 4 GiB and a 64 MiB page cache, as a
// read-mostly server would be set up.
func Open(path string, s Schema) (*Table, error) {
	if !identifier.MatchString(s.Table) {
		return nil, fmt.Errorf("fts5bench: table name %q is not a plain identifier", s.Table)
	}
	if len(s.Columns) == 0 {
		return nil, errors.New("fts5bench: a table needs at least one column")
	}
	cols := make([]string, 0, len(s.Columns)+1)
	indexed := false
	for _, c := range s.Columns {
		if !identifier.MatchString(c.Name) {
			return nil, fmt.Errorf("fts5bench: column name %q is not a plain identifier", c.Name)
		}
		if c.Indexed {
			indexed = true
			cols = append(cols, c.Name)
		} else {
			cols = append(cols, c.Name+" UNINDEXED")
		}
	}
	if !indexed {
		return nil, errors.New("fts5bench: no column is indexed: MATCH would find nothing")
	}
	tokenize := s.Tokenize
	if tokenize == "" {
		tokenize = "unicode61"
	}
	cols = append(cols, "tokenize = '"+strings.ReplaceAll(tokenize, "'", "''")+"'")

	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)&_pragma=cache_size(-65536)&_pragma=mmap_size(4294967296)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	stmt := fmt.Sprintf("CREATE VIRTUAL TABLE IF NOT EXISTS %s USING fts5(%s)", s.Table, strings.Join(cols, ", "))
	if _, err := db.Exec(stmt); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("fts5bench: %s: %w", stmt, err)
	}
	return &Table{db: db, path: path, schema: s}, nil
}

// Insert stores rows, each holding one value per column in the schema's
// order, in one transaction: a benchmark passes a batch (say 1,000 rows)
// per call, as one page of a harvest.
func (t *Table) Insert(ctx context.Context, rows [][]any) error {
	tx, err := t.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }() // a no-op after Commit
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(t.schema.Columns)), ", ")
	stmt, err := tx.PrepareContext(ctx, fmt.Sprintf("INSERT INTO %s VALUES (%s)", t.schema.Table, marks))
	if err != nil {
		return err
	}
	defer stmt.Close()
	for n, row := range rows {
		if len(row) != len(t.schema.Columns) {
			return fmt.Errorf("fts5bench: row %d has %d values, the table %d columns", n, len(row), len(t.schema.Columns))
		}
		if _, err := stmt.ExecContext(ctx, row...); err != nil {
			return fmt.Errorf("fts5bench: row %d: %w", n, err)
		}
	}
	return tx.Commit()
}

// Optimize merges the table's b-trees into one (FTS5's 'optimize'
// command), as a table is after a bulk load that is left to settle.
func (t *Table) Optimize(ctx context.Context) error {
	_, err := t.db.ExecContext(ctx, fmt.Sprintf("INSERT INTO %s(%s) VALUES('optimize')", t.schema.Table, t.schema.Table))
	return err
}

// Query is one search.
type Query struct {
	Match string // an FTS5 query expression, e.g. `beroep AND ongegrond`
	// Where is an extra SQL condition on the columns (e.g. "court = ?"),
	// with its arguments in Args; "" for none. It filters the matches
	// after FTS5 found them, as a filter on an UNINDEXED column does.
	Where string
	Args  []any
	// OrderBy is "" for best first by bm25 (FTS5's rank), or a column to
	// sort on; Desc sorts that column descending.
	OrderBy string
	Desc    bool
	ThenBy  string   // a column, ascending, that breaks ties of OrderBy; "" for none
	Limit   int      // rows of the page; 0 means 10
	Offset  int      // rows skipped before the page
	Columns []string // the columns each hit returns
}

// Hit is one row found.
type Hit struct {
	RowID  int64
	Rank   float64 // bm25; lower is better (FTS5's sign); 0 in column order
	Values []string
}

// Search runs q and returns its page.
func (t *Table) Search(ctx context.Context, q Query) ([]Hit, error) {
	for _, c := range q.Columns {
		if !identifier.MatchString(c) {
			return nil, fmt.Errorf("fts5bench: column name %q is not a plain identifier", c)
		}
	}
	sel := append([]string{"rowid", "rank"}, q.Columns...)
	order := "rank"
	if q.OrderBy != "" {
		if !identifier.MatchString(q.OrderBy) {
			return nil, fmt.Errorf("fts5bench: column name %q is not a plain identifier", q.OrderBy)
		}
		order = q.OrderBy
		if q.Desc {
			order += " DESC"
		}
		if q.ThenBy != "" {
			if !identifier.MatchString(q.ThenBy) {
				return nil, fmt.Errorf("fts5bench: column name %q is not a plain identifier", q.ThenBy)
			}
			order += ", " + q.ThenBy
		}
		sel[1] = "0.0" // rank costs bm25 for every match; column order needs none
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	stmt := fmt.Sprintf("SELECT %s FROM %s WHERE %s MATCH ?%s ORDER BY %s LIMIT %d OFFSET %d",
		strings.Join(sel, ", "), t.schema.Table, t.schema.Table, where(q.Where), order, limit, max(0, q.Offset))
	rows, err := t.db.QueryContext(ctx, stmt, append([]any{q.Match}, q.Args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hits []Hit
	for rows.Next() {
		h := Hit{Values: make([]string, len(q.Columns))}
		dest := []any{&h.RowID, &h.Rank}
		for k := range h.Values {
			dest = append(dest, &h.Values[k])
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		hits = append(hits, h)
	}
	return hits, rows.Err()
}

// Count returns how many rows match q's Match and Where (its order and
// page are ignored).
func (t *Table) Count(ctx context.Context, q Query) (int64, error) {
	var n int64
	stmt := fmt.Sprintf("SELECT count(*) FROM %s WHERE %s MATCH ?%s", t.schema.Table, t.schema.Table, where(q.Where))
	err := t.db.QueryRowContext(ctx, stmt, append([]any{q.Match}, q.Args...)...).Scan(&n)
	return n, err
}

func where(cond string) string {
	if cond == "" {
		return ""
	}
	return " AND (" + cond + ")"
}

// Size is the bytes of the database file on disk.
func (t *Table) Size() (int64, error) {
	info, err := os.Stat(t.path)
	if err != nil {
		return 0, err
	}
	return info.Size(), nil
}

// Close closes the database.
func (t *Table) Close() error { return t.db.Close() }
