package caselaw

import (
	"context"
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
)

// cursorCorpus is an index of n generated decisions (gen_test.go): 25
// years of them, so the date order's windows all hold some.
func cursorCorpus(t *testing.T, n int) *Index {
	t.Helper()
	ix, _ := openTest(t)
	var page []Decision
	for k := range n {
		page = append(page, genDecision(k))
		if len(page) == 200 || k == n-1 {
			mustApply(t, ix, Checkpoint{}, page...)
			page = page[:0]
		}
	}
	return ix
}

// fullDateOrder is the reference: one sort of every match of q.
func fullDateOrder(t *testing.T, ix *Index, q Query) []string {
	t.Helper()
	q.Limit, q.Offset, q.After = 1, 0, ""
	p, err := planQuery(q, ix.analyzers)
	if err != nil {
		t.Fatal(err)
	}
	req := bleve.NewSearchRequestOptions(p.boolean(), 100_000, 0, false)
	req.SortBy([]string{"-" + fieldDay, "_id"})
	req.Score = "none"
	res, err := ix.store.Bleve().Search(req)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	return ids
}

// pageByCursor reads every page of q after the first by its cursor.
func pageByCursor(t *testing.T, ix *Index, q Query) (ids []string, pages int) {
	t.Helper()
	for {
		res := run(t, ix, q)
		ids = append(ids, eclis(res)...)
		pages++
		if res.Next == "" {
			return ids, pages
		}
		if len(res.Hits) != max(q.Limit, 1) {
			t.Fatalf("%s: a page of %d hits has a next page", describe(q), len(res.Hits))
		}
		q.After, q.Offset = res.Next, 0
		if pages > 1000 {
			t.Fatalf("%s: the cursor never ends", describe(q))
		}
	}
}

// Paging the date order by cursor, from the first page or from an offset,
// reads every match once, in the order of one full sort, across the
// windows of days, and the last page says no page follows.
func TestCursorPagesLikeOneFullSort(t *testing.T) {
	t.Parallel()
	ix := cursorCorpus(t, 400)
	for _, q := range []Query{
		{Words: "rechtbank", Sort: SortDate, Limit: 7},
		{Words: "beroep uitspraak", Sort: SortDate, Limit: 3, Offset: 5},
		{Words: "vergunning", Sort: SortDate, Limit: 4, DateFrom: "2020-01-01", DateTo: "2024-06-30"},
		{Court: "Rechtbank Amsterdam", Limit: 5}, // no words: the date order
		{Type: "conclusie", Sort: SortDate, Limit: 1},
	} {
		want := fullDateOrder(t, ix, q)
		if len(want) < 3*q.Limit {
			t.Fatalf("%s: %d matches, too few to page", describe(q), len(want))
		}
		got, pages := pageByCursor(t, ix, q)
		if !slices.Equal(got, want[q.Offset:]) {
			t.Errorf("%s: %d pages by cursor gave\n %v\nwant\n %v", describe(q), pages, got, want[q.Offset:])
		}
	}
}

// The cursor holds its place when the index changes between two pages:
// decisions stored before it (which shift an offset) and the withdrawal of
// the very decision it names neither repeat nor skip one.
func TestCursorHoldsItsPlaceAcrossUpdates(t *testing.T) {
	t.Parallel()
	ix := cursorCorpus(t, 300)
	q := Query{Words: "rechtbank", Sort: SortDate, Limit: 10}
	first := run(t, ix, q)
	if first.Next == "" {
		t.Fatal("no second page")
	}
	before := fullDateOrder(t, ix, q)

	// Newer decisions than any on the first page, and the first page's
	// last decision withdrawn.
	var newer []Decision
	for n := range 15 {
		d := genDecision(10_000 + n)
		d.Date, d.Summary = "2026-11-30", "Rechtbank. "+d.Summary
		newer = append(newer, d)
	}
	last := first.Hits[len(first.Hits)-1].ECLI
	mustApply(t, ix, Checkpoint{}, append(newer, Decision{ECLI: last, Deleted: true})...)

	q.After = first.Next
	second := run(t, ix, q)
	if want := before[10:20]; !slices.Equal(eclis(second), want) {
		t.Fatalf("after the update the cursor's page is\n %v\nwant the next ten of before\n %v", eclis(second), want)
	}
	// An offset would have shown the first page again.
	q.After, q.Offset = "", 10
	if shifted := run(t, ix, q); slices.Equal(eclis(shifted), before[10:20]) {
		t.Fatal("the update did not shift the offset: the test proves nothing")
	}
}

