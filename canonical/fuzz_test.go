package canonical

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/obv"
	"github.com/besluitbron/besluitbron/platforms/opentk"
	"github.com/besluitbron/besluitbron/platforms/rechtspraak"
)

// honestRequests are the requests BesluitBron's own tools send: the
// seeds of the fuzzers.
func honestRequests(f *testing.F) []adapters.Request {
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
	return reqs
}

// wire parses the request a client would send, as net/http's server
// does, or returns nil when the server would refuse it.
func wire(method, target, accept, contentType string, body []byte) *http.Request {
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
	if err != nil || r.URL == nil || r.URL.Host != "" {
		return nil
	}
	return r
}

// FuzzBuild builds the canonical request of any request a client can
// send to OBV (whose search is priced by limit), seeded with the
// adapters' requests. Either it is refused with a clear error, or:
//   - the request sent (Outgoing, as the platform reads it off the wire)
//     has the very same canonical form, so the key covers exactly what
//     the platform receives;
//   - it carries no client header but Accept, Accept-Encoding and
//     Content-Type;
//   - a priced limit reaches the platform once, as a number in range,
//     the number it is charged for.
func FuzzBuild(f *testing.F) {
	for _, r := range honestRequests(f) {
		f.Add(r.Method, r.Path, "application/json", r.ContentType, r.Body)
	}
	f.Add("GET", "/api/search?query=a&limit=1&limit=100", "", "", []byte(nil))
	f.Add("GET", "/api/search?limit=0x64", "", "", []byte(nil))
	f.Add("GET", "/_search?q=_id:123", "", "", []byte(`{"from":1}`))
	f.Add("POST", "/search", "", "application/x-www-form-urlencoded; charset=UTF-8", []byte("q=stikstof&b=1&a=2&a=1"))
	f.Add("POST", "/_search", "*/*", "application/json", []byte(`{"query":{"match_all":{}}}`))
	f.Add("HEAD", "/api/entities/document%3Anotubiz%3Agemeente%3Asoest%3A1?b=2&a=1&", "", "", []byte(nil))
	p, _ := platforms.Get(platforms.OBV)
	rules := RulesFor(p)
	search, _ := p.CostOf("/api/search")

	f.Fuzz(func(t *testing.T, method, target, accept, contentType string, body []byte) {
		r := wire(method, target, accept, contentType, body)
		if r == nil {
			return
		}
		check(t, r, body, rules, search)
		// A sub-request's URL is built by hand: its path has no RawPath.
		byHand := r.Clone(context.Background())
		byHand.URL.RawPath = ""
		check(t, byHand, body, rules, search)
	})
}

func check(t *testing.T, r *http.Request, body []byte, rules Rules, search platforms.Cost) {
	method, target := r.Method, r.URL.String()
	{
		c, err := Build(r, body, rules)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || ce.Code == "" || ce.Message == "" {
				t.Fatalf("refusal without a code and message: %#v", err)
			}
			return
		}
		out := c.Outgoing(context.Background())
		for k := range out.Header {
			if k != "Accept" && k != "Accept-Encoding" && k != "Content-Type" {
				t.Fatalf("header %s would reach the platform", k)
			}
		}
		// What the platform reads off the wire.
		out.Host = "platform.test"
		var buf bytes.Buffer
		if err := out.Write(&buf); err != nil {
			t.Fatalf("canonical request of %s %q cannot be sent: %v", method, target, err)
		}
		got, err := http.ReadRequest(bufio.NewReader(&buf))
		if err != nil {
			t.Fatalf("the platform cannot read the canonical request of %s %q: %v", method, target, err)
		}
		sent, _ := io.ReadAll(got.Body)
		if r.Method != http.MethodPost && len(sent) > 0 {
			t.Fatalf("a %s reached the platform with a body", r.Method)
		}
		c2, err := Build(got, sent, rules)
		if err != nil {
			t.Fatalf("the request sent has no canonical form (%v): %q", err, buf.String())
		}
		if k1, k2 := string(c.AppendKey(nil, "obv")), string(c2.AppendKey(nil, "obv")); k1 != k2 {
			t.Fatalf("the key covers %q, the platform receives %q", k1, k2)
		}
		if !bytes.Equal(c.Body, sent) && !(len(c.Body) == 0 && len(sent) == 0) {
			t.Fatalf("body keyed %q, sent %q", c.Body, sent)
		}
		if _, ok := platforms.FirstCost(rules.Costs, got.URL.Path); ok && got.URL.Path == "/api/search" {
			q, _ := url.ParseQuery(got.URL.RawQuery)
			if vs := q[search.Param]; len(vs) > 1 {
				t.Fatalf("%s reaches the platform %d times", search.Param, len(vs))
			} else if len(vs) == 1 {
				if _, err := search.ParseParam(vs[0]); err != nil {
					t.Fatalf("%s=%q reaches the platform: %v", search.Param, vs[0], err)
				}
			}
		}
	}
}

