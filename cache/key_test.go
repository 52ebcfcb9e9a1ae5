package cache

import (
	"bytes"
	"errors"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/canonical"
	"github.com/besluitbron/besluitbron/platforms"
)

// testKey is the key of r with no platform rules, for requests that have
// one.
func testKey(platform string, r *http.Request, body []byte) string {
	k, err := Key(platform, r, body, canonical.Rules{})
	if err != nil {
		panic(err)
	}
	return k
}

func multipartPost(body, boundary string) (*http.Request, []byte) {
	r := httptest.NewRequest(http.MethodPost, "/search", strings.NewReader(body))
	r.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
	return r, []byte(body)
}

// The review's sketch: a part whose raw value is "=6Blimaat" under
// Content-Transfer-Encoding: quoted-printable keyed as "klimaat" (the key
// read the form with a decoding reader) while tkserv got the raw bytes.
// Now it has no key at all (the proxy refuses it), and no other spelling
// of the bytes shares the entry of the honest search.
func TestMultipartKeyCoversTheBytesSent(t *testing.T) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("q", "klimaat")
	_ = mw.Close()
	honest, hb := multipartPost(buf.String(), mw.Boundary())
	want := testKey("opentk", honest, hb)

	qp, qb := multipartPost("--b\r\nContent-Disposition: form-data; name=\"q\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n=6Blimaat\r\n--b--\r\n", "b")
	k, err := Key("opentk", qp, qb, canonical.Rules{})
	if k == want {
		t.Fatal("a quoted-printable =6Blimaat shares the entry of a search for klimaat")
	}
	var ce *canonical.Error
	if !errors.As(err, &ce) || ce.Code != "bad_body" {
		t.Errorf("quoted-printable part: key %x, error %v; want no key", k, err)
	}
	raw, rb := multipartPost("--b\r\nContent-Disposition: form-data; name=\"q\"\r\n\r\n=6Blimaat\r\n--b--\r\n", "b")
	if testKey("opentk", raw, rb) == want {
		t.Fatal("the bytes =6Blimaat share the entry of a search for klimaat")
	}
}

// A priced parameter given twice or spelled oddly has no key (the proxy
// refuses it): its answer can never be stored under the key of the
// number it was charged for.
func TestPricedParameterHasOneKey(t *testing.T) {
	obv, _ := platforms.Get(platforms.OBV)
	rules := canonical.RulesFor(obv)
	for _, q := range []string{"limit=1&limit=100", "limit=100abc", "limit=0x64"} {
		r := httptest.NewRequest(http.MethodGet, "/api/search?query=a&"+q, nil)
		if k, err := Key("obv", r, nil, rules); err == nil {
			t.Errorf("%s: key %x, want none", q, k)
		}
	}
	r := httptest.NewRequest(http.MethodGet, "/api/search?limit=24&query=a", nil)
	if _, err := Key("obv", r, nil, rules); err != nil {
		t.Errorf("limit=24: %v", err)
	}
}

// A request without a canonical form is refused by the cache itself,
// before the handlers behind it (the budget's queue, the proxy) see it.
func TestRequestWithoutCanonicalFormIsRefusedFirst(t *testing.T) {
	obv, _ := platforms.Get(platforms.OBV)
	s, err := Open(Options{Platform: "obv", Version: "1", MemoryBytes: 1 << 20, SweepEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	pol := Policy{Kind: KindSearch, TTL: time.Minute, Rules: canonical.RulesFor(obv)}
	asked := 0
	next := NextFunc(func(w http.ResponseWriter, r *http.Request) error { asked++; return nil })
	for name, r := range map[string]*http.Request{
		"limit twice":    httptest.NewRequest(http.MethodGet, "/api/search?query=a&limit=1&limit=100", nil),
		"limit in hex":   httptest.NewRequest(http.MethodGet, "/api/search?query=a&limit=0x64", nil),
		"GET with body":  httptest.NewRequest(http.MethodGet, "/api/search?query=a", strings.NewReader(`{"from":1}`)),
		"HEAD with body": httptest.NewRequest(http.MethodHead, "/api/search?query=a", strings.NewReader(`x`)),
	} {
		err := s.Serve(httptest.NewRecorder(), r, pol, next, nil)
		var ce *canonical.Error
		if !errors.As(err, &ce) {
			t.Errorf("%s: %v, want a *canonical.Error", name, err)
		}
	}
	if asked != 0 {
		t.Fatalf("%d refused requests reached the handler behind the cache", asked)
	}
}