// Date order goes by offset only to MaxDateOffset; past it, and for a
// cursor where none belongs, the error says what to do instead.
func TestDateOrderPagingBounds(t *testing.T) {
	t.Parallel()
	ix := searchCorpus(t)
	for _, c := range []struct {
		q     Query
		field string
		hint  string
	}{
		{Query{Words: "huur", Sort: SortDate, Offset: MaxDateOffset + 1}, "offset", "page on with after (each page's next), or narrow the dates"},
		{Query{Court: "Rechtbank Den Haag", Offset: MaxDateOffset + 1}, "offset", "1000, the deepest offset in date order"},
		{Query{Words: "huur", After: "AQ"}, "after", "date order only"},
		{Query{Words: "huur", Sort: SortDate, Offset: 10, After: encodeCursor(queryFingerprint(Query{Words: "huur"}), "2020-01-02", "ECLI:NL:RBDHA:2020:1")}, "offset", "leave offset out"},
	} {
		_, err := ix.Search(context.Background(), c.q)
		var qe *QueryError
		if !errors.As(err, &qe) || qe.Field != c.field || !strings.Contains(err.Error(), c.hint) {
			t.Errorf("%+v: %v, want a *QueryError of field %s saying %q", c.q, err, c.field, c.hint)
		}
	}
	// The relevance order keeps MaxOffset, and the date order's bound
	// itself is allowed.
	run(t, ix, Query{Words: "huur", Offset: MaxOffset})
	run(t, ix, Query{Words: "huur", Sort: SortDate, Offset: MaxDateOffset})
}

// A garbled, forged, truncated or foreign cursor is a *QueryError of field
// "after" that says what to do, never a panic nor a silent first page.
func TestBadCursorIsAClearError(t *testing.T) {
	t.Parallel()
	ix := cursorCorpus(t, 50)
	q := Query{Words: "rechtbank", Sort: SortDate, Limit: 1}
	good := run(t, ix, q).Next
	if good == "" {
		t.Fatal("no cursor to garble")
	}
	fp := queryFingerprint(q)
	raw := func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	flipped := []byte(good)
	flipped[len(flipped)/2] ^= 0x01
	for name, c := range map[string]struct{ token, hint string }{
		"not base64":         {"!!not a cursor!!", "not a cursor of this index"},
		"padded base64":      {good + "==", "not a cursor of this index"},
		"truncated":          {good[:len(good)-3], "not a cursor of this index"},
		"one bit flipped":    {string(flipped), "cursor"},
		"empty payload":      {raw(nil) + "A", "not a cursor of this index"},
		"another version":    {withChecksum(append([]byte{9}, mustDecode(t, good)[1:len(mustDecode(t, good))-cursorChecksumLen]...)), "another version"},
		"another question":   {encodeCursor(queryFingerprint(Query{Words: "arbeid"}), "2020-01-02", "ECLI:NL:RBDHA:2020:1"), "another question"},
		"not a date":         {encodeCursor(fp, "2020-13-45", "ECLI:NL:RBDHA:2020:1"), "not a cursor of this index"},
		"control characters": {encodeCursor(fp, "2020-01-02", "ECLI:\x00\n"), "not a cursor of this index"},
		"not UTF-8":          {encodeCursor(fp, "2020-01-02", "ECLI:\xff"), "not a cursor of this index"},
		"far too long":       {strings.Repeat("A", 10_000), "not a cursor of this index"},
	} {
		q := q
		q.After = c.token
		_, err := ix.Search(context.Background(), q)
		var qe *QueryError
		if !errors.As(err, &qe) || qe.Field != "after" || !strings.Contains(err.Error(), c.hint) {
			t.Errorf("%s: %v, want a *QueryError of field after saying %q", name, err, c.hint)
			continue
		}
		if len(err.Error()) > 400 {
			t.Errorf("%s: the error repeats the token at length: %d bytes", name, len(err.Error()))
		}
	}
	// A cursor that is well made is a place, whatever day it names: a
	// place before every decision gives an empty last page.
	q.After = encodeCursor(fp, "1800-01-01", "ECLI:NL:XX:1800:1")
	if res := run(t, ix, q); len(res.Hits) != 0 || res.Next != "" {
		t.Fatalf("a place before every decision: %+v", res)
	}
}

func mustDecode(t *testing.T, token string) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withChecksum is a token of payload as encodeCursor ends one.
func withChecksum(payload []byte) string {
	return base64.RawURLEncoding.EncodeToString(append(payload, cursorChecksum(payload)...))
}

// FuzzDecodeCursor: no token makes the decoder panic, and one it accepts
// is the cursor of the place it reads.
func FuzzDecodeCursor(f *testing.F) {
	q := Query{Words: "huur", Sort: SortDate}
	f.Add(encodeCursor(queryFingerprint(q), "2020-01-02", "ECLI:NL:RBDHA:2020:1"))
	f.Add("")
	f.Add("AQ")
	f.Add(strings.Repeat("_", 120))
	f.Fuzz(func(t *testing.T, token string) {
		at, err := decodeCursor(token, q)
		if err != nil {
			var qe *QueryError
			if !errors.As(err, &qe) || qe.Field != "after" {
				t.Fatalf("%q: %v", token, err)
			}
			return
		}
		if again := encodeCursor(queryFingerprint(q), at.day, at.ecli); again != token {
			t.Fatalf("%q read as %+v, which encodes as %q", token, at, again)
		}
	})
}
