package emulator

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// The index holds every emulated ECLI in 40 bytes without pointers: some
// 140,000 of them (a 2026 clock) take about 6 MB that the garbage
// collector never scans, the feed's order (view.go) 2 MB more. Strings (ECLI, case number, summary) are written
// out only for the entries an answer shows (decision, below).

// ruling is one ECLI in the index.
type ruling struct {
	published int64  // unix seconds: when the ECLI first appeared in the feed
	modified  int64  // unix seconds: its last modification (a tombstone's withdrawal)
	date      int32  // decision date, days since 1970-01-01
	issued    int32  // publication date (dcterms:issued), days since 1970-01-01
	num       int32  // the ECLI's number since 2013; before, its LJN's sequence
	year      uint16 // the ECLI's year: the decision date's
	court     uint8  // into courts
	subject   int8   // into leaves
	subject2  int8   // a second area, -1 if none
	theme     uint8  // into themes: what the summary and text are about
	kind      byte   // 'U' uitspraak, 'C' conclusie
	deleted   byte   // 0, 'd' (document withdrawn) or 'e' (ECLI withdrawn), at modified
	flags     uint8
}

const (
	hasDoc     uint8 = 1 << iota // a document (text) is published, not only metadata
	hadDoc                       // a withdrawn ruling had a document before its withdrawal
	hasSummary                   // an inhoudsindicatie exists
	ljnForm                      // a pre-2013 ECLI, numbered by its LJN
)

func (r *ruling) is(flag uint8) bool { return r.flags&flag != 0 }

// instance is the court that handed the ruling down.
func (r *ruling) instance() *instantie { return &courts[r.court] }

// key orders and finds rulings by ECLI parts: court, year, form, number.
func (r *ruling) key() uint64 {
	k := uint64(r.court)<<48 | uint64(r.year)<<32 | uint64(uint32(r.num))
	if r.is(ljnForm) {
		k |= 1 << 31
	}
	return k
}

// state returns what is withdrawn (0, 'd', 'e') and whether a document is
// published, as seen at now (unix seconds).
func (r *ruling) state(now int64) (deleted byte, doc bool) {
	if r.deleted != 0 && r.modified > now {
		return 0, r.is(hadDoc)
	}
	return r.deleted, r.is(hasDoc)
}

// modifiedAt is the modification time the feed shows at now: the last
// modification once it has happened, the publication before.
func (r *ruling) modifiedAt(now int64) int64 {
	if r.modified > now {
		return r.published
	}
	return r.modified
}

// visible tells whether the ECLI is published at now.
func (r *ruling) visible(now int64) bool { return r.published <= now }

type index struct {
	seed    int64
	rulings []ruling // by modified, then key
	byKey   []int32  // positions in rulings, by key
}

// firstYear is the year of the oldest emulated ruling.
const firstYear = 1998

// rulingsPerWeight scales the courts' weights (rulings a year, relative)
// to the corpus size: about 140,000 ECLIs up to 2026, enough that a
// harvest pages through more than 100 full pages.
const rulingsPerWeight = 5

// massConversion is the day most pre-2013 rulings were last modified, as
// in the real feed (2013-04-04).
var massConversion = time.Date(2013, 4, 4, 13, 30, 0, 0, time.UTC)

// epochDay is the day number of t (days since 1970-01-01).
func epochDay(t time.Time) int32 { return int32(t.Unix() / 86400) }

func dayTime(d int32) time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

// buildIndex generates every ruling up to the end of the last year, each
// court and year from its own random stream: the same seed gives the same
// index everywhere.
func buildIndex(seed int64, last int) *index {
	ix := &index{seed: seed}
	var old []int32 // pre-2013 rulings, numbered by LJN below
	for ci := range courts {
		c := &courts[ci]
		for y := max(firstYear, c.from); y <= last; y++ {
			if c.to != 0 && y > c.to {
				break
			}
			rnd := corpus.Rand(seed, "rs", c.Abbr, y)
			scale := 1.0
			if y < 2005 {
				scale = 0.4
			} else if y < 2013 {
				scale = 0.7
			}
			n := int(float64(c.weight*rulingsPerWeight)*scale) * (80 + rnd.IntN(41)) / 100
			// Decision dates from 2 January to 31 December.
			start := epochDay(time.Date(y, 1, 2, 0, 0, 0, 0, time.UTC))
			days := epochDay(time.Date(y+1, 1, 1, 0, 0, 0, 0, time.UTC)) - start
			dates := make([]int32, n)
			for i := range dates {
				dates[i] = start + rnd.Int32N(days)
			}
			slices.Sort(dates)
			num := int32(0)
			step := 60 + c.weight
			for _, d := range dates {
				r := ruling{court: uint8(ci), date: d, year: uint16(y), subject2: -1}
				fillRuling(rnd, &r, c)
				if y < 2013 {
					r.flags |= ljnForm
					old = append(old, int32(len(ix.rulings)))
				} else {
					num += 1 + rnd.Int32N(int32(step))
					r.num = num
				}
				ix.rulings = append(ix.rulings, r)
			}
		}
	}
	// LJNs were handed out in publication order across all courts.
	slices.SortStableFunc(old, func(a, b int32) int { return cmp.Compare(ix.rulings[a].issued, ix.rulings[b].issued) })
	lr := corpus.Rand(seed, "rs-ljn")
	seq := int32(1000)
	for _, i := range old {
		seq += 1 + lr.Int32N(40)
		ix.rulings[i].num = seq
	}
	ix.sort()
	return ix
}

