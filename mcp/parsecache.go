package mcp

import (
	"bytes"
	"container/list"
	"hash/maphash"
	"slices"
	"sync"

	"github.com/besluitbron/besluitbron/adapters"
)

// The parse cache keeps what a platform answer parsed into beside the
// answer's bytes, so a cached answer asked again (the common case: the
// platform cache serves the same bytes to every caller until the entry
// changes) is parsed once, not on every tool call (issue 23).
//
// An entry is found by the parser's name and a hash of the body, and used
// only when the stored bytes equal the new body byte for byte: a parser is
// a function of the bytes alone, so equal bytes parse into an equal value,
// and a changed cache entry (a refresh, another version, another request)
// has other bytes and is parsed anew. Nothing has to be told when an entry
// changes, and no entry of one request can stand in for another's.
//
// The cache is bounded by entries and by the bytes of the bodies it holds;
// the least recently used entry goes first.

const (
	parseCacheEntries = 512
	parseCacheBytes   = 16 << 20
	// parseCacheMaxBody: larger answers (full texts) are parsed every time;
	// they are read rarely and would crowd the searches out.
	parseCacheMaxBody = 256 << 10
)

type parseKey struct {
	parser string
	hash   uint64
	size   int
}

type parseEntry struct {
	key   parseKey
	body  []byte
	value any
}

type parseCache struct {
	mu    sync.Mutex
	seed  maphash.Seed
	ll    *list.List // front: most recently used
	m     map[parseKey]*list.Element
	bytes int
	max   int // entries
	maxB  int // body bytes
}

func newParseCache(entries, maxBytes int) *parseCache {
	return &parseCache{seed: maphash.MakeSeed(), ll: list.New(), m: map[parseKey]*list.Element{}, max: entries, maxB: maxBytes}
}

// parses is the process's parse cache: answers are shared by every
// connector (one platform cache), so their parsed forms are too.
var parses = newParseCache(parseCacheEntries, parseCacheBytes)

func (c *parseCache) key(parser string, body []byte) parseKey {
	return parseKey{parser: parser, hash: maphash.Bytes(c.seed, body), size: len(body)}
}

func (c *parseCache) get(k parseKey, body []byte) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[k]
	if !ok {
		return nil, false
	}
	e := el.Value.(*parseEntry)
	if !bytes.Equal(e.body, body) {
		return nil, false
	}
	c.ll.MoveToFront(el)
	return e.value, true
}

func (c *parseCache) put(k parseKey, body []byte, v any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		// Same hash and size, other bytes (or a race of two parses of
		// the same answer): the newer one stays.
		e := el.Value.(*parseEntry)
		e.body, e.value = body, v
		c.ll.MoveToFront(el)
		return
	}
	c.m[k] = c.ll.PushFront(&parseEntry{key: k, body: body, value: v})
	c.bytes += len(body)
	for c.ll.Len() > c.max || c.bytes > c.maxB {
		el := c.ll.Back()
		e := el.Value.(*parseEntry)
		c.ll.Remove(el)
		delete(c.m, e.key)
		c.bytes -= len(e.body)
	}
}

// len is the number of entries (for tests).
func (c *parseCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ll.Len()
}

// parseOnce returns parse(body), from the cache when the same parser saw
// the same bytes before. parser names the parse function (one name per
// function, e.g. "obv.search"). The value is shared by every caller that
// gets it from the cache: callers must not change it (use a copy, as
// cachedPage does for a search page's hits). body must not be changed
// after the call either; an Answer's body never is.
func parseOnce[T any](parser string, body []byte, parse func([]byte) (T, error)) (T, error) {
	if len(body) > parseCacheMaxBody || hitpathOff.parseCache {
		return parse(body)
	}
	k := parses.key(parser, body)
	if v, ok := parses.get(k, body); ok {
		return v.(T), nil
	}
	v, err := parse(body)
	if err != nil {
		return v, err // failures are not kept: the error is cheap to remake and rare
	}
	parses.put(k, body, v)
	return v, nil
}

// parsePage is parseOnce for a search page of platform, handing out a page
// whose hits the caller may change (the cached page's slice stays as
// parsed). The hits are kept with their resource URIs (Surface.Link, a
// function of a hit's id and type alone): expanding ten URI templates was
// about 80 of a cached search's allocations per call (issue 33).
func parsePage(platform, parser string, body []byte, parse func([]byte) (adapters.Page, error)) (adapters.Page, error) {
	p, err := parseOnce(parser, body, func(b []byte) (adapters.Page, error) {
		p, err := parse(b)
		if err == nil {
			platformSurfaces()[platform].Link(p.Hits)
		}
		return p, err
	})
	if err != nil {
		return p, err
	}
	p.Hits = slices.Clone(p.Hits)
	return p, nil
}
