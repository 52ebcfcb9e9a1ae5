package emulator

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// FeedConfig shapes the SyncFeed for a harvester's tests: the real feed
// holds about 400,000 Documents, re-sends old entities after data fixes
// (about 25,000 Documents at once, OpenDataPortaal issue 127), lists
// deletions as later entries with tk:verwijderd="true", and grows. Any
// non-zero field turns on feed mode, in which every feed entry whose
// ApiGewijzigdOp is after the clock's now is hidden, base data included,
// so moving Config.Clock makes entries appear after a stored skiptoken.
// Feed mode changes the SyncFeed only: OData keeps serving the base data
// (Config.Documents documents, none re-sent or deleted).
type FeedConfig struct {
	// Documents is how many Document entities the feed holds before the
	// data's end: the base documents plus older ones (dated from
	// September 2008 up to the base data's first day), generated from
	// (seed, position) only when a page or Entiteiten asks for them, so
	// 400,000 cost no memory. At most base ≈ base only; capped at 4,000,000.
	Documents int
	// Resent already-published documents (a contiguous block of old ones)
	// are sent again, all with ApiGewijzigdOp = data end + ResentAfter:
	// same id and content (tk:bijgewerkt unchanged), a later <updated>.
	Resent      int
	ResentAfter time.Duration
	// Deleted documents, spread over all of them, get a later entry with
	// tk:verwijderd="true", one a second from data end + DeletedAfter + 1s.
	Deleted      int
	DeletedAfter time.Duration
	// New documents appear after the data: the first at data end + NewAfter
	// (0: 24h), then one every NewEvery (0: 1h).
	New      int
	NewAfter time.Duration
	NewEvery time.Duration
	// Clocked turns on feed mode (hiding entries after now) without any
	// of the above.
	Clocked bool
}

// feedTokenBase is where the skiptokens start; entry m of the feed has
// token feedTokenBase+3m+1, as in the base feed (data.go).
const feedTokenBase = 15_000_000

const maxFeedDocuments = 4_000_000

// historyStart is the date of the oldest generated document: Parlis holds
// documents since September 2008 (opendata.tweedekamer.nl/over).
var historyStart = time.Date(2008, 9, 1, 6, 0, 0, 0, time.UTC)

// Event kinds of planItem.
const (
	kindBase = iota
	kindResend
	kindDelete
	kindNew
)

// planItem is one feed entry other than a generated history document:
// a base entity, or an event on document ref.
type planItem struct {
	at   int64
	set  *set
	idx  int32
	kind uint8
	ref  int32
}

// feedPlan is the SyncFeed in feed mode. Documents are numbered by ref:
// [0, hist) the generated history, then the base documents, then the new
// ones. The feed is two streams merged by time: the history (its times
// computed from the position, increasing) and items (base entities and
// events, held in memory, a few per base row and event).
type feedPlan struct {
	h      *handler
	d      *Data
	seed   int64
	gate   bool
	hist   int
	base   int
	fresh  int
	t0     int64 // history times: t0 + e*step plus less than step/2
	step   int64
	newAt  int64
	every  int64
	mask   uint32
	items  []planItem
	docSet *set

	resFrom, resN int
	resAt         int64
	deleted       map[int]int64 // ref → time of its deletion entry
}

// plan is the feed-mode plan, nil when the feed is as it always was.
func (h *handler) plan() *feedPlan {
	if h.cfg.Feed == (FeedConfig{}) {
		return nil
	}
	return h.feedPlan()
}

func (h *handler) feedPlan() *feedPlan {
	h.planOnce.Do(func() { h.feedPlanV = newFeedPlan(h) })
	return h.feedPlanV
}