// FuzzMultipart re-encodes any multipart form, seeded with OpenTK's
// search form as the adapter builds it. Either it is refused, or:
//   - a platform reading the re-encoded form with a decoding reader (Go's
//     NextPart, as a server's form parser) sees exactly the raw bytes of
//     the client's parts, by name: what is keyed is what is read;
//   - re-encoding the result changes nothing (one canonical form).
func FuzzMultipart(f *testing.F) {
	for _, r := range honestRequests(f) {
		if _, params, err := mime.ParseMediaType(r.ContentType); err == nil && params["boundary"] != "" {
			f.Add(params["boundary"], r.Body)
		}
	}
	f.Add("b", []byte("--b\r\nContent-Disposition: form-data; name=\"q\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n=6Blimaat\r\n--b--\r\n"))
	f.Add("b", []byte("--b\r\nContent-Disposition: form-data; name*=UTF-8''q\r\n\r\nklimaat\r\n--b--\r\n"))
	f.Add("b", []byte("pre\r\n--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nx\r\n--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n\r\n--b--\r\npost"))

	f.Fuzz(func(t *testing.T, boundary string, body []byte) {
		ct, out, err := reencodeMultipart(boundary, body)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || ce.Code != "bad_body" || ce.Message == "" {
				t.Fatalf("refusal without code and message: %#v", err)
			}
			return
		}
		raw := parts(t, boundary, body, true)
		_, params, err := mime.ParseMediaType(ct)
		if err != nil {
			t.Fatalf("Content-Type %q: %v", ct, err)
		}
		read := parts(t, params["boundary"], out, false)
		if strings.Join(raw, "\x01") != strings.Join(read, "\x01") {
			t.Fatalf("client's raw parts %q, platform reads %q", raw, read)
		}
		ct2, out2, err := reencodeMultipart(params["boundary"], out)
		if err != nil || ct2 != ct || !bytes.Equal(out, out2) {
			t.Fatalf("re-encoding the canonical form changed it (%v): %q -> %q", err, out, out2)
		}
	})
}

// parts returns a form's parts as "name\x00filename\x00content", in name
// order (stable): raw reads the bytes as sent, else as a server's
// decoding reader does.
func parts(t *testing.T, boundary string, body []byte, raw bool) []string {
	t.Helper()
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	type part struct{ name, s string }
	var ps []part
	for {
		next := mr.NextPart
		if raw {
			next = mr.NextRawPart
		}
		p, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("reading a form the re-encoder took: %v", err)
		}
		b, err := io.ReadAll(p)
		if err != nil {
			t.Fatalf("reading a part: %v", err)
		}
		ps = append(ps, part{p.FormName(), p.FormName() + "\x00" + p.FileName() + "\x00" + string(b)})
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].name < ps[j].name })
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.s
	}
	return out
}

// plainPath agrees with net/url: a path it calls plain is sent as it is
// (found by FuzzBuild: /" was keyed as itself but sent as /%22).
func TestPlainPathIsItsEscapedForm(t *testing.T) {
	for c := 0; c < 256; c++ {
		p := "/a" + string(rune(c)) + "b"
		if c >= 0x80 {
			p = "/a" + string([]byte{byte(c)}) + "b"
		}
		if plainPath(p) && (&url.URL{Path: p}).EscapedPath() != p {
			t.Errorf("%q counted plain, sent as %q", p, (&url.URL{Path: p}).EscapedPath())
		}
	}
}
