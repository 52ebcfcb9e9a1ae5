package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/besluitbron/besluitbron/cache"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/subcall"
)

// The result memo (issue 33). After the fast path's other work, a cached
// tools/call still ran its tool: a sub-request through Caddy's route to
// the cache, the tool's checks, rendering the page and encoding it twice
// (text and structuredContent), about four fifths of its cost. The memo
// keeps the encoded result of a call and writes it again for the same
// call while everything the tool read would read the same:
//
//   - every platform answer behind it was a hit on the cache's hot set,
//     and each would be a hit on that same entry again (cache.Hit.State:
//     the entry not refreshed, replaced, purged or evicted, of the store's
//     version, fresh);
//   - the connector's config (settings, tool list) is the one it ran under;
//   - the connector's list memo (the organisations obv_search checks) has
//     had no Put and no value expired (adapters.Memo.Stamp);
//   - for a tool kept for the day (mcpkit.KeptForTheDay), the connector's
//     clock is on the same date.
//
// Only a tool that declares its answer such a function is kept
// (mcpkit.Tool.Kept): no health, no load status, no index of our own that
// changes as it harvests.
//
// What moves with the clock while all of that holds is the result's Meta:
// each hit's Cache-Status ttl and Age, and fetched_at (the connector's
// clock less the oldest Age). The memo keeps the result as a template: the
// call it renders (memoRender) gets placeholders in those two fields
// (fillMeta), the encoded result is cut at them, and each answer fills
// them anew from the hits' State and the connector's clock, with meta's
// own formatting. So a kept result's bytes are those the tool would write
// at that moment, for as long as its entries hold. An entry's bytes are
// never written to after it is stored; each answer copies them into its
// own buffer.

// A kept result now lives as long as its cache entries (a search's ten
// minutes), so the memo holds the distinct questions of a busy connector
// over that time: up to 16,384 results and 32 MiB, each counted with its
// key and about 512 bytes of bookkeeping (its hits and answers).
const (
	memoMaxEntries = 16384
	memoMaxBytes   = 32 << 20
	memoMaxResult  = 256 << 10 // larger results are encoded per call
	memoOverhead   = 512
)

// The placeholders fillMeta writes into a rendered call's Meta: plain
// letters and digits (the same bytes in the text and in
// structuredContent), with a random part no argument or platform answer
// can know.
var memoSlotStatus, memoSlotFetched = func() (string, string) {
	var b [12]byte
	_, _ = rand.Read(b[:])
	n := hex.EncodeToString(b[:])
	return "bbslot" + n + "status", "bbslot" + n + "fetched"
}()

// memoBefore makes a kept result hold only within the second of the
// connector's clock it was rendered in, as the memo did before it kept
// templates: benchmarks of before and after in one run. Tests only; never
// changed while requests run.
var memoBefore bool

// memoRender is a call rendered for the memo: what fillMeta wrote in the
// slots, and which answers each is made of.
type memoRender struct {
	status, fetched     string // meta's values, for this call's own answer
	statusOf, fetchedOf []*subcall.Answer
	hasStatus, hasFetch bool
	// opaque: the tool filled its own Meta; the result is not kept.
	opaque bool
}

type memoRenderKey struct{}

func withMemoRender(ctx context.Context, r *memoRender) context.Context {
	return context.WithValue(ctx, memoRenderKey{}, r)
}

// memoRenderOf returns the render of a call the memo will keep, nil
// otherwise.
func memoRenderOf(ctx context.Context) *memoRender {
	r, _ := ctx.Value(memoRenderKey{}).(*memoRender)
	return r
}

// slot puts the placeholders into m (meta's Meta of answers as) and
// notes what they stand for: cache_status is the Cache-Status of each
// answer that has one, in order; fetched_at the oldest of them all.
func (r *memoRender) slot(m *mcpkit.Meta, as []*subcall.Answer) {
	if m.CacheStatus != "" {
		r.status, r.hasStatus = m.CacheStatus, true
		m.CacheStatus = memoSlotStatus
		for _, a := range as {
			if a != nil && a.Cache != "" {
				r.statusOf = append(r.statusOf, a)
			}
		}
	}
	if m.FetchedAt != "" {
		r.fetched, r.hasFetch = m.FetchedAt, true
		m.FetchedAt = memoSlotFetched
		for _, a := range as {
			if a != nil {
				r.fetchedOf = append(r.fetchedOf, a)
			}
		}
	}
}

// fill writes the value meta gave the rendered call itself.
func (r *memoRender) fill(b []byte, fetched bool) []byte {
	if fetched {
		return append(b, r.fetched...)
	}
	return append(b, r.status...)
}

// memoSlot is a place in a template: the offset in its text and which
// field goes there.
type memoSlot struct {
	at      int
	fetched bool // else cache_status
}

