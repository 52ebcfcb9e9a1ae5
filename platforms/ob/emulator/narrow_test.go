package emulator

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

// TestNarrowedSearchIsTheScan holds the narrowed search (candidates, then
// the predicate) to a scan of every visible publication, over three hundred
// generated queries of date ranges, prefixes, words, "or" and "not", and
// checks that a window of modification days reads only its own days.
func TestNarrowedSearchIsTheScan(t *testing.T) {
	// Laws added after the build move publications around: the order
	// by modification day must be built from the final catalogue.
	h := New(Config{Seed: 42, Clock: fakeclock.New(testNow), Laws: []Law{{Year: 2025, Number: 7, Issued: "2025-03-04", Title: "Wet van de proef", Dossier: "36001"}}}).(*handler)
	c, visible := h.catalog(), h.visible()
	if len(visible) == len(c.pubs) {
		t.Fatal("every publication is visible: the test would not see the narrowing leave out future ones")
	}
	r := rand.New(rand.NewPCG(36, 1))
	day := func() string {
		p := c.pubs[r.IntN(len(c.pubs))]
		switch r.IntN(6) {
		case 0:
			return p.Issued[:4] // a year
		case 1:
			return p.Issued[:7] + "-01"
		case 2:
			return "1990-01-01" // before every publication
		case 3:
			return "2031-01-01" // after every one
		case 4:
			return p.Issued
		}
		return p.Modified
	}
	dateClause := func() string {
		index := []string{"dt.modified", "dt.issued", "dt.available", "dt.date"}[r.IntN(4)]
		rel := []string{">=", ">", "<=", "<", "==", "="}[r.IntN(6)]
		return index + rel + day()
	}
	other := func() string {
		return []string{"w.publicatienaam==Staatsblad", "w.publicatienaam==Gemeenteblad", "woningbouw", "dt.type==Wet", "dt.identifier==" + c.pubs[r.IntN(len(c.pubs))].ID}[r.IntN(5)]
	}
	for i := range 300 {
		parts := []string{dateClause()}
		for range r.IntN(4) {
			if r.IntN(3) == 0 {
				parts = append(parts, other())
			} else {
				parts = append(parts, dateClause())
			}
		}
		q := parts[0]
		for _, p := range parts[1:] {
			op := []string{" and ", " and ", " or ", " not "}[r.IntN(4)]
			if r.IntN(4) == 0 {
				q = "(" + q + ")" + op + p
			} else {
				q = q + op + "(" + p + ")"
			}
		}
		pq, d := parseCQL(q)
		if d != nil {
			t.Fatalf("query %d %q: %v", i, q, d)
		}
		match := compile(pq.root)
		var scanned, narrowed []*pub
		for _, p := range visible {
			if match(p) {
				scanned = append(scanned, p)
			}
		}
		cands := c.candidates(pq.root, visible)
		for _, p := range cands {
			if match(p) {
				narrowed = append(narrowed, p)
			}
		}
		if !slices.Equal(scanned, narrowed) {
			t.Fatalf("query %q: the narrowed search found %d publications, the scan %d", q, len(narrowed), len(scanned))
		}
	}

	// The harvest's window (platforms/ob/replica.go) reads its own days.
	q := "c.product-area==officielepublicaties and dt.modified>=2025-06-01 and dt.modified<=2025-06-03 and dt.available>=2024-01-01"
	pq, _ := parseCQL(q)
	cands := c.candidates(pq.root, visible)
	for _, p := range cands {
		if p.Modified < "2025-06-01" || p.Modified > "2025-06-03" {
			t.Fatalf("a window of three days read %s, modified %s", p.ID, p.Modified)
		}
	}
	if len(cands) == 0 || !slices.IsSortedFunc(cands, func(a, b *pub) int {
		if a.Issued != b.Issued {
			return strings.Compare(a.Issued, b.Issued)
		}
		return strings.Compare(a.ID, b.ID)
	}) {
		t.Fatalf("a window of three days: %d candidates, not in the catalogue's order", len(cands))
	}
}

// TestWordClausesAsTheTokensSay holds the word relations, with mayHold
// before the tokenization, to the tokens alone, over every publication:
// whole words, truncated ones, phrases, words held by none.
func TestWordClausesAsTheTokensSay(t *testing.T) {
	h := New(Config{Seed: 42, Clock: fakeclock.New(testNow)}).(*handler)
	pubs := h.catalog().pubs
	terms := []string{"woningbouw", "woning*", "verorden*", "2019", "gemeente amsterdam", "besluit van", "zzzz", "stikstof jeugdzorg", "kst", "a*"}
	for _, p := range pubs[:3] {
		terms = append(terms, tokens(strings.ToLower(p.Title))...)
	}
	haves := make([][]string, len(pubs))
	for i, p := range pubs {
		haves[i] = tokens(p.text)
	}
	for _, term := range terms {
		words := tokens(term)
		for _, rel := range []string{"=", "any", "all"} {
			match := compileClause(&clause{index: "cql.serverchoice", relation: rel, term: term})
			for i, p := range pubs {
				have := haves[i]
				want := containsPhrase(have, words)
				switch rel {
				case "any":
					want = slices.ContainsFunc(words, func(w string) bool { return containsWord(have, w) })
				case "all":
					want = !slices.ContainsFunc(words, func(w string) bool { return !containsWord(have, w) })
				}
				if got := match(p); got != want {
					t.Fatalf("%s %s %q: %v, the tokens say %v", p.ID, rel, term, got, want)
				}
			}
		}
	}
}
