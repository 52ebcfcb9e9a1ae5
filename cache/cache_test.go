package cache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/besluitbron/besluitbron/cachestatus"
	"github.com/besluitbron/besluitbron/platforms"
)

// clock is a settable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func openStore(t *testing.T, dir string, c *clock, version string) *Store {
	t.Helper()
	s, err := Open(Options{Platform: "obv", Version: version, Dir: dir, MemoryBytes: 8 << 20, MaxBody: 1 << 20, Clock: c.Now, SweepEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

var listPolicy = Policy{Kind: KindList, TTL: 24 * time.Hour, StaleWhileRevalidate: time.Hour, StaleIfError: 7 * 24 * time.Hour, MaxBody: 1 << 20}

// upstream is a counting fake of the rest of the chain.
type upstream struct {
	calls   atomic.Int64
	handler func(w http.ResponseWriter, r *http.Request) error
}

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) error {
	u.calls.Add(1)
	return u.handler(w, r)
}

func okUpstream(body string, extra ...string) *upstream {
	return &upstream{handler: func(w http.ResponseWriter, r *http.Request) error {
		for i := 0; i+1 < len(extra); i += 2 {
			w.Header().Add(extra[i], extra[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, body)
		return nil
	}}
}

func do(t *testing.T, s *Store, pol Policy, u *upstream, r *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	if err := s.Serve(rec, r, pol, u, nil); err != nil {
		rec.Code = 502
		rec.Header().Set("X-Test-Error", err.Error())
	}
	return rec
}

func get(path string) *http.Request { return httptest.NewRequest(http.MethodGet, path, nil) }

func TestMissThenHitWithCacheStatusAndAge(t *testing.T) {
	c := newClock()
	s := openStore(t, t.TempDir(), c, "1.0.0")
	u := okUpstream(`{"sources":[]}`, platforms.HeaderQueueWait, "12", "X-Upstream", "a")
	r1 := do(t, s, listPolicy, u, get("/api/sources"))
	if r1.Code != 200 || r1.Body.String() != `{"sources":[]}` {
		t.Fatalf("miss: %d %q", r1.Code, r1.Body.String())
	}
	if got := r1.Header().Get(cachestatus.Header); got != "BesluitBron; fwd=miss; fwd-status=200; stored; ttl=86400" {
		t.Fatalf("miss Cache-Status %q", got)
	}
	if r1.Header().Get(platforms.HeaderQueueWait) != "12" {
		t.Fatal("the caller that waited should see its queue wait")
	}
	c.Advance(90 * time.Second)
	r2 := do(t, s, listPolicy, u, get("/api/sources"))
	if u.calls.Load() != 1 {
		t.Fatalf("upstream calls %d, want 1", u.calls.Load())
	}
	if got := r2.Header().Get(cachestatus.Header); got != "BesluitBron; hit; ttl=86310" {
		t.Fatalf("hit Cache-Status %q", got)
	}
	if r2.Header().Get("Age") != "90" || r2.Header().Get("Content-Length") != "14" || r2.Header().Get("X-Upstream") != "a" {
		t.Fatalf("hit headers %v", r2.Header())
	}
	if r2.Header().Get(platforms.HeaderQueueWait) != "" {
		t.Fatal("Besluitbron-Queue-Wait was stored")
	}
	st := s.Stats()
	if st.Hits != 1 || st.Misses != 1 || st.Stored != 1 || st.DiskEntries != 1 || st.MemoryEntries != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestLifetimeExpires(t *testing.T) {
	c := newClock()
	s := openStore(t, "", c, "1")
	pol := Policy{Kind: KindSearch, TTL: 10 * time.Minute}
	u := okUpstream("r")
	do(t, s, pol, u, get("/api/search?query=a"))
	c.Advance(10*time.Minute - time.Second)
	do(t, s, pol, u, get("/api/search?query=a"))
	if u.calls.Load() != 1 {
		t.Fatal("fresh entry not served")
	}
	c.Advance(time.Second)
	r := do(t, s, pol, u, get("/api/search?query=a"))
	if u.calls.Load() != 2 || !strings.Contains(r.Header().Get(cachestatus.Header), "fwd=miss") {
		t.Fatalf("expired entry served: calls %d, %q", u.calls.Load(), r.Header().Get(cachestatus.Header))
	}
}

func TestDurableTierSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	c := newClock()
	s := openStore(t, dir, c, "1")
	u := okUpstream("doc")
	do(t, s, listPolicy, u, get("/api/entities/x"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := openStore(t, dir, c, "1")
	r := do(t, s2, listPolicy, u, get("/api/entities/x"))
	if u.calls.Load() != 1 || r.Body.String() != "doc" || !strings.HasPrefix(r.Header().Get(cachestatus.Header), "BesluitBron; hit") {
		t.Fatalf("after reopen: calls %d, %q %q", u.calls.Load(), r.Body.String(), r.Header().Get(cachestatus.Header))
	}
}

func TestOtherVersionDroppedLazilyNothingPurgedAtStart(t *testing.T) {
	dir := t.TempDir()
	c := newClock()
	s := openStore(t, dir, c, "1.0.0")
	u := okUpstream("old")
	do(t, s, listPolicy, u, get("/a"))
	do(t, s, listPolicy, u, get("/b"))
	_ = s.Close()

	s2 := openStore(t, dir, c, "1.1.0")
	if st := s2.Stats(); st.DiskEntries != 2 {
		t.Fatalf("start-up removed entries: %+v", st)
	}
	u.handler = okUpstream("new").handler
	r := do(t, s2, listPolicy, u, get("/a"))
	if r.Body.String() != "new" || u.calls.Load() != 3 {
		t.Fatalf("old version served: %q calls %d", r.Body.String(), u.calls.Load())
	}
	if got := r.Header().Get(cachestatus.Header); got != "BesluitBron; fwd=miss; fwd-status=200; stored; ttl=86400; detail=other-version" {
		t.Fatalf("Cache-Status %q", got)
	}
	st := s2.Stats()
	if st.VersionDrops != 1 || st.DiskEntries != 2 { // /a replaced, /b untouched until asked
		t.Fatalf("stats %+v", st)
	}
	// The same in memory: a reload that changes the version override.
	s2.SetVersion("1.2.0")
	r = do(t, s2, listPolicy, u, get("/a"))
	if u.calls.Load() != 4 || s2.Stats().VersionDrops != 2 {
		t.Fatalf("memory entry of another version served: %q", r.Header().Get(cachestatus.Header))
	}
}

func TestDamagedFileSetAsideNeverStopsStart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "obv.db")
	if err := os.WriteFile(path, bytes.Repeat([]byte("not a database "), 1000), 0o600); err != nil {
		t.Fatal(err)
	}
	c := newClock()
	s := openStore(t, dir, c, "1")
	u := okUpstream("x")
	do(t, s, listPolicy, u, get("/a"))
	if s.Stats().DiskEntries != 1 {
		t.Fatal("fresh durable tier not working")
	}
	aside, _ := filepath.Glob(path + ".damaged-*")
	if len(aside) != 1 {
		t.Fatalf("damaged file not set aside: %v", aside)
	}
	// An empty (truncated) file is damaged too.
	dir2 := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir2, "obv.db"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	openStore(t, dir2, c, "1")
}

func TestDamagedEntryDetected(t *testing.T) {
	e := &Entry{Version: "1", Kind: KindDocument, StoredAt: time.Unix(1, 0), Expires: time.Unix(2, 0), KeepUntil: time.Unix(3, 0), Status: 200,
		Header: http.Header{"A": {"b", "c"}}, Body: []byte("body")}
	b := e.encode()
	got, err := decodeEntry(b, true)
	if err != nil || string(got.Body) != "body" || got.Header.Values("A")[1] != "c" || got.Version != "1" || !got.KeepUntil.Equal(e.KeepUntil) {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	for i := range b {
		bad := append([]byte(nil), b...)
		bad[i] ^= 0x40
		if _, err := decodeEntry(bad, true); err == nil {
			t.Fatalf("flipped byte %d not detected", i)
		}
	}
	for n := 0; n < len(b); n++ {
		if _, err := decodeEntry(b[:n], true); err == nil {
			t.Fatalf("cut to %d bytes not detected", n)
		}
	}
}

func TestDurableTierBoundedAndSwept(t *testing.T) {
	dir := t.TempDir()
	c := newClock()
	s, err := Open(Options{Platform: "tk", Version: "1", Dir: dir, DiskBytes: 20_000, Clock: c.Now, SweepEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	body := strings.Repeat("x", 1000)
	pol := Policy{Kind: KindSearch, TTL: time.Minute}
	u := okUpstream(body)
	for i := 0; i < 100; i++ {
		do(t, s, pol, u, get(fmt.Sprintf("/q?i=%d", i)))
		c.Advance(time.Millisecond)
	}
	st := s.Stats()
	if st.DiskBytes > 20_000 || st.DiskEntries == 0 {
		t.Fatalf("bound not kept: %+v", st)
	}
	// The newest stay, the oldest went.
	if e, _ := s.Get(testKey("tk", get("/q?i=99"), nil)); e == nil {
		t.Fatal("newest entry evicted")
	}
	c.Advance(2 * time.Minute)
	n, err := s.Sweep()
	if err != nil || n == 0 || s.Stats().DiskEntries != 0 {
		t.Fatalf("sweep removed %d (%v), left %+v", n, err, s.Stats())
	}
}

func TestKeyNormalisation(t *testing.T) {
	k := func(r *http.Request, body []byte) string { return testKey("rechtspraak", r, body) }
	a := get("/uitspraken/zoeken?type=Uitspraak&max=10&date=2024-01-01&date=2024-02-01")
	b := get("/uitspraken/zoeken?max=10&date=2024-01-01&type=Uitspraak&date=2024-02-01")
	if k(a, nil) != k(b, nil) {
		t.Fatal("parameter order splits the key")
	}
	c := get("/uitspraken/zoeken?max=10&date=2024-02-01&type=Uitspraak&date=2024-01-01")
	if k(a, nil) == k(c, nil) {
		t.Fatal("order of a repeated parameter's values was lost")
	}
	x := get("/uitspraken/zoeken?type=Uitspraak")
	x.Header.Set("Accept", "application/json")
	if k(x, nil) == k(get("/uitspraken/zoeken?type=Uitspraak"), nil) {
		t.Fatal("Accept not in the key")
	}
	if testKey("tk", get("/a"), nil) == testKey("ob", get("/a"), nil) {
		t.Fatal("platform not in the key")
	}
	head := httptest.NewRequest(http.MethodHead, "/a", nil)
	if k(head, nil) != k(get("/a"), nil) {
		t.Fatal("HEAD should use the GET entry")
	}
	// POST: body hash; multipart by fields, whatever the boundary.
	mp := func(boundary string, fields ...string) (*http.Request, []byte) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		_ = mw.SetBoundary(boundary)
		for i := 0; i+1 < len(fields); i += 2 {
			_ = mw.WriteField(fields[i], fields[i+1])
		}
		_ = mw.Close()
		r := httptest.NewRequest(http.MethodPost, "/search", bytes.NewReader(buf.Bytes()))
		r.Header.Set("Content-Type", mw.FormDataContentType())
		return r, buf.Bytes()
	}
	r1, b1 := mp("aaaa", "q", "stikstof", "twomonths", "true")
	r2, b2 := mp("bbbb", "twomonths", "true", "q", "stikstof")
	r3, b3 := mp("aaaa", "q", "klimaat", "twomonths", "true")
	if k(r1, b1) != k(r2, b2) {
		t.Fatal("multipart boundary or field order splits the key")
	}
	if k(r1, b1) == k(r3, b3) {
		t.Fatal("different searches share a key")
	}
	j1 := httptest.NewRequest(http.MethodPost, "/ori_*/_search", strings.NewReader(`{"size":5}`))
	j2 := httptest.NewRequest(http.MethodPost, "/ori_*/_search", strings.NewReader(`{"size":6}`))
	if k(j1, []byte(`{"size":5}`)) == k(j2, []byte(`{"size":6}`)) {
		t.Fatal("body not in the key")
	}
}

func TestPOSTSearchCachedByBody(t *testing.T) {
	s := openStore(t, "", newClock(), "1")
	pol := Policy{Kind: KindSearch, TTL: time.Minute, AllowPOST: true}
	var seen []string
	u := &upstream{handler: func(w http.ResponseWriter, r *http.Request) error {
		b, _ := io.ReadAll(r.Body)
		seen = append(seen, string(b))
		_, _ = w.Write(b)
		return nil
	}}
	post := func(body string) *httptest.ResponseRecorder {
		return do(t, s, pol, u, httptest.NewRequest(http.MethodPost, "/_search", strings.NewReader(body)))
	}
	post(`{"q":1}`)
	r := post(`{"q":1}`)
	post(`{"q":2}`)
	if u.calls.Load() != 2 || r.Body.String() != `{"q":1}` || seen[1] != `{"q":2}` {
		t.Fatalf("calls %d, body %q, upstream saw %q", u.calls.Load(), r.Body.String(), seen)
	}
	// Without AllowPOST (not a search kind), POST bypasses.
	r = do(t, s, Policy{Kind: KindOther, TTL: time.Minute}, u, httptest.NewRequest(http.MethodPost, "/x", strings.NewReader("a")))
	if r.Header().Get(cachestatus.Header) != "BesluitBron; fwd=bypass; detail=method" {
		t.Fatalf("POST of another kind: %q", r.Header().Get(cachestatus.Header))
	}
	// A body over the limit bypasses and still reaches the upstream whole.
	big := strings.Repeat("b", 2000)
	pol.MaxRequestBody = 1000
	r = do(t, s, pol, u, httptest.NewRequest(http.MethodPost, "/_search", strings.NewReader(big)))
	if r.Body.String() != big || !strings.Contains(r.Header().Get(cachestatus.Header), "request-too-large") {
		t.Fatalf("large POST: %d bytes, %q", r.Body.Len(), r.Header().Get(cachestatus.Header))
	}
}

func TestStorageRules(t *testing.T) {
	cases := []struct {
		name    string
		status  int
		headers []string
		body    string
		cl      string // Content-Length sent ("" = the body's)
		neg     time.Duration
		maxBody int64
		stored  bool
		detail  string
	}{
		{name: "200", status: 200, stored: true},
		{name: "204", status: 204, stored: true},
		{name: "no-store", status: 200, headers: []string{"Cache-Control", "public, no-store"}, detail: "no-store"},
		{name: "private", status: 200, headers: []string{"Cache-Control", "private, max-age=60"}, detail: "private"},
		{name: "no-cache", status: 200, headers: []string{"Cache-Control", "no-cache"}, detail: "no-cache"},
		{name: "set-cookie", status: 200, headers: []string{"Set-Cookie", "a=b"}, detail: "set-cookie"},
		{name: "vary-star", status: 200, headers: []string{"Vary", "*"}, detail: "vary"},
		{name: "vary-accept", status: 200, headers: []string{"Vary", "Accept, accept-encoding"}, stored: true},
		{name: "vary-cookie", status: 200, headers: []string{"Vary", "Cookie"}, detail: "vary"},
		{name: "500", status: 500, detail: "status"},
		{name: "503", status: 503, detail: "status"},
		{name: "429", status: 429, detail: "status"},
		{name: "301", status: 301, detail: "status"},
		{name: "206", status: 206, detail: "partial"},
		{name: "404 no negative ttl", status: 404, detail: "status"},
		{name: "404 negative ttl", status: 404, neg: time.Minute, stored: true},
		{name: "short body", status: 200, cl: "100", detail: "incomplete"},
		{name: "too large", status: 200, body: strings.Repeat("z", 5000), maxBody: 4096, detail: "too-large"},
		{name: "too large unknown length", status: 200, body: strings.Repeat("z", 5000), cl: "-", maxBody: 4096, detail: "too-large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := openStore(t, t.TempDir(), newClock(), "1")
			body := tc.body
			if body == "" {
				body = "payload"
			}
			u := &upstream{handler: func(w http.ResponseWriter, r *http.Request) error {
				for i := 0; i+1 < len(tc.headers); i += 2 {
					w.Header().Add(tc.headers[i], tc.headers[i+1])
				}
				switch tc.cl {
				case "":
					w.Header().Set("Content-Length", fmt.Sprint(len(body)))
				case "-":
				default:
					w.Header().Set("Content-Length", tc.cl)
				}
				w.WriteHeader(tc.status)
				for i := 0; i < len(body); i += 1000 { // several writes, as reverse_proxy does
					_, _ = io.WriteString(w, body[i:min(i+1000, len(body))])
				}
				return nil
			}}
			pol := listPolicy
			pol.NegativeTTL = tc.neg
			if tc.maxBody > 0 {
				pol.MaxBody = tc.maxBody
			}
			r := do(t, s, pol, u, get("/x"))
			cs := r.Header().Get(cachestatus.Header)
			if r.Code != tc.status || (tc.status != 204 && r.Body.String() != body) {
				t.Fatalf("answer changed: %d, %d bytes", r.Code, r.Body.Len())
			}
			if got := strings.Contains(cs, "; stored"); got != tc.stored {
				t.Fatalf("stored=%v, want %v (%q)", got, tc.stored, cs)
			}
			if tc.detail != "" && !strings.Contains(cs, "detail="+tc.detail) {
				t.Fatalf("Cache-Status %q, want detail %s", cs, tc.detail)
			}
			do(t, s, pol, u, get("/x"))
			wantCalls := int64(2)
			if tc.stored {
				wantCalls = 1
			}
			if u.calls.Load() != wantCalls {
				t.Fatalf("upstream calls %d, want %d", u.calls.Load(), wantCalls)
			}
		})
	}
}

func TestBypassRequests(t *testing.T) {
	s := openStore(t, "", newClock(), "1")
	u := okUpstream("x")
	for name, mk := range map[string]func() *http.Request{
		"range":         func() *http.Request { r := get("/a"); r.Header.Set("Range", "bytes=0-1"); return r },
		"authorization": func() *http.Request { r := get("/a"); r.Header.Set("Authorization", "Bearer x"); return r },
		"no-store":      func() *http.Request { r := get("/a"); r.Header.Set("Cache-Control", "no-store"); return r },
		"method":        func() *http.Request { return httptest.NewRequest(http.MethodDelete, "/a", nil) },
	} {
		r := do(t, s, listPolicy, u, mk())
		if r.Header().Get(cachestatus.Header) != "BesluitBron; fwd=bypass; detail="+name {
			t.Fatalf("%s: %q", name, r.Header().Get(cachestatus.Header))
		}
	}
	r := do(t, s, Policy{Kind: KindOther}, u, get("/a"))
	if r.Header().Get(cachestatus.Header) != "BesluitBron; fwd=bypass; detail=uncached-kind" {
		t.Fatalf("ttl 0: %q", r.Header().Get(cachestatus.Header))
	}
	if s.Stats().Bypass != 5 || s.Stats().Stored != 0 {
		t.Fatalf("stats %+v", s.Stats())
	}
}

func TestHEADAnsweredFromGETEntry(t *testing.T) {
	s := openStore(t, "", newClock(), "1")
	u := okUpstream("hello")
	r := do(t, s, listPolicy, u, httptest.NewRequest(http.MethodHead, "/a", nil))
	if !strings.Contains(r.Header().Get(cachestatus.Header), "head-miss") {
		t.Fatalf("HEAD miss: %q", r.Header().Get(cachestatus.Header))
	}
	do(t, s, listPolicy, u, get("/a"))
	r = do(t, s, listPolicy, u, httptest.NewRequest(http.MethodHead, "/a", nil))
	if u.calls.Load() != 2 || r.Body.Len() != 0 || r.Header().Get("Content-Length") != "5" {
		t.Fatalf("HEAD hit: calls %d, %q %v", u.calls.Load(), r.Body.String(), r.Header())
	}
}

// waitWaiters polls (without sleeping) until n callers wait on key's flight.
func waitWaiters(t *testing.T, s *Store, key string, n int) {
	t.Helper()
	for i := 0; ; i++ {
		s.flightsMu.Lock()
		f := s.flights[key]
		w := 0
		if f != nil {
			w = f.waiters
		}
		s.flightsMu.Unlock()
		if w >= n {
			return
		}
		if i > 50_000_000 {
			t.Fatalf("only %d of %d waiters arrived", w, n)
		}
		runtime.Gosched()
	}
}

// blockingUpstream writes its body in pieces after release is closed.
func blockingUpstream(body string, release chan struct{}) *upstream {
	return &upstream{handler: func(w http.ResponseWriter, r *http.Request) error {
		select {
		case <-release:
		case <-r.Context().Done():
			return r.Context().Err()
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		w.WriteHeader(200)
		for i := 0; i < len(body); i += 100 {
			if r.Context().Err() != nil {
				panic(http.ErrAbortHandler) // as reverse_proxy does on a cut stream
			}
			_, _ = io.WriteString(w, body[i:min(i+100, len(body))])
			if f, ok := w.(interface{ FlushError() error }); ok {
				_ = f.FlushError()
			}
		}
		return nil
	}}
}

func TestCoalescingOneUpstreamCallWholeBodies(t *testing.T) {
	s := openStore(t, t.TempDir(), newClock(), "1")
	body := strings.Repeat("0123456789", 1000)
	release := make(chan struct{})
	u := blockingUpstream(body, release)
	const n = 50
	var wg sync.WaitGroup
	recs := make([]*httptest.ResponseRecorder, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			recs[i] = do(t, s, listPolicy, u, get("/big?b=1&a=2"))
		}(i)
	}
	waitWaiters(t, s, testKey("obv", get("/big?a=2&b=1"), nil), n)
	close(release)
	wg.Wait()
	if u.calls.Load() != 1 {
		t.Fatalf("%d upstream calls for %d identical misses", u.calls.Load(), n)
	}
	collapsed := 0
	for i, r := range recs {
		if r.Code != 200 || r.Body.String() != body || r.Header().Get("Content-Length") != fmt.Sprint(len(body)) {
			t.Fatalf("caller %d: %d, %d bytes (want %d)", i, r.Code, r.Body.Len(), len(body))
		}
		if strings.Contains(r.Header().Get(cachestatus.Header), "collapsed") {
			collapsed++
		}
	}
	if collapsed != n-1 || s.Stats().Coalesced != n-1 || s.Stats().Misses != 1 {
		t.Fatalf("collapsed %d, stats %+v", collapsed, s.Stats())
	}
}

func TestCutOffBodyNeverStoredNorDuplicated(t *testing.T) {
	s := openStore(t, t.TempDir(), newClock(), "1")
	release := make(chan struct{})
	u := &upstream{handler: func(w http.ResponseWriter, r *http.Request) error {
		<-release
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(200)
		_, _ = io.WriteString(w, strings.Repeat("c", 400))
		panic(http.ErrAbortHandler) // the platform closed the connection mid-body
	}}
	key := testKey("obv", get("/cut"), nil)
	const n = 5
	var wg sync.WaitGroup
	recs := make([]*httptest.ResponseRecorder, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) { defer wg.Done(); recs[i] = do(t, s, listPolicy, u, get("/cut")) }(i)
	}
	waitWaiters(t, s, key, n)
	close(release)
	wg.Wait()
	for i, r := range recs {
		if r.Code != 502 || r.Body.Len() != 0 {
			t.Fatalf("caller %d got a cut body as an answer: %d, %d bytes", i, r.Code, r.Body.Len())
		}
	}
	if s.Stats().Stored != 0 || u.calls.Load() != 1 {
		t.Fatalf("stats %+v calls %d", s.Stats(), u.calls.Load())
	}
}

func TestUpstreamErrorSharedNotStored(t *testing.T) {
	s := openStore(t, "", newClock(), "1")
	u := &upstream{handler: func(w http.ResponseWriter, r *http.Request) error { return errors.New("dial failed") }}
	r := do(t, s, listPolicy, u, get("/e"))
	if r.Code != 502 || r.Header().Get(cachestatus.Header) != "BesluitBron; fwd=miss; detail=upstream-error" {
		t.Fatalf("%d %q", r.Code, r.Header().Get(cachestatus.Header))
	}
	do(t, s, listPolicy, u, get("/e"))
	if u.calls.Load() != 2 || s.Stats().UpstreamErrors != 2 {
		t.Fatal("error was cached")
	}
}

func TestTooLargeStreamsToLeaderFollowersAskThemselves(t *testing.T) {
	s := openStore(t, "", newClock(), "1")
	body := strings.Repeat("L", 10_000)
	release := make(chan struct{})
	u := blockingUpstream(body, release)
	pol := listPolicy
	pol.MaxBody = 4096
	key := testKey("obv", get("/huge"), nil)
	const n = 4
	var wg sync.WaitGroup
	recs := make([]*httptest.ResponseRecorder, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) { defer wg.Done(); recs[i] = do(t, s, pol, u, get("/huge")) }(i)
	}
	waitWaiters(t, s, key, n)
	close(release)
	wg.Wait()
	for i, r := range recs {
		if r.Body.String() != body {
			t.Fatalf("caller %d: %d bytes, want %d", i, r.Body.Len(), len(body))
		}
	}
	if u.calls.Load() != n || s.Stats().Stored != 0 {
		t.Fatalf("calls %d stats %+v", u.calls.Load(), s.Stats())
	}
}

func TestStaleIfError(t *testing.T) {
	c := newClock()
	s := openStore(t, t.TempDir(), c, "1")
	u := okUpstream("good")
	do(t, s, listPolicy, u, get("/sources"))
	c.Advance(listPolicy.TTL + listPolicy.StaleWhileRevalidate + time.Hour) // past swr, within sie
	u.handler = func(w http.ResponseWriter, r *http.Request) error {
		w.WriteHeader(503)
		_, _ = io.WriteString(w, "down")
		return nil
	}
	r := do(t, s, listPolicy, u, get("/sources"))
	if r.Code != 200 || r.Body.String() != "good" {
		t.Fatalf("stale not served on 503: %d %q", r.Code, r.Body.String())
	}
	if got := r.Header().Get(cachestatus.Header); got != "BesluitBron; fwd=stale; fwd-status=503; ttl=-7200; detail=stale-if-error" {
		t.Fatalf("Cache-Status %q", got)
	}
	u.handler = func(w http.ResponseWriter, r *http.Request) error { return errors.New("unreachable") }
	r = do(t, s, listPolicy, u, get("/sources"))
	if r.Code != 200 || !strings.Contains(r.Header().Get(cachestatus.Header), "stale-if-error") {
		t.Fatalf("stale not served on error: %d %q", r.Code, r.Header().Get(cachestatus.Header))
	}
	// Search results get no stale copy.
	sp := Policy{Kind: KindSearch, TTL: time.Minute}
	u.handler = okUpstream("s").handler
	do(t, s, sp, u, get("/search"))
	c.Advance(2 * time.Minute)
	u.handler = func(w http.ResponseWriter, r *http.Request) error { return errors.New("unreachable") }
	if r = do(t, s, sp, u, get("/search")); r.Code != 502 {
		t.Fatalf("search served stale: %d", r.Code)
	}
	// Past the window the error goes through.
	c.Advance(listPolicy.StaleIfError)
	if r = do(t, s, listPolicy, u, get("/sources")); r.Code != 502 {
		t.Fatalf("stale served past its window: %d", r.Code)
	}
	if s.Stats().Stale != 2 {
		t.Fatalf("stats %+v", s.Stats())
	}
}

func TestStaleWhileRevalidateOutlivesTheTriggeringRequest(t *testing.T) {
	c := newClock()
	s := openStore(t, t.TempDir(), c, "1")
	u := okUpstream("v1")
	do(t, s, listPolicy, u, get("/committees"))
	c.Advance(listPolicy.TTL + time.Minute)
	release := make(chan struct{})
	u.handler = func(w http.ResponseWriter, r *http.Request) error {
		<-release
		if err := r.Context().Err(); err != nil {
			return err // the souin #699 failure: refresh killed with its request
		}
		_, _ = io.WriteString(w, "v2")
		return nil
	}
	ctx, endRequest := context.WithCancel(context.Background())
	rec := httptest.NewRecorder()
	if err := s.Serve(rec, get("/committees").WithContext(ctx), listPolicy, u, nil); err != nil {
		t.Fatal(err)
	}
	endRequest() // Caddy cancels the request context once the answer is out
	if rec.Body.String() != "v1" || rec.Header().Get(cachestatus.Header) != "BesluitBron; hit; ttl=-60; detail=stale-while-revalidate" {
		t.Fatalf("SWR answer %q %q", rec.Body.String(), rec.Header().Get(cachestatus.Header))
	}
	// A second stale request starts no second refresh.
	do(t, s, listPolicy, u, get("/committees"))
	close(release)
	s.bg.Wait()
	r := do(t, s, listPolicy, u, get("/committees"))
	if r.Body.String() != "v2" || !strings.HasPrefix(r.Header().Get(cachestatus.Header), "BesluitBron; hit; ttl=") {
		t.Fatalf("not refreshed: %q %q", r.Body.String(), r.Header().Get(cachestatus.Header))
	}
	if u.calls.Load() != 2 || s.Stats().Refreshes != 1 || s.Stats().Stale != 2 {
		t.Fatalf("calls %d stats %+v", u.calls.Load(), s.Stats())
	}
}

func TestPurge(t *testing.T) {
	dir := t.TempDir()
	c := newClock()
	s := openStore(t, dir, c, "1")
	other, err := Open(Options{Platform: "tk", Version: "1", Dir: dir, Clock: c.Now, SweepEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	u := okUpstream("x")
	do(t, s, listPolicy, u, get("/a"))
	do(t, other, listPolicy, u, get("/a"))
	if err := s.Purge(); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.DiskEntries != 0 || st.MemoryEntries != 0 {
		t.Fatalf("purge left %+v", st)
	}
	if st := other.Stats(); st.DiskEntries != 1 {
		t.Fatalf("purging obv touched tk: %+v", st)
	}
	do(t, s, listPolicy, u, get("/a"))
	if u.calls.Load() != 3 {
		t.Fatal("purged entry served")
	}
}

func TestOpenValidates(t *testing.T) {
	if _, err := Open(Options{Version: "1"}); err == nil {
		t.Fatal("no platform accepted")
	}
	if _, err := Open(Options{Platform: "x"}); err == nil {
		t.Fatal("no version accepted")
	}
}

func TestHotSetObeysEveryRule(t *testing.T) {
	c := newClock()
	s := openStore(t, t.TempDir(), c, "1")
	u := okUpstream("hot")
	for i := 0; i < 3; i++ {
		do(t, s, listPolicy, u, get("/h"))
	}
	if s.Stats().HotEntries != 1 {
		t.Fatalf("not in the hot set: %+v", s.Stats())
	}
	s.SetVersion("2")
	if do(t, s, listPolicy, u, get("/h")); u.calls.Load() != 2 {
		t.Fatal("hot entry of another version served")
	}
	do(t, s, listPolicy, u, get("/h"))
	do(t, s, listPolicy, u, get("/h"))
	if err := s.Purge(); err != nil {
		t.Fatal(err)
	}
	if do(t, s, listPolicy, u, get("/h")); u.calls.Load() != 3 || s.Stats().HotEntries != 0 {
		t.Fatal("hot entry survived a purge")
	}
	do(t, s, listPolicy, u, get("/h"))
	c.Advance(listPolicy.TTL + listPolicy.StaleIfError + time.Second)
	if do(t, s, listPolicy, u, get("/h")); u.calls.Load() != 4 {
		t.Fatal("expired hot entry served")
	}
}

func TestHotSetBounded(t *testing.T) {
	h := newHotSet(100_000)
	e := &Entry{Body: make([]byte, 10_000)}
	for i := 0; i < 1000; i++ {
		h.put(fmt.Sprint(i), "sum"+fmt.Sprint(i), e)
	}
	if h.size > 100_000 || h.len() == 0 || h.getRaw([]byte("999")) == nil || h.getRaw([]byte("0")) != nil {
		t.Fatalf("size %d len %d", h.size, h.len())
	}
	if len(h.bySum) != len(h.m) {
		t.Fatalf("indexes disagree: %d %d", len(h.bySum), len(h.m))
	}
	h.del("sum999")
	if h.getRaw([]byte("999")) != nil || len(h.bySum) != len(h.m) {
		t.Fatal("del by stored key")
	}
	h.put("big", "sumbig", &Entry{Body: make([]byte, 30_000)})
	if h.getRaw([]byte("big")) != nil {
		t.Fatal("an entry over a quarter of the bound was kept")
	}
}

func TestConditionalRequestsNeverShareA304(t *testing.T) {
	s := openStore(t, "", newClock(), "1")
	var sawINM atomic.Int64
	u := &upstream{handler: func(w http.ResponseWriter, r *http.Request) error {
		if r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" {
			sawINM.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
		w.Header().Set("Etag", `"abc"`)
		_, _ = io.WriteString(w, "full")
		return nil
	}}
	cond := func() *http.Request {
		r := get("/getdoc/2023D41173")
		r.Header.Set("If-None-Match", `"abc"`)
		r.Header.Set("If-Modified-Since", "Sat, 28 Nov 2026 10:00:00 GMT")
		return r
	}
	r := do(t, s, listPolicy, u, cond())
	if r.Code != 304 || r.Body.Len() != 0 || !strings.Contains(r.Header().Get(cachestatus.Header), "stored") {
		t.Fatalf("conditional miss: %d %q", r.Code, r.Header().Get(cachestatus.Header))
	}
	if r = do(t, s, listPolicy, u, get("/getdoc/2023D41173")); r.Code != 200 || r.Body.String() != "full" {
		t.Fatalf("plain request after a conditional one: %d %q", r.Code, r.Body.String())
	}
	if r = do(t, s, listPolicy, u, cond()); r.Code != 304 {
		t.Fatalf("conditional hit: %d", r.Code)
	}
	r2 := get("/getdoc/2023D41173")
	r2.Header.Set("If-None-Match", `"other"`)
	if r = do(t, s, listPolicy, u, r2); r.Code != 200 || r.Body.String() != "full" {
		t.Fatalf("non-matching etag: %d", r.Code)
	}
	if sawINM.Load() != 0 || u.calls.Load() != 1 {
		t.Fatalf("platform saw %d conditional requests, %d calls", sawINM.Load(), u.calls.Load())
	}
}

func TestFileInUseIsNotSetAside(t *testing.T) {
	dir := t.TempDir()
	c := newClock()
	first := openStore(t, dir, c, "1")
	do(t, first, listPolicy, okUpstream("x"), get("/a"))
	old := openTimeout
	openTimeout = 50 * time.Millisecond
	defer func() { openTimeout = old }()
	second := openStore(t, dir, c, "1") // bbolt's lock is per open file: a second open in one process times out too
	if second.disk != nil {
		t.Fatal("a locked file was opened twice")
	}
	if aside, _ := filepath.Glob(filepath.Join(dir, "*.damaged-*")); len(aside) != 0 {
		t.Fatalf("a file in use was set aside: %v", aside)
	}
	if first.Stats().DiskEntries != 1 {
		t.Fatal("the first store lost its entries")
	}
}

func TestHitHeadersAreCopies(t *testing.T) {
	s := openStore(t, "", newClock(), "1")
	u := okUpstream("x", "X-A", "1", "X-A", "2")
	do(t, s, listPolicy, u, get("/c"))
	r := do(t, s, listPolicy, u, get("/c"))
	r.Header()["X-A"][0] = "changed in place"
	r.Header()["X-A"] = append(r.Header()["X-A"], "3")
	r = do(t, s, listPolicy, u, get("/c"))
	if got := r.Header()["X-A"]; len(got) != 2 || got[0] != "1" || got[1] != "2" {
		t.Fatalf("stored header changed by a caller: %q", got)
	}
}

// A second instance on the same cache directory starts at once: the lock
// wait is short (7 platforms × openTimeout), and the log says what to do.
func TestFileInUseFailsFastWithAClearMessage(t *testing.T) {
	if openTimeout > 100*time.Millisecond {
		t.Fatalf("a second instance waits %v per platform for the first one's lock", openTimeout)
	}
	dir := t.TempDir()
	first := openStore(t, dir, newClock(), "1")
	core, logs := observer.New(zap.ErrorLevel)
	second, err := Open(Options{Platform: "obv", Version: "1", Dir: dir, Logger: zap.New(core), SweepEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if second.disk != nil || first.disk == nil {
		t.Fatal("the file was opened twice")
	}
	entries := logs.FilterMessage(InUseMessage).All()
	if len(entries) != 1 {
		t.Fatalf("logged %v", logs.All())
	}
	if f := entries[0].ContextMap()["file"]; f != filepath.Join(dir, "obv.db") {
		t.Fatalf("file field %v", f)
	}
	for _, want := range []string{"another instance", "memory-only", "cache_dir", "BESLUITBRON_CACHE_DIR"} {
		if !strings.Contains(InUseMessage, want) {
			t.Fatalf("message lacks %q", want)
		}
	}
}