// cutSlots returns b without its placeholders, and where they were.
func cutSlots(b []byte) ([]byte, []memoSlot) {
	var text []byte
	var slots []memoSlot
	rest := b
	for {
		i := bytes.Index(rest, []byte("bbslot"))
		if i < 0 {
			break
		}
		var ph string
		switch {
		case bytes.HasPrefix(rest[i:], []byte(memoSlotStatus)):
			ph = memoSlotStatus
		case bytes.HasPrefix(rest[i:], []byte(memoSlotFetched)):
			ph = memoSlotFetched
		default:
			text = append(text, rest[:i+len("bbslot")]...)
			rest = rest[i+len("bbslot"):]
			continue
		}
		text = append(text, rest[:i]...)
		slots = append(slots, memoSlot{at: len(text), fetched: ph == memoSlotFetched})
		rest = rest[i+len(ph):]
	}
	if slots == nil {
		return b, nil
	}
	return append(text, rest...), slots
}

// fillSlots appends text with each slot filled by fill.
func fillSlots(dst, text []byte, slots []memoSlot, fill func([]byte, bool) []byte) []byte {
	prev := 0
	for _, s := range slots {
		dst = append(dst, text[prev:s.at]...)
		dst = fill(dst, s.fetched)
		prev = s.at
	}
	return append(dst, text[prev:]...)
}

// resultMemo is a connector's memo of encoded results, by Host, tool name
// and arguments as sent.
type resultMemo struct {
	mu    sync.RWMutex
	m     map[string]*memoEntry
	bytes int
}

// memoEntry is one encoded result and what it was made from.
type memoEntry struct {
	srv   *caddyhttp.Server // the server its sub-requests re-entered
	tools *map[string]fastTool
	cfg   *settings
	hits  []cache.Hit
	// answers are the hits as the connector's health records them.
	answers      []*subcall.Answer
	day          int   // the date of the connector's clock, for KeptForTheDay
	second       int64 // the connector's clock's second (memoBefore)
	listsVersion uint64
	listsUntil   time.Time
	// text is the encoded result (content, structuredContent, isError:
	// writeResultBody) without the slots; statusOf and fetchedOf are the
	// hits (indexes into hits) cache_status and fetched_at are made of.
	text                []byte
	slots               []memoSlot
	statusOf, fetchedOf []int
}

// memoStamp is what a tool call ran under, taken before it ran.
type memoStamp struct {
	srv          *caddyhttp.Server
	tools        *map[string]fastTool
	cfg          *settings
	day          int
	listsVersion uint64
	listsUntil   time.Time
}

// stamp takes what a call about to run reads besides the platform
// answers: the server its sub-requests re-enter, the config, the list
// memo, and for a tool kept for the day the clock's date.
func (f *fastPath) stamp(srv *caddyhttp.Server, tools *map[string]fastTool, keep mcpkit.Keeping, now time.Time) memoStamp {
	v, until := f.c.lists.Stamp(now)
	s := memoStamp{srv: srv, tools: tools, cfg: f.c.settings(), listsVersion: v, listsUntil: until}
	if keep == mcpkit.KeptForTheDay {
		y, m, d := now.Date()
		s.day = y*10000 + int(m)*100 + d
	}
	return s
}

// holds tells whether a call with stamp s would read what e was made from
// (the hits apart).
func (e *memoEntry) holds(s *memoStamp, now time.Time) bool {
	return e.srv == s.srv && e.tools == s.tools && e.cfg == s.cfg && e.day == s.day &&
		e.listsVersion == s.listsVersion && (e.listsUntil.IsZero() || !now.After(e.listsUntil)) &&
		(!memoBefore || e.second == now.Unix())
}

