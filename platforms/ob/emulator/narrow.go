package emulator

import (
	"slices"
	"sort"
	"strings"
	"sync"
)

// A search at millions of publications cannot scan them all for every
// page: the replica's harvest pages through windows of modification days
// (platforms/ob/replica.go), thousands of pages over a catalogue of
// millions. candidates narrows a query to the publications a date range
// of one of its conjuncts allows, read from the catalogue's own order
// (issue days) or from an order by modification day, and the query's
// whole predicate still decides each of them: narrowing only ever skips
// publications that cannot match (TestNarrowedSearchIsTheScan).

// modifiedOrder is the catalogue's positions ordered by modification day
// (then position), built once per catalogue when first asked.
type modifiedOrder struct {
	once sync.Once
	pos  []int32
}

func (c *catalog) byModified() []int32 {
	c.modified.once.Do(func() {
		pos := make([]int32, len(c.pubs))
		for i := range pos {
			pos[i] = int32(i)
		}
		sort.SliceStable(pos, func(a, b int) bool { return c.pubs[pos[a]].Modified < c.pubs[pos[b]].Modified })
		c.modified.pos = pos
	})
	return c.modified.pos
}

// span is the range of values [lo, hi] of a date index some conjunct
// allows; an empty bound is open, and prefix marks hi as a prefix (every
// value that starts with it is inside).
type span struct {
	lo, hi string
	prefix bool
	set    bool
}

// spans gathers, for dt.modified and the issue day (dt.issued and
// dt.available, one field), the range of values the query's top-level
// conjuncts allow. An "or" gives nothing (its sides may each allow
// another range), nor does the right side of a "not".
func spans(n node, modified, issued *span) {
	switch n := n.(type) {
	case *boolNode:
		switch n.op {
		case "and":
			spans(n.left, modified, issued)
			spans(n.right, modified, issued)
		case "not":
			spans(n.left, modified, issued)
		}
	case *clause:
		var s *span
		switch n.index {
		case "dt.modified":
			s = modified
		case "dt.issued", "dt.available":
			s = issued
		default:
			return
		}
		term := strings.ToLower(n.term)
		switch n.relation {
		case ">=", ">":
			s.set = true
			if term > s.lo {
				s.lo = term
			}
		case "<=", "<":
			s.narrowTo(term, false)
		case "==", "exact", "=":
			if n.truncated() {
				return // a prefix with a wildcard: left to the predicate
			}
			if term > s.lo {
				s.lo = term
			}
			s.narrowTo(term, true)
		}
	}
}

// narrowTo lowers the span's upper bound to term (as a prefix when
// prefix): the bound of the two that allows fewer values wins, and where
// neither holds the other a prefix bound is kept whole (a superset).
func (s *span) narrowTo(term string, prefix bool) {
	s.set = true
	switch {
	case s.hi == "":
		s.hi, s.prefix = term, prefix
	case s.prefix && prefix:
		if strings.HasPrefix(term, s.hi) {
			s.hi = term
		}
	case s.prefix: // a plain bound against a prefix
		if term < s.hi {
			s.hi, s.prefix = term, false
		}
	case prefix:
		if term < s.hi && !strings.HasPrefix(s.hi, term) {
			s.hi, s.prefix = term, true
		}
	default:
		if term < s.hi {
			s.hi = term
		}
	}
}

// bounds is the half-open range [from, to) of n values, sorted by value,
// whose values lie in the span.
func (s *span) bounds(n int, value func(i int) string) (from, to int) {
	from = sort.Search(n, func(i int) bool { return value(i) >= s.lo })
	to = n
	if s.hi != "" {
		to = sort.Search(n, func(i int) bool {
			v := value(i)
			return v > s.hi && !(s.prefix && strings.HasPrefix(v, s.hi))
		})
	}
	return from, max(from, to)
}

// candidates returns the visible publications q may match, in catalogue
// order: all of them, or the fewer a date range of its conjuncts allows.
func (c *catalog) candidates(root node, visible []*pub) []*pub {
	var modified, issued span
	spans(root, &modified, &issued)
	best, bestN := visible, len(visible)
	if issued.set {
		from, to := issued.bounds(len(visible), func(i int) string { return visible[i].Issued })
		best, bestN = visible[from:to], to-from
	}
	if !modified.set {
		return best
	}
	order := c.byModified()
	from, to := modified.bounds(len(order), func(i int) string { return c.pubs[order[i]].Modified })
	if to-from >= bestN {
		return best
	}
	pos := slices.Clone(order[from:to])
	slices.Sort(pos)
	out := make([]*pub, 0, len(pos))
	for _, i := range pos {
		if int(i) >= len(visible) {
			break // issued after today
		}
		out = append(out, c.pubs[i])
	}
	return out
}
