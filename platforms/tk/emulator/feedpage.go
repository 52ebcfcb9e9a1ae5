package emulator

import (
	"sort"
	"time"
)

// Paging in feed mode. Entry m of the merged feed (history and items, by
// ApiGewijzigdOp; on equal times the history first) has the token
// feedTokenBase+3m+1. A page finds its first history document and item by
// binary search on their merged positions, so a page deep in a feed of
// 400,000 documents costs no more than the first.

func feedToken(m int) int64 { return feedTokenBase + int64(m)*3 + 1 }

// firstAfter is the merged position of the first entry after skiptoken.
func firstAfter(skip int64) int {
	if skip < feedTokenBase+1 {
		return 0
	}
	return int((skip-feedTokenBase-1)/3) + 1
}

// histUpTo is the number of history documents with ApiGewijzigdOp ≤ at.
func (p *feedPlan) histUpTo(at int64) int {
	return sort.Search(p.hist, func(e int) bool { return p.histAt(e) > at })
}

// itemsBefore is the number of items with ApiGewijzigdOp < at.
func (p *feedPlan) itemsBefore(at int64) int {
	return sort.Search(len(p.items), func(q int) bool { return p.items[q].at >= at })
}

func (p *feedPlan) itemPos(q int) int { return q + p.histUpTo(p.items[q].at) }
func (p *feedPlan) histPos(e int) int { return e + p.itemsBefore(p.histAt(e)) }

// page is up to FeedPageSize entries of category cat (nil: all) after
// skiptoken skip, as of now.
func (p *feedPlan) page(cat *set, skip int64, now time.Time) []pageEntry {
	cut := p.cutoff(now)
	m0 := firstAfter(skip)
	q := sort.Search(len(p.items), func(q int) bool { return p.itemPos(q) >= m0 })
	e := p.hist
	if cat == nil || cat == p.docSet {
		e = sort.Search(p.hist, func(e int) bool { return p.histPos(e) >= m0 })
	}
	var out []pageEntry
	for len(out) < FeedPageSize {
		hist := e < p.hist && (q >= len(p.items) || p.histAt(e) <= p.items[q].at)
		if hist {
			at := p.histAt(e)
			if at > cut {
				break
			}
			r := p.extraRow(e)
			out = append(out, pageEntry{token: feedToken(p.histPos(e)), typ: tDocument, row: r, updated: utcNanos(at), enclosure: true})
			e++
			continue
		}
		if q >= len(p.items) {
			break
		}
		it := p.items[q]
		if it.at > cut {
			break
		}
		if match := it.set == cat || cat == nil || (it.kind != kindBase && cat == p.docSet); match {
			pe := pageEntry{token: feedToken(p.itemPos(q)), typ: tDocument, updated: utcNanos(it.at)}
			switch it.kind {
			case kindBase:
				pe.typ, pe.row = it.set.typ, it.set.rows[it.idx]
				_, _, pe.enclosure = p.h.resourceMeta(it.set, int(it.idx))
			case kindNew:
				pe.row, pe.enclosure = p.extraRow(int(it.ref)), true
			default: // a re-send or a deletion: the version at its time
				var deleted bool
				pe.row, deleted = p.version(int(it.ref), it.at)
				pe.enclosure = !deleted
			}
			out = append(out, pe)
		}
		q++
	}
	return out
}

func utcNanos(at int64) string { return time.Unix(0, at).UTC().Format("2006-01-02T15:04:05Z") }

// FeedCounts are the Document figures of an emulator's SyncFeed at a time:
// what a replica that has paged category=Document to rel="resume" holds.
type FeedCounts struct {
	// Documents is the number of distinct Document ids in the feed;
	// Live of them are not deleted (their latest entry has
	// tk:verwijderd="false"), Deleted are.
	Documents, Live, Deleted int
	// Entries is the number of Document entries: one per id, plus
	// Resent re-sends and one per deletion.
	Entries, Resent int
	// LastToken is the skiptoken of the feed's last entry of any
	// category (0 when empty): a harvester caught up on all categories
	// has stored it.
	LastToken int64
}

// FeedCounts is FeedCountsAt the emulator clock's now.
func (e *Emulator) FeedCounts() FeedCounts { return e.FeedCountsAt(e.now()) }

// FeedCountsAt are the Document figures of the SyncFeed as it is served
// at time at (outside feed mode the whole base feed, whatever at).
func (e *Emulator) FeedCountsAt(at time.Time) FeedCounts {
	p := e.feedPlan()
	cut := p.cutoff(at)
	var c FeedCounts
	h := p.histUpTo(cut)
	q := sort.Search(len(p.items), func(q int) bool { return p.items[q].at > cut })
	c.Documents = h
	for _, it := range p.items[:q] {
		switch {
		case it.kind == kindBase && it.set == p.docSet, it.kind == kindNew:
			c.Documents++
		case it.kind == kindResend:
			c.Resent++
		case it.kind == kindDelete:
			c.Deleted++
		}
	}
	c.Live = c.Documents - c.Deleted
	c.Entries = c.Documents + c.Resent + c.Deleted
	if h+q > 0 {
		c.LastToken = feedToken(h + q - 1)
	}
	return c
}

// FeedDocuments calls yield for each Document id of the SyncFeed at the
// emulator clock's now, with whether it is deleted, in no particular
// order, until yield returns false. Generated documents are made on the
// way (some microseconds each), nothing is kept.
func (e *Emulator) FeedDocuments(yield func(id string, deleted bool) bool) {
	p := e.feedPlan()
	cut := p.cutoff(e.now())
	for ref := 0; ref < p.hist+p.base+p.fresh; ref++ {
		if p.docAt(ref) > cut {
			if ref >= p.hist+p.base {
				break // new documents come in order
			}
			continue
		}
		var id string
		if ref >= p.hist && ref < p.hist+p.base {
			id = p.docSet.rows[ref-p.hist][0].(string)
		} else {
			id = p.extraGUID(p.extra(ref))
		}
		del, ok := p.deleted[ref]
		if !yield(id, ok && del <= cut) {
			return
		}
	}
}