// answerKept writes the answer to call from a kept result, when one holds
// now, and reports whether it did.
func (f *fastPath) answerKept(w http.ResponseWriter, call *fastCall, key []byte, srv *caddyhttp.Server, tools *map[string]fastTool, keep mcpkit.Keeping) bool {
	f.memo.mu.RLock()
	e := f.memo.m[string(key)]
	f.memo.mu.RUnlock()
	if e == nil {
		return false
	}
	now := f.c.now()
	s := f.stamp(srv, tools, keep, now)
	if !e.holds(&s, now) {
		return false
	}
	// Each hit as Serve would answer it now: its ttl and Age.
	var small [8][2]int64
	state := small[:0]
	if len(e.hits) > len(small) {
		state = make([][2]int64, 0, len(e.hits))
	}
	for i := range e.hits {
		ttl, age, ok := e.hits[i].State()
		if !ok {
			return false
		}
		state = append(state, [2]int64{ttl, age})
	}
	// What the call would have done besides answering: the hits counted
	// in the cache's figures and the platform's health (connector.observe).
	for i := range e.hits {
		e.hits[i].Count()
		f.c.health.record(e.hits[i].Platform(), e.answers[i], "", 0, now)
	}
	buf := encodeBufs.Get().(*bytes.Buffer)
	defer putEncodeBuf(buf)
	buf.Reset()
	f.writeHead(buf, call)
	buf.Grow(len(e.text) + len(e.slots)*(32+32*len(e.statusOf)) + 3)
	b := fillSlots(buf.AvailableBuffer(), e.text, e.slots, func(b []byte, fetched bool) []byte {
		if !fetched {
			// meta: the Cache-Status of each answer, ", " between.
			for j, i := range e.statusOf {
				if j > 0 {
					b = append(b, ", "...)
				}
				b = cache.AppendHitStatus(b, state[i][0])
			}
			return b
		}
		// meta: now less the oldest answer's Age, in UTC, RFC 3339.
		var oldest time.Time
		for j, i := range e.fetchedOf {
			if at := now.Add(-time.Duration(state[i][1]) * time.Second); j == 0 || at.Before(oldest) {
				oldest = at
			}
		}
		return oldest.UTC().AppendFormat(b, time.RFC3339)
	})
	buf.Write(b)
	buf.WriteString("}}\n")
	sendJSON(w, buf)
	return true
}

// keep stores the encoded result text (with the slots of render) of the
// call made under stamp s, when every platform answer behind it was a
// recorded hit, each slot's answers are among them, and nothing it read
// changed while it ran.
func (f *fastPath) keep(key []byte, s *memoStamp, keep mcpkit.Keeping, rec *cache.HitRecorder, render *memoRender, text []byte, slots []memoSlot) {
	hits, all := rec.Hits()
	if !all || len(hits) == 0 || len(text) > memoMaxResult || render.opaque {
		return
	}
	now := f.c.now()
	if f.stamp(s.srv, s.tools, keep, now) != *s {
		return
	}
	e := &memoEntry{srv: s.srv, tools: s.tools, cfg: s.cfg, hits: hits, day: s.day, second: now.Unix(),
		listsVersion: s.listsVersion, listsUntil: s.listsUntil, slots: slots}
	for i := range hits {
		if hits[i].Status() < 200 || hits[i].Status() > 299 {
			return // observe records another answer's failure; run it
		}
		e.answers = append(e.answers, &subcall.Answer{Status: hits[i].Status(), Cache: hits[i].CacheStatus()})
	}
	var ok bool
	if e.statusOf, ok = hitsOf(hits, render.statusOf); !ok {
		return
	}
	if e.fetchedOf, ok = hitsOf(hits, render.fetchedOf); !ok {
		return
	}
	e.text = append([]byte(nil), text...)
	k := string(key)
	f.memo.mu.Lock()
	defer f.memo.mu.Unlock()
	if f.memo.m == nil {
		f.memo.m = map[string]*memoEntry{}
	}
	if old := f.memo.m[k]; old != nil {
		f.memo.bytes -= len(k) + len(old.text) + memoOverhead
		delete(f.memo.m, k)
	}
	for k2, old := range f.memo.m {
		// Full: an arbitrary entry goes (map order).
		if len(f.memo.m) < memoMaxEntries && f.memo.bytes+len(k)+len(e.text)+memoOverhead <= memoMaxBytes {
			break
		}
		f.memo.bytes -= len(k2) + len(old.text) + memoOverhead
		delete(f.memo.m, k2)
	}
	f.memo.m[k] = e
	f.memo.bytes += len(k) + len(e.text) + memoOverhead
}

// hitsOf finds the recorded hit of each answer (the one written to the
// answer's header map), by index; false when one is not among them or its
// Cache-Status and Age are not the hit's.
func hitsOf(hits []cache.Hit, as []*subcall.Answer) ([]int, bool) {
	var out []int
	for _, a := range as {
		found := false
		for i := range hits {
			if hits[i].Wrote(a.Header) {
				if a.Cache != hits[i].CacheStatus() || a.Header.Get("Age") != strconv.FormatInt(hits[i].Age(), 10) {
					return nil, false
				}
				out, found = append(out, i), true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return out, true
}

// clear drops every kept result.
func (m *resultMemo) clear() {
	m.mu.Lock()
	m.m, m.bytes = nil, 0
	m.mu.Unlock()
}

// memoKey appends a call's memo key to b: Host, tool name and arguments as
// sent (the same bytes are the same call; other bytes are another entry).
func memoKey(b []byte, host string, call *fastCall) []byte {
	b = append(b, host...)
	b = append(b, 0)
	b = append(b, call.name...)
	b = append(b, 0)
	return append(b, call.args...)
}
