package platformproxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"testing"

	_ "github.com/besluitbron/besluitbron/caddymodule/platformcache" // platform_cache in front, as in the Caddyfile
)

// echoed is what a platform received, as it echoes it back.
type echoed struct {
	Method string              `json:"method"`
	URI    string              `json:"uri"`
	Header map[string][]string `json:"header"`
	Body   string              `json:"body"`
	Fields map[string][]string `json:"fields,omitempty"`
}

// echoPlatform answers every request with what it received, so an answer
// served from the cache shows the request it was fetched with.
type echoPlatform struct {
	*countingServer
	mu  sync.Mutex
	got []echoed
}

func newEchoPlatform(t *testing.T) *echoPlatform {
	p := &echoPlatform{}
	p.countingServer = newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s := echoed{Method: r.Method, URI: r.URL.RequestURI(), Header: r.Header.Clone(), Body: string(b)}
		// As tkserv does: the form fields, parsed by a server's
		// multipart reader (which decodes quoted-printable).
		if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
			r.Body = io.NopCloser(bytes.NewReader(b))
			if err := r.ParseMultipartForm(1 << 20); err == nil {
				s.Fields = r.MultipartForm.Value
			}
		}
		p.mu.Lock()
		p.got = append(p.got, s)
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s)
	})
	return p
}

func (p *echoPlatform) received() []echoed {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]echoed(nil), p.got...)
}

// cached serves a platform route with platform_cache (memory only) in
// front of platform_proxy, as the Caddyfile does.
func cached(t *testing.T, platform string, p *echoPlatform) string {
	t.Helper()
	return serve(t, platform, fmt.Sprintf("platform_cache %s {\n\t\t\t\tdir off\n\t\t\t}\n\t\t\tplatform_proxy %s %s", platform, platform, p.URL))
}

func do(t *testing.T, method, url string, hdr http.Header, body string) (*http.Response, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// The review's sketch: with ORI on, a GET _search with a body reached
// Elasticsearch (which reads it) but not the key, so its answer was
// stored under the key the reader and ori_fetch use.
func TestGetWithBodyIsRefused(t *testing.T) {
	p := newEchoPlatform(t)
	base := cached(t, "ori", p)
	const target = "/ori_x/_search?q=_id:123"
	for _, method := range []string{"GET", "HEAD"} {
		resp, body := do(t, method, base+target, nil, `{"from":1}`)
		if resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("%s with a body: %d %q, want 400", method, resp.StatusCode, body)
		}
		if method == "GET" {
			if r := decodeRefusal(t, resp, body); r.Error != "body_not_allowed" || r.Platform != "ori" || !strings.Contains(r.Message, method) {
				t.Errorf("refusal %+v", r)
			}
		}
	}
	if n := len(p.received()); n != 0 {
		t.Fatalf("the platform received %d requests with a body on a read: %+v", n, p.received())
	}
	// The honest request is fetched, not served a planted answer.
	resp, body := do(t, "GET", base+target, nil, "")
	var s echoed
	if err := json.Unmarshal([]byte(body), &s); resp.StatusCode != 200 || err != nil || s.Body != "" {
		t.Fatalf("honest GET: %d %q (%v), want the platform's answer to a GET without a body", resp.StatusCode, body, err)
	}
	if cs := resp.Header.Get("Cache-Status"); strings.Contains(cs, "hit") {
		t.Errorf("honest GET served from the cache (%s): something was stored under its key", cs)
	}
}