// sort puts the rulings in the order of modification, then key, and
// builds byKey. Both sorts move small records that carry their sort key,
// not the rulings.
func (ix *index) sort() {
	type rec struct {
		modified int64
		key      uint64
		pos      int32
	}
	recs := make([]rec, len(ix.rulings))
	for i := range ix.rulings {
		r := &ix.rulings[i]
		recs[i] = rec{r.modified, r.key(), int32(i)}
	}
	slices.SortFunc(recs, func(a, b rec) int { return cmp.Or(cmp.Compare(a.modified, b.modified), cmp.Compare(a.key, b.key)) })
	sorted := make([]ruling, len(ix.rulings))
	for i, rc := range recs {
		sorted[i] = ix.rulings[rc.pos]
		recs[i].pos = int32(i)
	}
	ix.rulings = sorted
	slices.SortFunc(recs, func(a, b rec) int { return cmp.Compare(a.key, b.key) })
	ix.byKey = make([]int32, len(recs))
	for i, rc := range recs {
		ix.byKey[i] = rc.pos
	}
}

// courtByAbbr finds a court by its ECLI code.
var courtByAbbr = func() map[string]uint8 {
	m := map[string]uint8{}
	for i, c := range courts {
		m[c.Abbr] = uint8(i)
	}
	return m
}()

// find returns the ruling of an ECLI (upper case, well-formed), or nil.
func (ix *index) find(ecli string) *ruling {
	parts := strings.Split(ecli, ":")
	if len(parts) != 5 || parts[1] != "NL" {
		return nil
	}
	ci, ok := courtByAbbr[parts[2]]
	if !ok {
		return nil
	}
	year, err := strconv.Atoi(parts[3])
	if err != nil || year < firstYear || year > 9999 {
		return nil
	}
	probe := ruling{court: ci, year: uint16(year)}
	if n, err := strconv.ParseInt(parts[4], 10, 32); err == nil && year >= 2013 {
		probe.num = int32(n)
	} else if seq, ok := ljnSeq(parts[4]); ok && year < 2013 {
		probe.num, probe.flags = seq, ljnForm
	} else {
		return nil
	}
	want := probe.key()
	i, found := slices.BinarySearchFunc(ix.byKey, want, func(p int32, k uint64) int { return cmp.Compare(ix.rulings[p].key(), k) })
	if !found {
		return nil
	}
	return &ix.rulings[ix.byKey[i]]
}

// ecli writes a ruling's ECLI: ECLI:NL:RBDHA:2013:15631 since 2013,
// ECLI:NL:RBARN:1998:AA1005 (its LJN) before.
func (r *ruling) ecli() string {
	return "ECLI:NL:" + r.instance().Abbr + ":" + strconv.Itoa(int(r.year)) + ":" + r.number()
}

func (r *ruling) number() string {
	if r.is(ljnForm) {
		return ljn(int(r.num))
	}
	return strconv.Itoa(int(r.num))
}

// ljn formats the n-th Landelijk Jurisprudentie Nummer: AA0001, ..., AZ9999,
// BA0000, ...
func ljn(n int) string {
	block := n / 10000
	return string(rune('A'+block/26%26)) + string(rune('A'+block%26)) + fmt.Sprintf("%04d", n%10000)
}

// ljnSeq is the inverse of ljn: "AA1005" → 1005.
func ljnSeq(s string) (int32, bool) {
	if len(s) != 6 || s[0] < 'A' || s[0] > 'Z' || s[1] < 'A' || s[1] > 'Z' {
		return 0, false
	}
	n, err := strconv.Atoi(s[2:])
	if err != nil || s[2] == '+' || s[2] == '-' {
		return 0, false
	}
	return int32((int(s[0]-'A')*26+int(s[1]-'A'))*10000 + n), true
}

// decision is a ruling written out for an answer: the strings and dates
// its feed entry and its document show, derived from the ruling and the
// seed alone (one random stream per ECLI, drawn in a fixed order).
type decision struct {
	*ruling
	ECLI    string
	LJN     string // pre-2013: the LJN the ECLI replaces
	CaseNo  string
	Date    time.Time
	Issued  time.Time
	Summary string // the inhoudsindicatie; "" if none
	slots   slots  // what the theme's sentences are filled with
}

func (ix *index) decision(r *ruling) decision {
	d := decision{ruling: r, ECLI: r.ecli(), Date: dayTime(r.date), Issued: dayTime(r.issued)}
	if r.is(ljnForm) {
		d.LJN = r.number()
	}
	rnd := corpus.Rand(ix.seed, "rs-entry", d.ECLI)
	d.CaseNo = caseNumber(rnd, r)
	d.slots = drawSlots(rnd, r)
	if r.is(hasSummary) {
		d.Summary = summary(rnd, d)
	}
	return d
}

// title is the Atom entry title: "ECLI, court, dd-mm-yyyy, case number".
func (d decision) title() string {
	return d.ECLI + ", " + d.instance().Naam + ", " + d.Date.Format("02-01-2006") + ", " + d.CaseNo
}

// typeName is the dcterms:type value.
func (r *ruling) typeName() string {
	if r.kind == 'C' {
		return "Conclusie"
	}
	return "Uitspraak"
}