func newFeedPlan(h *handler) *feedPlan {
	d := h.data
	d.build()
	fc := h.cfg.Feed
	p := &feedPlan{h: h, d: d, seed: d.seed, gate: fc != (FeedConfig{}), docSet: d.sets["Document"]}
	p.base = len(p.docSet.rows)
	p.hist = max(0, min(fc.Documents, maxFeedDocuments)-p.base)
	p.fresh = max(0, fc.New)
	start := d.end.AddDate(-4, 0, 0)
	p.t0 = historyStart.UnixNano()
	if p.hist > 0 {
		p.step = max(2, (start.UnixNano()-p.t0)/int64(p.hist))
	}
	end := d.end.UnixNano()
	p.newAt = end + int64(cmp0(fc.NewAfter, 24*time.Hour))
	p.every = int64(cmp0(fc.NewEvery, time.Hour))
	m := sha256.Sum256(fmt.Appendf(nil, "%d\x00tk-feed-mask", p.seed))
	p.mask = binary.BigEndian.Uint32(m[:4])

	p.items = make([]planItem, 0, len(d.feed)+fc.Resent+fc.Deleted+p.fresh)
	for _, f := range d.feed {
		p.items = append(p.items, planItem{at: f.at, set: f.set, idx: int32(f.idx), kind: kindBase})
	}
	old := p.hist + p.base // documents that exist before the data's end
	if n := min(max(fc.Resent, 0), old); n > 0 {
		r := corpus.Rand(p.seed, "tk-feed-resent")
		p.resN, p.resFrom = n, r.IntN((old-n)/2+1) // old ones: from the first half
		p.resAt = end + int64(max(fc.ResentAfter, 0))
		for k := 0; k < n; k++ {
			p.items = append(p.items, planItem{at: p.resAt, kind: kindResend, ref: int32(p.resFrom + k)})
		}
	}
	p.deleted = map[int]int64{}
	if n := min(max(fc.Deleted, 0), old); n > 0 {
		r := corpus.Rand(p.seed, "tk-feed-deleted")
		at := end + int64(max(fc.DeletedAfter, 0))
		for j := 0; j < n; j++ {
			lo, hi := j*old/n, (j+1)*old/n
			ref := lo + r.IntN(hi-lo)
			at += int64(time.Second)
			p.deleted[ref] = at
			p.items = append(p.items, planItem{at: at, kind: kindDelete, ref: int32(ref)})
		}
	}
	for j := 0; j < p.fresh; j++ {
		p.items = append(p.items, planItem{at: p.newAt + int64(j)*p.every, kind: kindNew, ref: int32(old + j)})
	}
	sort.SliceStable(p.items, func(a, b int) bool { return p.items[a].at < p.items[b].at })
	return p
}

func cmp0(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// mix is splitmix64: the history's times need a cheap hash, computed some
// twenty times for every page.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// histAt is the ApiGewijzigdOp of history document e, increasing in e.
func (p *feedPlan) histAt(e int) int64 {
	j := int64(mix(uint64(p.seed)*0x100000001b3^uint64(e)) % uint64(p.step/2))
	return p.t0 + int64(e)*p.step + j
}

// docAt is the ApiGewijzigdOp of document ref's first entry.
func (p *feedPlan) docAt(ref int) int64 {
	switch {
	case ref < p.hist:
		return p.histAt(ref)
	case ref < p.hist+p.base:
		return p.d.byGUID[p.docSet.rows[ref-p.hist][0].(string)].at
	}
	return p.newAt + int64(ref-p.hist-p.base)*p.every
}

// extra is the generation index of a generated document: history e, or
// hist+j for new document j.
func (p *feedPlan) extra(ref int) int {
	if ref < p.hist {
		return ref
	}
	return ref - p.base
}

// guidMul scrambles the index in a generated GUID (odd, so invertible
// modulo 2^32: neighbours do not share their last hex digits).
const guidMul uint32 = 0x9e3779b1

var guidMulInv = func() uint32 {
	x := guidMul // Newton's iteration doubles the correct low bits each step
	for i := 0; i < 5; i++ {
		x *= 2 - guidMul*x
	}
	return x
}()

// extraGUID is a version-4 GUID whose last four bytes carry the index
// (scrambled), so Entiteiten finds any of 400,000 documents without a map.
func (p *feedPlan) extraGUID(e int) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%d\x00tk-feed-doc\x00%d", p.seed, e))
	b := h[:16]
	binary.BigEndian.PutUint32(b[12:], uint32(e)*guidMul^p.mask)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// extraRef finds a generated document by GUID.
func (p *feedPlan) extraRef(id string) (int, bool) {
	raw, err := hex.DecodeString(strings.ReplaceAll(id, "-", ""))
	if err != nil || len(raw) != 16 {
		return 0, false
	}
	e := int((binary.BigEndian.Uint32(raw[12:]) ^ p.mask) * guidMulInv)
	if e >= p.hist+p.fresh || p.extraGUID(e) != id {
		return 0, false
	}
	if e < p.hist {
		return e, true
	}
	return e + p.base, true
}

// row is document ref as first published.
func (p *feedPlan) row(ref int) row {
	if ref >= p.hist && ref < p.hist+p.base {
		return p.docSet.rows[ref-p.hist]
	}
	return p.extraRow(ref)
}

// version is document ref as the feed shows it at time at: deleted from
// its deletion entry on.
func (p *feedPlan) version(ref int, at int64) (row, bool) {
	r := p.row(ref)
	del, ok := p.deleted[ref]
	if !ok || del > at {
		return r, false
	}
	c := append(row(nil), r...)
	c[19] = localStamp(time.Unix(0, del).Add(-time.Minute))
	c[20] = apiStamp(time.Unix(0, del))
	c[21] = true
	return c, true
}

// extraRow generates a history or new document, deterministically from
// (seed, index); it has no zaak, dossier or votes.
func (p *feedPlan) extraRow(ref int) row {
	e := p.extra(ref)
	at := time.Unix(0, p.docAt(ref)).UTC()
	r := corpus.Rand(p.seed, "tk-feed-doc", e)
	total := 0
	for _, s := range docSoorten {
		total += s.weight
	}
	w := r.IntN(total)
	var ds docSoort
	for _, s := range docSoorten {
		if w < s.weight {
			ds = s
			break
		}
		w -= s.weight
	}
	topic := lowerPhrase(r, topicOf(r))
	var onderwerp string
	if ds.indiener {
		sP := p.d.sets["Persoon"]
		pr := sP.rows[r.IntN(len(sP.rows))]
		naam := pr[5].(string)
		if tv, ok := pr[4].(string); ok {
			naam = tv + " " + naam
		}
		onderwerp = fmt.Sprintf("%s van het lid %s over %s", ds.soort, naam, topic)
	} else if ds.soort == "Brief regering" {
		onderwerp = fmt.Sprintf("Brief van de %s over %s", ministers[r.IntN(len(ministers))], topic)
	} else {
		onderwerp = fmt.Sprintf("%s over %s", ds.soort, topic)
	}
	day := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)
	var ontvangst, kenmerk any
	if ds.soort == "Brief regering" {
		ontvangst = dayLocal(day)
		kenmerk = fmt.Sprintf("%d-%07d", day.Year(), r.IntN(10_000_000))
	}
	// numbers 50000 and up: the base documents' run below that
	num := fmt.Sprintf("%dD%05d", day.Year(), 50000+e%50000)
	gew := at.Add(-time.Duration(1+r.IntN(60)) * time.Minute)
	return row{p.extraGUID(e), ds.soort, num, onderwerp, onderwerp, dayLocal(day), vergaderjaar(day), 2,
		nil, nil, nil, dayLocal(day), ontvangst, nil, kenmerk, "Tweede Kamer", "application/pdf", 18000 + r.IntN(70000),
		guid(p.seed, "DocumentVersie", "feed", e), localStamp(gew), apiStamp(at), false}
}