// A client's "Connection: Accept" made our proxy strip the keyed Accept
// (as a hop-by-hop header): the platform's default answer was stored
// under the key of the Accept it never saw.
func TestConnectionHeaderCannotStripTheKeyedAccept(t *testing.T) {
	p := newEchoPlatform(t)
	base := cached(t, "tk", p)
	const target = "/OData/v4/2.0/Zaak?$top=1"
	resp, body := do(t, "GET", base+target, http.Header{"Accept": {"application/atom+xml"}, "Connection": {"Accept"}}, "")
	if resp.StatusCode != 200 {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	got := p.received()
	if len(got) != 1 || strings.Join(got[0].Header["Accept"], ",") != "application/atom+xml" {
		t.Fatalf("the platform saw Accept %q, want the keyed application/atom+xml", got[0].Header["Accept"])
	}
}

// Only what the key covers leaves BesluitBron: headers that change a
// platform's answer (Prefer, OData-MaxVersion) or tell it who our users
// are never reach it.
func TestOnlyKeyedHeadersReachThePlatform(t *testing.T) {
	p := newEchoPlatform(t)
	base := cached(t, "tk", p)
	hostile := http.Header{
		"Prefer":           {"odata.maxpagesize=1"},
		"Odata-Maxversion": {"4.0"},
		"Odata-Version":    {"4.0"},
		"Cf-Connecting-Ip": {"203.0.113.7"},
		"True-Client-Ip":   {"203.0.113.7"},
		"X-Client-Ip":      {"203.0.113.7"},
		"Referer":          {"https://example.org/who"},
		"Origin":           {"https://example.org"},
		"Accept-Language":  {"nl-NL"},
		"X-Api-Key":        {"client-key"},
		"Range":            {"bytes=0-1"},
		"If-None-Match":    {`"x"`},
		"Cache-Control":    {"no-cache"},
		"Accept":           {"application/json"},
		"Accept-Encoding":  {"identity"},
	}
	resp, body := do(t, "GET", base+"/OData/v4/2.0/Zaak?$top=2", hostile, "")
	if resp.StatusCode != 200 {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	got := p.received()
	if len(got) != 1 {
		t.Fatalf("platform got %d requests", len(got))
	}
	for name := range got[0].Header {
		switch name {
		case "Accept", "Accept-Encoding", "User-Agent":
		default:
			t.Errorf("%s reached the platform: %q", name, got[0].Header[name])
		}
	}
	if a := got[0].Header["Accept"]; len(a) != 1 || a[0] != "application/json" {
		t.Errorf("Accept %q, want the keyed application/json", a)
	}
	if !strings.HasPrefix(strings.Join(got[0].Header["User-Agent"], ""), "BesluitBron/") {
		t.Errorf("User-Agent %q, want ours", got[0].Header["User-Agent"])
	}
}

// The review's sketch: a part whose raw value is "=6Blimaat" under
// Content-Transfer-Encoding: quoted-printable keyed as "klimaat" while
// tkserv got the raw bytes; its answer was then served to everyone
// searching "klimaat".
func TestMultipartTransferEncodingIsRefused(t *testing.T) {
	p := newEchoPlatform(t)
	base := cached(t, "opentk", p)
	const b = "XyZ"
	planted := "--" + b + "\r\nContent-Disposition: form-data; name=\"q\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n=6Blimaat\r\n" +
		"--" + b + "\r\nContent-Disposition: form-data; name=\"twomonths\"\r\n\r\nfalse\r\n--" + b + "--\r\n"
	ct := http.Header{"Content-Type": {"multipart/form-data; boundary=" + b}}
	resp, body := do(t, "POST", base+"/search", ct, planted)
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("quoted-printable part: %d %q, want 400", resp.StatusCode, body)
	}
	if r := decodeRefusal(t, resp, body); r.Error != "bad_body" || !strings.Contains(r.Message, "Content-Transfer-Encoding") {
		t.Errorf("refusal %+v", r)
	}
	for _, odd := range []string{
		"Content-Disposition: form-data; name*=UTF-8''q\r\n",
		"Content-Disposition: form-data; name=\"q\"\r\nX-Extra: 1\r\n",
	} {
		bad := "--" + b + "\r\n" + odd + "\r\nklimaat\r\n--" + b + "--\r\n"
		if resp, body := do(t, "POST", base+"/search", ct, bad); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("part %q: %d %q, want 400", odd, resp.StatusCode, body)
		}
	}
	if n := len(p.received()); n != 0 {
		t.Fatalf("refused forms reached the platform: %+v", p.received())
	}
	// An honest search for "klimaat" asks the platform for klimaat.
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("q", "klimaat")
	_ = mw.WriteField("twomonths", "false")
	_ = mw.Close()
	resp, body = do(t, "POST", base+"/search", http.Header{"Content-Type": {mw.FormDataContentType()}}, buf.String())
	var s echoed
	if err := json.Unmarshal([]byte(body), &s); resp.StatusCode != 200 || err != nil || strings.Join(s.Fields["q"], ",") != "klimaat" {
		t.Fatalf("honest search: %d %q", resp.StatusCode, body)
	}
}

