package mcp

import (
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/besluitbron/besluitbron/cache"
	"github.com/besluitbron/besluitbron/caddymodule/subrequest"
)

// The result memo (issue 33). After the fast path's other work, a cached
// tools/call still ran its tool: a sub-request through Caddy's route to
// the cache, the tool's checks, rendering the page and encoding it twice
// (text and structuredContent), about four fifths of its cost. The memo
// keeps the encoded result of a call and writes it again for the same
// call while everything the tool read would read the same:
//
//   - every platform answer behind it was a hit on the cache's hot set,
//     and each would be that same hit again (cache.Hit.Holds: the entry
//     not refreshed, replaced, purged or evicted, fresh, with the same
//     Cache-Status ttl and Age the tool read);
//   - the connector's config (settings, tool list) is the one it ran under;
//   - the connector's list memo (the organisations obv_search checks) has
//     had no Put and no value expired (adapters.Memo.Stamp);
//   - the clocks the tool reads (the connector's, and the wall clock that
//     stamps fetched_at in meta) are in the same second.
//
// The last makes an entry live a second at most: a busy call is run once a
// second and written from the memo otherwise. Only the tools in
// memoTools are kept: their answer is a function of the above alone (no
// health, no load status, no index of our own that changes as it harvests).
// An entry's bytes are never written to after it is stored; each answer
// copies them into its own buffer.

// memoTools are the tools whose result the memo keeps: one platform
// request (obv_search also reads the organisations from the list memo),
// the answer parsed, rendered with meta.
var memoTools = map[string]bool{"obv_search": true, "ob_search": true, "cvdr_search": true, "bwb_search": true}

const (
	memoMaxEntries = 4096
	memoMaxBytes   = 32 << 20
	memoMaxResult  = 256 << 10 // larger results are encoded per call
)

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
	answers      []*subrequest.Answer
	wall, clock  int64 // the seconds of the wall clock and the connector's
	listsVersion uint64
	listsUntil   time.Time
	body         []byte // content, structuredContent, isError (writeResultBody)
}

// memoStamp is what a tool call ran under, taken before it ran.
type memoStamp struct {
	srv          *caddyhttp.Server
	tools        *map[string]fastTool
	cfg          *settings
	wall, clock  int64
	listsVersion uint64
	listsUntil   time.Time
}

// stamp takes what a call about to run reads besides the platform
// answers: the server its sub-requests re-enter, the config, the list
// memo, the clocks.
func (f *fastPath) stamp(srv *caddyhttp.Server, tools *map[string]fastTool) memoStamp {
	now := f.c.now()
	v, until := f.c.lists.Stamp(now)
	return memoStamp{srv: srv, tools: tools, cfg: f.c.settings(), wall: wallSecond(), clock: now.Unix(),
		listsVersion: v, listsUntil: until}
}

// wallSecond is the wall clock's second. meta (tools.go) stamps fetched_at
// with time.Now, not the connector's clock, so an encoded result holds
// for that clock's second too.
func wallSecond() int64 { return time.Now().Unix() }

// holds tells whether a call with stamp s would read what e was made from.
func (e *memoEntry) holds(s *memoStamp, now time.Time) bool {
	if e.srv != s.srv || e.tools != s.tools || e.cfg != s.cfg || e.wall != s.wall || e.clock != s.clock ||
		e.listsVersion != s.listsVersion || (!e.listsUntil.IsZero() && now.After(e.listsUntil)) {
		return false
	}
	for i := range e.hits {
		if !e.hits[i].Holds() {
			return false
		}
	}
	return true
}

// lookup returns the encoded result for the call, when one holds now.
func (f *fastPath) lookup(key []byte, srv *caddyhttp.Server, tools *map[string]fastTool) ([]byte, bool) {
	f.memo.mu.RLock()
	e := f.memo.m[string(key)]
	f.memo.mu.RUnlock()
	if e == nil {
		return nil, false
	}
	now := f.c.now()
	s := f.stamp(srv, tools)
	if !e.holds(&s, now) {
		return nil, false
	}
	// What the call would have done besides answering: the hits counted
	// in the cache's figures and the platform's health (connector.observe).
	for i := range e.hits {
		e.hits[i].Count()
		f.c.health.record(e.hits[i].Platform(), e.answers[i], "", 0, now)
	}
	return e.body, true
}

// keep stores body as the encoded result of the call made under stamp s,
// when every platform answer behind it was a recorded hit and nothing it
// read changed while it ran.
func (f *fastPath) keep(key []byte, s *memoStamp, rec *cache.HitRecorder, body []byte) {
	hits, all := rec.Hits()
	if !all || len(hits) == 0 || len(body) > memoMaxResult {
		return
	}
	if f.stamp(s.srv, s.tools) != *s {
		return
	}
	e := &memoEntry{srv: s.srv, tools: s.tools, cfg: s.cfg, hits: hits, wall: s.wall, clock: s.clock,
		listsVersion: s.listsVersion, listsUntil: s.listsUntil, body: append([]byte(nil), body...)}
	for i := range hits {
		if hits[i].Status() < 200 || hits[i].Status() > 299 {
			return // observe records another answer's failure; run it
		}
		e.answers = append(e.answers, &subrequest.Answer{Status: hits[i].Status(), Cache: hits[i].CacheStatus()})
	}
	k := string(key)
	f.memo.mu.Lock()
	defer f.memo.mu.Unlock()
	if f.memo.m == nil {
		f.memo.m = map[string]*memoEntry{}
	}
	if old := f.memo.m[k]; old != nil {
		f.memo.bytes -= len(k) + len(old.body)
		delete(f.memo.m, k)
	}
	for k2, old := range f.memo.m {
		// Full: an arbitrary entry goes (map order); a busy call is
		// back within a second.
		if len(f.memo.m) < memoMaxEntries && f.memo.bytes+len(k)+len(e.body) <= memoMaxBytes {
			break
		}
		f.memo.bytes -= len(k2) + len(old.body)
		delete(f.memo.m, k2)
	}
	f.memo.m[k] = e
	f.memo.bytes += len(k) + len(e.body)
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