// extraPDF is the file of a generated document: a PDF of ContentLength bytes.
func (p *feedPlan) extraPDF(ref int) []byte {
	r := p.extraRow(ref)
	rnd := corpus.Rand(p.seed, "tk-feed-text", p.extra(ref))
	text := fmt.Sprintf("Tweede Kamer der Staten-Generaal\n\n%s\n\nNr. %s\n\n%s\n", r[3], r[2], corpus.Paragraphs(rnd, 6))
	return makePDF(text, r[17].(int))
}

// docRef is the ref of base Document row i.
func (p *feedPlan) docRef(i int) int { return p.hist + i }

// entity is the current version of the entity with GUID id, as of now:
// unknown until its first entry is due.
func (p *feedPlan) entity(id string, now time.Time) (*entityType, row, func() ([]byte, string, bool), bool) {
	at := p.cutoff(now)
	if f, ok := p.d.byGUID[id]; ok {
		if f.at > at {
			return nil, nil, nil, false
		}
		file := func() ([]byte, string, bool) { return p.h.resourceBytes(f.set, f.idx) }
		if f.set != p.docSet {
			return f.set.typ, f.set.rows[f.idx], file, true
		}
		r, deleted := p.version(p.docRef(f.idx), at)
		if deleted {
			file = noFile
		}
		return tDocument, r, file, true
	}
	ref, ok := p.extraRef(id)
	if !ok || p.docAt(ref) > at {
		return nil, nil, nil, false
	}
	r, deleted := p.version(ref, at)
	file := func() ([]byte, string, bool) { return p.extraPDF(ref), "application/pdf", true }
	if deleted {
		file = noFile
	}
	return tDocument, r, file, true
}

// noFile: a deleted document's file is gone.
func noFile() ([]byte, string, bool) { return nil, "", false }

// cutoff is the latest ApiGewijzigdOp shown at now.
func (p *feedPlan) cutoff(now time.Time) int64 {
	if !p.gate {
		return math.MaxInt64
	}
	return now.UnixNano()
}