// The platform receives exactly the form the key covers: a re-encoded
// form with the same fields, whatever the client's boundary and field
// order, and two such forms share one entry.
func TestMultipartIsForwardedAsKeyed(t *testing.T) {
	p := newEchoPlatform(t)
	base := cached(t, "opentk", p)
	form := func(boundary string, fields ...string) (http.Header, string) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		_ = mw.SetBoundary(boundary)
		for i := 0; i < len(fields); i += 2 {
			_ = mw.WriteField(fields[i], fields[i+1])
		}
		_ = mw.Close()
		return http.Header{"Content-Type": {mw.FormDataContentType()}}, "preamble\r\n" + buf.String() + "epilogue"
	}
	h1, b1 := form("first", "q", "stikstof", "twomonths", "true", "soorten", "alles")
	h2, b2 := form("second-boundary", "soorten", "alles", "q", "stikstof", "twomonths", "true")
	r1, body1 := do(t, "POST", base+"/search", h1, b1)
	r2, body2 := do(t, "POST", base+"/search", h2, b2)
	if r1.StatusCode != 200 || r2.StatusCode != 200 || body1 != body2 {
		t.Fatalf("two encodings of one form: %d %q / %d %q", r1.StatusCode, body1, r2.StatusCode, body2)
	}
	got := p.received()
	if len(got) != 1 {
		t.Fatalf("platform asked %d times for one form, want 1 (one entry)", len(got))
	}
	if strings.Contains(got[0].Body, "preamble") || strings.Contains(got[0].Body, "first") {
		t.Errorf("the client's encoding reached the platform: %q", got[0].Body)
	}
	want := map[string][]string{"q": {"stikstof"}, "twomonths": {"true"}, "soorten": {"alles"}}
	for k, v := range want {
		if strings.Join(got[0].Fields[k], ",") != v[0] {
			t.Errorf("field %s = %q, want %q", k, got[0].Fields[k], v)
		}
	}
}

// The review's sketch: OBV's price is ceil(limit/24) of the first limit,
// but the raw query was forwarded, so limit=1&limit=100, limit=100abc and
// limit=0x64 were charged one unit for up to 100 results.
func TestPricedLimitIsForwardedAsPriced(t *testing.T) {
	p := newEchoPlatform(t)
	base := serve(t, "obv", "platform_proxy obv "+p.URL)
	for _, q := range []string{
		"limit=1&limit=100", "limit=100abc", "limit=0x64", "limit=0", "limit=101", "limit=", "limit",
		"limit=+24", "limit=1e2", "li%6Dit=100&limit=1", "limit=%31%30%30", "limit=-1", "limit=24.0",
	} {
		resp, body := do(t, "GET", base+"/api/search?query=begroting&"+q, nil, "")
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d %q, want 400", q, resp.StatusCode, body)
			continue
		}
		var r struct{ Error, Parameter, Message string }
		if err := json.Unmarshal([]byte(body), &r); err != nil || r.Error != "bad_parameter" || r.Parameter != "limit" || !strings.Contains(r.Message, "limit") {
			t.Errorf("%s: refusal %q", q, body)
		}
	}
	if got := p.received(); len(got) != 0 {
		t.Fatalf("mispriced searches reached the platform: %+v", got)
	}
	for _, q := range []string{"limit=24", "limit=100", "limit=1", "query=x"} {
		if resp, body := do(t, "GET", base+"/api/search?query=begroting&"+q, nil, ""); resp.StatusCode != 200 {
			t.Errorf("%s: %d %q, want 200", q, resp.StatusCode, body)
		}
	}
	// Elsewhere limit is not priced, and passes as sent.
	if resp, body := do(t, "GET", base+"/api/export/snapshot?limit=1000", nil, ""); resp.StatusCode != 200 {
		t.Errorf("export limit=1000: %d %q", resp.StatusCode, body)
	}
}
