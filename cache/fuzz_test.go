package cache

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/canonical"
	"github.com/besluitbron/besluitbron/internal/fixture"
	"github.com/besluitbron/besluitbron/platforms/obv"
	"github.com/besluitbron/besluitbron/platforms/opentk"
	"github.com/besluitbron/besluitbron/platforms/rechtspraak"
)

// FuzzKey builds the cache key of any request a client or a tool can
// send, parsed from the wire as Caddy's server parses it. Seeds: the real
// @odata.nextLink of the Tweede Kamer (fixtures/tk), and the requests the
// adapters build (an OBV search, a Rechtspraak search with a date range,
// OpenTK's multipart POST search). The key must be:
//   - 32 bytes and the same every time;
//   - the GET entry's key for a HEAD;
//   - the same whatever the order of differently named query parameters
//     (and of an urlencoded body's fields), while repeated ones keep
//     their order;
//   - unambiguous, so two different requests never share an entry: no
//     part of the raw key holds the separator, and its path part is always
//     an escaped path, never a decoded one.
func FuzzKey(f *testing.F) {
	var env struct {
		NextLink string `json:"@odata.nextLink"`
	}
	if err := json.Unmarshal(fixture.Read(f, "tk", "odata-besluit-nextlink.json"), &env); err != nil || env.NextLink == "" {
		f.Fatalf("no @odata.nextLink in the fixture: %v", err)
	}
	next, _ := url.Parse(env.NextLink)
	f.Add("GET", next.RequestURI(), "application/json", "", []byte(nil))
	var reqs []adapters.Request
	if r, err := obv.SearchRequest(obv.SearchParams{Query: "begroting", Organization: "soest", Limit: 24}); err == nil {
		reqs = append(reqs, r)
	}
	if r, err := rechtspraak.SearchRequest(rechtspraak.SearchParams{DateFrom: "2024-01-01", DateTo: "2024-02-01", Limit: 10}); err == nil {
		reqs = append(reqs, r)
	}
	if r, err := opentk.SearchRequest("stikstof", true, "alles"); err == nil {
		reqs = append(reqs, r)
	}
	if len(reqs) != 3 {
		f.Fatalf("the adapters built %d of 3 seed requests", len(reqs))
	}
	for _, r := range reqs {
		f.Add(r.Method, r.Path, "", r.ContentType, r.Body)
	}
	f.Add("POST", "/search", "", "application/x-www-form-urlencoded", []byte("q=stikstof&b=1&a=2&a=1"))
	f.Add("GET", "/api/entities/document%3Anotubiz%3Agemeente%3Asoest%3A1?b=2&a=1&", "", "", []byte(nil))

	f.Fuzz(func(t *testing.T, method, target, accept, contentType string, body []byte) {
		r := readRequest(method, target, accept, contentType, body)
		if r == nil {
			return // not a request Caddy's server would accept
		}
		var b []byte
		if r.Method == http.MethodPost {
			b = body
		}
		key := func(r *http.Request, b []byte) string {
			k, _ := Key("obv", r, b, canonical.Rules{})
			return k
		}
		k, err := Key("obv", r, b, canonical.Rules{})
		if err != nil {
			return // no canonical form: the proxy refuses it, the cache passes it by
		}
		if len(k) != 32 || key(r, b) != k {
			t.Fatalf("key %x is not 32 bytes or not stable", k)
		}
		if r.Method == http.MethodGet {
			head := r.Clone(r.Context())
			head.Method = http.MethodHead
			if key(head, b) != k {
				t.Fatal("HEAD does not share the GET entry")
			}
		}
		if q := regroup(r.URL.RawQuery); q != r.URL.RawQuery {
			other := r.Clone(r.Context())
			other.URL.RawQuery = q
			if key(other, b) != k {
				t.Fatalf("query %q and %q (the same parameters, other names first) have different keys", r.URL.RawQuery, q)
			}
		}
		if ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";"); b != nil && strings.TrimSpace(ct) == "application/x-www-form-urlencoded" {
			if q := regroup(string(b)); q != string(b) && key(r, []byte(q)) != k {
				t.Fatalf("form %q and %q (the same fields, other names first) have different keys", b, q)
			}
		}
		// The raw key's parts are separated by 0 bytes: none may hold one.
		// (The body's part, a hash, follows the last separator.)
		c, err := canonical.Build(r, b, canonical.Rules{})
		if err != nil {
			t.Fatal(err)
		}
		c.Body = nil
		raw := c.AppendKey(nil, "obv")
		if n := bytes.Count(raw, []byte{0}); n != 4+len(KeyHeaders) {
			t.Fatalf("raw key of %s %q has %d separators, want %d: a part holds a 0 byte, so other requests can share its key", r.Method, target, n, 4+len(KeyHeaders))
		}
		// The path part is always an escaped form of the path: a decoded
		// path where another request's escaped one goes would let
		// /x%253A (the text "%3A") take the entry of /x%3A (":").
		part := string(bytes.Split(raw, []byte{0})[2])
		if p, err := url.PathUnescape(part); err != nil || p != r.URL.Path {
			t.Fatalf("the key's path %q of %q does not decode to the request's path %q (%v): another request's path can take its entry", part, target, r.URL.Path, err)
		}
	})
}

// readRequest parses the request a client would send, as net/http's
// server does, or returns nil when the server would refuse it.
func readRequest(method, target, accept, contentType string, body []byte) *http.Request {
	var w strings.Builder
	w.WriteString(method + " " + target + " HTTP/1.1\r\nHost: platform.test\r\n")
	if accept != "" {
		w.WriteString("Accept: " + accept + "\r\n")
	}
	if contentType != "" {
		w.WriteString("Content-Type: " + contentType + "\r\n")
	}
	w.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n")
	w.Write(body)
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(w.String())))
	if err != nil || r.URL == nil || r.URL.Host != "" || (r.Method != http.MethodGet && r.Method != http.MethodPost) {
		return nil
	}
	return r
}

// regroup reorders a query's parameters: differently named ones in
// reverse name order, repeated ones in their own order.
func regroup(q string) string {
	pairs := strings.Split(q, "&")
	sort.SliceStable(pairs, func(i, j int) bool {
		a, _, _ := strings.Cut(pairs[i], "=")
		b, _, _ := strings.Cut(pairs[j], "=")
		return a > b
	})
	return strings.Join(pairs, "&")
}

// A request whose path spells an escape ("%253A", the text "%3A") never
// shares the entry of the request with the escape itself ("%3A", ":"):
// the platform answers them differently, and the first would otherwise
// plant its answer (a 404 with negative caching, say) for everyone asking
// the second. Found by FuzzKey's escaped-path check.
func TestKeyEscapedPathNotShared(t *testing.T) {
	legit := readRequest("GET", "/api/entities/document%3Anotubiz%3Agemeente%3Asoest%3A1", "", "", nil)
	crafted := readRequest("GET", "/api/entities/document%253Anotubiz%253Agemeente%253Asoest%253A1", "", "", nil)
	if testKey("obv", legit, nil) == testKey("obv", crafted, nil) {
		t.Fatal("a path spelling %3A shares the entry of the path with %3A")
	}
	nul := readRequest("GET", "/a%00b", "", "", nil)
	lit := readRequest("GET", "/a%2500b", "", "", nil)
	if testKey("obv", nul, nil) == testKey("obv", lit, nil) {
		t.Fatal("%00 and the text %00 share an entry")
	}
}
