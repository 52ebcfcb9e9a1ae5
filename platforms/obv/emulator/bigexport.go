package emulator

import (
	"math/bits"
	"sort"
	"time"

	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// The large export: the export endpoints at the platform's scale, so a
// harvest of a million records can be measured and its corner cases
// (deletes, records seen twice, a cursor refused mid-way) tested. Search,
// entities and the rest of the API keep the small corpus.
//
// Each source of the export has a change log, generated from the seed and
// a record's position alone (bigexport_records.go), never held in memory:
// the first four fifths create one entity each, the last fifth changes
// entities (one in five of those changes deletes). The snapshot is the
// latest record of every entity not deleted, read at the moment each page
// is asked, and its X-Changes-Cursor is the log's head at that moment,
// as OpenBesluitvorming's src/exports/log.ts (readSnapshot) does. So a
// harvester whose clock moves while it pages gets, from the change feed,
// records the snapshot already gave (the same record twice) and, for an
// entity created and changed after the first page, its first version
// after the newer one the snapshot held.

// LargeExport configures the large export.
type LargeExport struct {
	// Records is the length of all sources' change logs together (0:
	// every source's export is empty).
	Records int
	// Sources is how many organisations have a log (default 124, the
	// organisations of the 3.05 million documents in OpenBesluitvorming's
	// example; at most the implemented ones still in the catalogue). The
	// others' export is empty, as a source's log only fills from its next
	// full import (platforms.md, section 12).
	Sources int
	// Epoch is when each log has reached nine tenths of its length
	// (default DefaultLargeExportEpoch; it must be after 2019-01-01); the
	// records before it are spread from 2019-01-01 to it, the rest come
	// one per Every after it.
	Epoch time.Time
	// Every is the time between a source's records after Epoch (default
	// 10 minutes).
	Every time.Duration
	// CursorTTL: a cursor issued longer ago than this on the emulator's
	// clock gets the 400 of an invalid cursor; 0 never. The platform's
	// cursors (a sequence number, an entity id) do not expire; this is a
	// fault to test a harvester with.
	CursorTTL time.Duration
}

// DefaultLargeExportEpoch is the large export's default Epoch.
var DefaultLargeExportEpoch = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// The large export's fixed proportions.
const (
	// bigChangeShare: one record in this many is a change of an entity
	// created earlier in the log.
	bigChangeShare = 5
	// bigDeleteShare: one change in this many is a delete.
	bigDeleteShare = 5
	// bigSources is OBV's example count of organisations in the export.
	bigSources = 124
)

// bigExport is the large export's layout: the sources with a log.
type bigExport struct {
	cfg     LargeExport
	sources map[string]*bigSource
	order   []string // the keys, in the catalogue's order
}

// bigSource is one source's log: n creations, then c changes; h0 records
// are there at Epoch.
type bigSource struct {
	org         corpus.Org
	ref         string
	hash        uint64
	n, c, h0    int
	stride, inv int // change k touches entity k*stride mod n
	bases       [4]uint64
	epoch       time.Time
	span, every time.Duration
}

func newBigExport(seed int64, cfg LargeExport) *bigExport {
	if cfg.Sources <= 0 {
		cfg.Sources = bigSources
	}
	if cfg.Epoch.IsZero() {
		cfg.Epoch = DefaultLargeExportEpoch
	}
	if cfg.Every <= 0 {
		cfg.Every = 10 * time.Minute
	}
	var eligible []corpus.Org
	for _, o := range corpus.Orgs() {
		if implemented(o) && !o.Discontinued {
			eligible = append(eligible, o)
		}
	}
	picked := corpus.Rand(seed, "large export").Perm(len(eligible))
	if cfg.Sources > len(eligible) {
		cfg.Sources = len(eligible)
	}
	picked = picked[:cfg.Sources]
	sort.Ints(picked)
	b := &bigExport{cfg: cfg, sources: map[string]*bigSource{}}
	for i, p := range picked {
		length := cfg.Records / cfg.Sources
		if i < cfg.Records%cfg.Sources {
			length++
		}
		if length == 0 {
			continue
		}
		o := eligible[p]
		s := &bigSource{org: o, ref: o.Supplier + ":" + o.Type + ":" + o.Key, epoch: cfg.Epoch, every: cfg.Every}
		s.hash = corpus.Rand(seed, "large export", o.Key).Uint64()
		s.c = length / bigChangeShare
		s.n = length - s.c
		s.h0 = s.n + s.c/2
		s.span = cfg.Epoch.Sub(corpusStart)
		s.stride, s.inv = coprimeStride(s.n)
		for k, kind := range []string{"document", "meeting", "motion", "agenda_item"} {
			s.bases[k] = corpus.Rand(seed, "base", o.Key, kind).Uint64()
		}
		b.sources[o.Key] = s
		b.order = append(b.order, o.Key)
	}
	return b
}

// coprimeStride returns a stride near n/φ that has no factor in common
// with n, and its inverse modulo n, so that k → k·stride mod n visits
// every entity once per n changes, spread over the log.
func coprimeStride(n int) (stride, inv int) {
	if n <= 2 {
		return 1, 1
	}
	for stride = int(float64(n)*0.6180339887) | 1; ; stride++ {
		if g, x := egcd(stride, n); g == 1 {
			return stride, ((x % n) + n) % n
		}
	}
}

// egcd returns gcd(a, b) and x with a·x ≡ gcd (mod b).
func egcd(a, b int) (int, int) {
	oldR, r, oldX, x := a, b, 1, 0
	for r != 0 {
		q := oldR / r
		oldR, r = r, oldR-q*r
		oldX, x = x, oldX-q*x
	}
	return oldR, oldX
}

// at is when record seq was written.
func (s *bigSource) at(seq int) time.Time {
	if seq >= s.h0 {
		return s.epoch.Add(time.Duration(seq-s.h0+1) * s.every)
	}
	ms := mulDiv(uint64(s.span.Milliseconds()), uint64(seq), uint64(s.h0))
	return corpusStart.Add(time.Duration(ms) * time.Millisecond)
}

// head is how many records the log has at now: those written by then.
func (s *bigSource) head(now time.Time) int {
	length := s.n + s.c
	if !now.Before(s.epoch) {
		return min(length, s.h0+int(now.Sub(s.epoch)/s.every))
	}
	d := now.Sub(corpusStart).Milliseconds()
	if d < 0 || s.h0 == 0 {
		return 0
	}
	// The records with span·seq < (d+1)·h0: ceil((d+1)·h0/span) of them.
	hi, lo := bits.Mul64(uint64(d+1), uint64(s.h0))
	span := uint64(s.span.Milliseconds())
	if hi >= span {
		return s.h0
	}
	q, rem := bits.Div64(hi, lo, span)
	if rem > 0 {
		q++
	}
	return int(min(uint64(s.h0), q))
}

// mulDiv is a·b/c without overflow of the product.
func mulDiv(a, b, c uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi >= c {
		return ^uint64(0)
	}
	q, _ := bits.Div64(hi, lo, c)
	return q
}

// changeOf is the change of entity e (its position among the changes)
// and whether the log has one.
func (s *bigSource) changeOf(e int) (int, bool) {
	k := int(uint64(e) * uint64(s.inv) % uint64(s.n))
	return k, k < s.c
}

// deleted tells whether entity e's change is a delete.
func (s *bigSource) deleted(e int) bool {
	return splitmix(s.hash^uint64(e))%bigDeleteShare == 0
}

// latest is the seq of entity e's latest record in the first h records,
// and false when e is not there (not created yet, or deleted).
func (s *bigSource) latest(e, h int) (int, bool) {
	if e >= min(h, s.n) {
		return 0, false
	}
	if k, ok := s.changeOf(e); ok && s.n+k < h {
		return s.n + k, !s.deleted(e)
	}
	return e, true
}

// The snapshot's order is the entity ids', as log.ts readSnapshot orders
// them: documents, then meetings, then motions (each kind in the order of
// its native ids). Entities are laid out in blocks of 16: 13 documents, 2
// meetings, 1 motion (about the small corpus's proportions).
const bigBlock = 16

var bigKindStart = [3]int{0, 13, 15}
var bigKindSize = [3]int{13, 2, 1}

// kindOf is entity e's kind (0 document, 1 meeting, 2 motion) and its
// index among that kind.
func kindOf(e int) (int, int) {
	j := e % bigBlock
	for k := 2; k >= 0; k-- {
		if j >= bigKindStart[k] {
			return k, e/bigBlock*bigKindSize[k] + j - bigKindStart[k]
		}
	}
	return 0, 0
}

// entityOf is the entity of a kind's index i.
func entityOf(kind, i int) int {
	return i/bigKindSize[kind]*bigBlock + bigKindStart[kind] + i%bigKindSize[kind]
}

// kindCount is how many of the first n entities are of a kind.
func kindCount(kind, n int) int {
	return n/bigBlock*bigKindSize[kind] + max(0, min(n%bigBlock-bigKindStart[kind], bigKindSize[kind]))
}

// snapshotEntity is the entity at snapshot position pos, in order.
func (s *bigSource) snapshotEntity(pos int) (int, bool) {
	for k := 0; k < 3; k++ {
		c := kindCount(k, s.n)
		if pos < c {
			return entityOf(k, pos), true
		}
		pos -= c
	}
	return 0, false
}

// kindStartPos is the snapshot position of a kind's first entity.
func (s *bigSource) kindStartPos(kind int) int {
	pos := 0
	for k := 0; k < kind; k++ {
		pos += kindCount(k, s.n)
	}
	return pos
}

// LargeExportSources are the keys of the sources whose export holds a
// log of the large export, in the catalogue's order; none without it.
func (e *Emulator) LargeExportSources() []string {
	if e.big == nil {
		return nil
	}
	return append([]string(nil), e.big.order...)
}
