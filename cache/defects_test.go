package cache

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/cachestatus"
)

// TestHotSetOrderStaysBounded: entries deleted from the hot set (purges,
// version drops, sweeps) leave nothing behind in its insertion order, so
// put/del churn with room to spare never grows it (issue 10: del left the
// key in order, and only evictions by size ever compacted it).
func TestHotSetOrderStaysBounded(t *testing.T) {
	h := newHotSet(64 << 20)
	e := &Entry{Body: []byte("x")}
	for i := range 100_000 {
		raw := fmt.Sprintf("k%d", i)
		h.put(raw, "sum"+raw, e)
		h.del("sum" + raw)
	}
	h.put("live", "sumlive", e)
	if h.len() != 1 {
		t.Fatalf("%d live entries, want 1", h.len())
	}
	if n := len(h.order) - h.head; n > 2*h.len()+hotOrderSlack {
		t.Fatalf("order holds %d keys for %d live entries", n, h.len())
	}
	if cap(h.order) > 4*(2*h.len()+hotOrderSlack) {
		t.Fatalf("order's backing array holds %d slots for %d live entries", cap(h.order), h.len())
	}
}

// TestHotSetReinsertedKeyKeepsItsNewPlace: a key deleted and put again is
// as new as its last insertion; its dead old place in the order never
// evicts it early.
func TestHotSetReinsertedKeyKeepsItsNewPlace(t *testing.T) {
	e := &Entry{Body: make([]byte, 1000)}
	sz := entrySize(e)
	h := newHotSet(4 * sz) // room for four
	h.put("a", "sa", e)
	h.del("sa")
	h.put("b", "sb", e)
	h.put("c", "sc", e)
	h.put("a", "sa", e) // newest now
	h.put("d", "sd", e)
	h.put("e", "se", e) // over by one: the oldest (b) goes, not a
	for _, k := range []string{"a", "c", "d", "e"} {
		if h.getRaw([]byte(k)) == nil {
			t.Fatalf("%s evicted; the oldest insertion is b", k)
		}
	}
	if h.getRaw([]byte("b")) != nil || h.bytes() != 4*sz {
		t.Fatalf("b kept or size %d != %d", h.bytes(), 4*sz)
	}
}

// TestStaleWhileRevalidateResendsThePOSTBody: the background refresh of a
// POST search sends the body the entry is keyed on (issue 10: it went out
// empty). The detach here drops the body as Caddy's (platform_cache's)
// does, since the original request's body is gone by then.
func TestStaleWhileRevalidateResendsThePOSTBody(t *testing.T) {
	c := newClock()
	s := openStore(t, "", c, "1")
	pol := Policy{Kind: KindSearch, TTL: time.Minute, StaleWhileRevalidate: time.Hour, AllowPOST: true}
	var seen []string
	u := &upstream{handler: func(w http.ResponseWriter, r *http.Request) error {
		b, _ := io.ReadAll(r.Body)
		seen = append(seen, fmt.Sprintf("%s cl=%d", b, r.ContentLength))
		_, _ = io.WriteString(w, "answer to "+string(b))
		return nil
	}}
	detach := func(r *http.Request) *http.Request {
		req := r.Clone(r.Context())
		req.Body, req.ContentLength, req.GetBody = http.NoBody, 0, nil
		return req
	}
	const q = `{"query":{"match":{"text":"begroting"}}}`
	post := func() *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		if err := s.Serve(rec, httptest.NewRequest(http.MethodPost, "/_search", strings.NewReader(q)), pol, u, detach); err != nil {
			t.Fatal(err)
		}
		return rec
	}
	post()
	c.Advance(2 * time.Minute)
	if r := post(); !strings.Contains(r.Header().Get(cachestatus.Header), "stale-while-revalidate") {
		t.Fatalf("not served stale: %q", r.Header().Get(cachestatus.Header))
	}
	s.bg.Wait()
	want := fmt.Sprintf("%s cl=%d", q, len(q))
	if len(seen) != 2 || seen[1] != want {
		t.Fatalf("upstream saw %q; the refresh must send %q", seen, want)
	}
	if r := post(); r.Body.String() != "answer to "+q || !strings.HasPrefix(r.Header().Get(cachestatus.Header), "BesluitBron; hit; ttl=60") {
		t.Fatalf("refreshed entry: %q %q", r.Body.String(), r.Header().Get(cachestatus.Header))
	}
}

// TestHotSetOrderBoundedUnderEviction: evictions by size alone (no del)
// keep the order's backing array bounded too.
func TestHotSetOrderBoundedUnderEviction(t *testing.T) {
	e := &Entry{Body: make([]byte, 100)}
	h := newHotSet(100 * entrySize(e))
	for i := range 100_000 {
		raw := fmt.Sprintf("k%d", i)
		h.put(raw, "sum"+raw, e)
	}
	if h.len() != 100 {
		t.Fatalf("%d live entries, want 100", h.len())
	}
	if cap(h.order) > 4*(2*h.len()+hotOrderSlack) {
		t.Fatalf("order's backing array holds %d slots for %d live entries", cap(h.order), h.len())
	}
}
