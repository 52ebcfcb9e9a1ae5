package canonical

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func build(t *testing.T, r *http.Request, body string) Request {
	t.Helper()
	var b []byte
	if body != "" || r.Method == http.MethodPost {
		b = []byte(body)
	}
	c, err := Build(r, b, Rules{})
	if err != nil {
		t.Fatalf("%s %s: %v", r.Method, r.URL, err)
	}
	return c
}

// An honest request is sent as it came, but for its order of parameters
// and the headers no platform needs.
func TestHonestRequestsKeepTheirForm(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/uitspraken/zoeken?type=Uitspraak&date=2024-01-01&date=2024-02-01&max=10", nil)
	r.Header["Accept"] = []string{"application/json", "text/xml;q=0.5"}
	r.Header.Set("Accept-Language", "nl")
	r.Header.Set("User-Agent", "curl/8")
	c := build(t, r, "")
	out := c.Outgoing(context.Background())
	if got := out.URL.RequestURI(); got != "/uitspraken/zoeken?date=2024-01-01&date=2024-02-01&max=10&type=Uitspraak" {
		t.Errorf("sent %s", got)
	}
	if len(out.Header) != 1 || out.Header.Get("Accept") != "application/json,text/xml;q=0.5" {
		t.Errorf("headers sent: %v", out.Header)
	}
	if out.Body != nil || out.ContentLength != 0 {
		t.Errorf("a GET sent with a body")
	}

	post := httptest.NewRequest(http.MethodPost, "/ori_x/_search", strings.NewReader(`{"size":1}`))
	post.Header.Set("Content-Type", "application/json; charset=UTF-8")
	c = build(t, post, `{"size":1}`)
	out = c.Outgoing(context.Background())
	b, _ := io.ReadAll(out.Body)
	if string(b) != `{"size":1}` || out.ContentLength != 10 || out.Header.Get("Content-Type") != "application/json; charset=UTF-8" {
		t.Errorf("POST sent %q (%d) as %q", b, out.ContentLength, out.Header.Get("Content-Type"))
	}
	if again, _ := out.GetBody(); again == nil {
		t.Error("no GetBody: the search cannot be resent")
	}

	form := httptest.NewRequest(http.MethodPost, "/search", nil)
	form.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if c := build(t, form, "q=a&b=1&a=2"); string(c.Body) != "a=2&b=1&q=a" {
		t.Errorf("urlencoded form sent as %q", c.Body)
	}
}

// HEAD shares the GET's key; the platform, method, query, Accept,
// Accept-Encoding, content type and body each change it.
func TestKeyParts(t *testing.T) {
	key := func(method, target, hdr, val, body string) string {
		r := httptest.NewRequest(method, target, nil)
		if hdr != "" {
			r.Header.Set(hdr, val)
		}
		c := build(t, r, body)
		return string(c.AppendKey(nil, "p"))
	}
	base := key("GET", "/a?x=1", "", "", "")
	if key("HEAD", "/a?x=1", "", "", "") != base {
		t.Error("HEAD does not share the GET's key")
	}
	if key("GET", "/a?x=1", "Prefer", "odata.maxpagesize=1", "") != base {
		t.Error("a header that is not sent changes the key")
	}
	for name, k := range map[string]string{
		"query":           key("GET", "/a?x=2", "", "", ""),
		"path":            key("GET", "/b?x=1", "", "", ""),
		"accept":          key("GET", "/a?x=1", "Accept", "text/xml", ""),
		"accept-encoding": key("GET", "/a?x=1", "Accept-Encoding", "gzip", ""),
		"post":            key("POST", "/a?x=1", "", "", ""),
		"body":            key("POST", "/a?x=1", "", "", "x"),
		"content-type":    key("POST", "/a?x=1", "Content-Type", "text/plain", "x"),
	} {
		if k == base {
			t.Errorf("%s does not change the key", name)
		}
	}
}

func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, method, ct, body, code string
	}{
		{"GET with a body", "GET", "", `{"from":1}`, "body_not_allowed"},
		{"HEAD with a body", "HEAD", "", "x", "body_not_allowed"},
		{"bad Content-Type", "POST", "multipart/form-data; boundary", "x", "bad_body"},
		{"multipart without a boundary", "POST", "multipart/form-data", "x", "bad_body"},
		{"multipart without parts", "POST", "multipart/form-data; boundary=b", "--b--\r\n", "bad_body"},
		{"part without a name", "POST", "multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b--\r\n", "bad_body"},
		{"name with a quote", "POST", "multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"a\\\"b\"\r\n\r\nx\r\n--b--\r\n", "bad_body"},
		{"continued name", "POST", "multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name*0=\"q\"\r\n\r\nx\r\n--b--\r\n", "bad_body"},
		{"other parameter", "POST", "multipart/form-data; boundary=b", "--b\r\nContent-Disposition: form-data; name=\"q\"; size=3\r\n\r\nx\r\n--b--\r\n", "bad_body"},
		{"not form-data", "POST", "multipart/form-data; boundary=b", "--b\r\nContent-Disposition: attachment; name=\"q\"\r\n\r\nx\r\n--b--\r\n", "bad_body"},
	} {
		r := httptest.NewRequest(tc.method, "/search", nil)
		if tc.ct != "" {
			r.Header.Set("Content-Type", tc.ct)
		}
		_, err := Build(r, []byte(tc.body), Rules{})
		var ce *Error
		if !errors.As(err, &ce) || ce.Code != tc.code || ce.Message == "" {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.code)
		}
	}
	two := httptest.NewRequest("POST", "/search", nil)
	two.Header["Content-Type"] = []string{"text/plain", "application/json"}
	if _, err := Build(two, []byte("x"), Rules{}); err == nil {
		t.Error("two Content-Types: no error")
	}
	// A name in quotes may hold a '*': it is no RFC 2231 parameter.
	ok := httptest.NewRequest("POST", "/search", nil)
	ok.Header.Set("Content-Type", "multipart/form-data; boundary=b")
	if _, err := Build(ok, []byte("--b\r\nContent-Disposition: form-data; name=\"a*\"\r\n\r\nx\r\n--b--\r\n"), Rules{}); err != nil {
		t.Errorf("quoted name with '*': %v", err)
	}
}
