// Package canonical builds the one request a platform receives for a
// client's request, and the cache key of that request. platform_cache keys
// what it builds and platform_proxy sends what it builds, from the same
// client request, so anything that can change a platform's answer is
// either in the key or never leaves BesluitBron.
//
// The request is made from an allowlist: the method, the path, the query
// with its parameters in name order, the Accept and Accept-Encoding
// headers, and for a POST its Content-Type and body in a canonical form
// (a multipart form re-encoded, an urlencoded form in name order). Every
// other header of the client stays behind: our proxy sets its own
// User-Agent, and the platforms never learn who our users are.
//
// It is Caddy-free, so the cache (cache) and the
// proxy (caddymodule/platformproxy) share it without sharing Caddy state.
package canonical

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/besluitbron/besluitbron/platforms"
)

// KeyHeaders are the request headers that change a platform's answer:
// the only client headers a platform receives, and part of the key.
var KeyHeaders = []string{"Accept", "Accept-Encoding"}

// Request is the canonical request: what a platform receives and what
// the cache keys.
type Request struct {
	// Method is GET, HEAD or POST as the client sent it (the key counts a
	// HEAD as the GET it is answered from).
	Method string
	// Path and RawPath are the client's, below the route's prefix.
	Path, RawPath string
	// Query is the client's query with its parameters in name order,
	// repeated ones in their own order, each as encoded by the client.
	Query string
	// Accept and AcceptEncoding are the client's headers, repeated lines
	// joined by commas ("" when absent).
	Accept, AcceptEncoding string
	// ContentType is a POST's media type, formatted canonically ("" when
	// the client sent none, and always for a GET or HEAD).
	ContentType string
	// Body is a POST's body in canonical form, non-nil (maybe empty) for
	// a POST; nil for a GET or HEAD.
	Body []byte
}

// Error is a request that has no canonical form: the proxy answers it
// 400 with Message, and the cache passes it by.
type Error struct {
	// Code is "body_not_allowed" (a GET or HEAD with a body), "bad_body"
	// (a POST body or its Content-Type that cannot be read as one
	// canonical form) or "bad_parameter" (a priced query parameter).
	Code string
	// Param names the query parameter of a bad_parameter.
	Param   string
	Message string
}

func (e *Error) Error() string { return e.Message }

// ErrBodyOnRead is the refusal of a GET or HEAD (method) with a body.
func ErrBodyOnRead(method string) *Error {
	return &Error{Code: "body_not_allowed", Message: fmt.Sprintf(
		"a %s request with a body is not passed on: the platform could read the body while the cache key does not cover it; send the request without a body, or as a POST to a search", method)}
}

// Refusal is the JSON body of the 400 that answers a request without a
// canonical form, as platform_cache and platform_proxy both write it.
type Refusal struct {
	// Error is the Code.
	Error    string `json:"error"`
	Platform string `json:"platform"`
	// Parameter names the query parameter of a bad_parameter.
	Parameter string `json:"parameter,omitempty"`
	Message   string `json:"message"`
}

// RefusalOf is the 400's body for err, a Build error, on platform's route.
func RefusalOf(platform string, err error) Refusal {
	var ce *Error
	if !errors.As(err, &ce) {
		ce = &Error{Code: "bad_body", Message: err.Error()}
	}
	return Refusal{Error: ce.Code, Platform: platform, Parameter: ce.Param, Message: ce.Message}
}

// Rules are what a platform's requests must satisfy beyond the general
// form: the prices of its budget (platforms), whose priced
// parameters are passed on only as priced.
type Rules struct {
	Costs []platforms.Cost
}

// RulesFor returns the rules of platform p.
func RulesFor(p platforms.Platform) Rules {
	if p.Budget == nil {
		return Rules{}
	}
	return Rules{Costs: p.Budget.Costs}
}

// Build returns the canonical form of r, whose body (already read; nil or
// empty for none) is body. A GET or HEAD with a body, a POST body that
// does not read as its Content-Type, and a priced parameter other than
// one plain number in range have none: the error is an *Error.
func Build(r *http.Request, body []byte, rules Rules) (Request, error) {
	c := Request{
		Method:         r.Method,
		Path:           r.URL.Path,
		RawPath:        r.URL.RawPath,
		Query:          normalizeQuery(r.URL.RawQuery),
		Accept:         joined(r.Header["Accept"]),
		AcceptEncoding: joined(r.Header["Accept-Encoding"]),
	}
	if c.Path == "" {
		// Sent as "/" (an absolute-form or opaque target may leave it
		// empty): keyed as sent.
		c.Path, c.RawPath = "/", ""
	}
	if err := rules.check(c.Path, c.Query); err != nil {
		return Request{}, err
	}
	if r.Method != http.MethodPost {
		if len(body) > 0 {
			return Request{}, ErrBodyOnRead(r.Method)
		}
		return c, nil
	}
	var err error
	c.ContentType, c.Body, err = canonicalBody(r.Header["Content-Type"], body)
	if err != nil {
		return Request{}, err
	}
	return c, nil
}

// joined is the header's lines as one value, without allocating for the
// usual one line.
func joined(vs []string) string {
	switch len(vs) {
	case 0:
		return ""
	case 1:
		return vs[0]
	}
	return strings.Join(vs, ",")
}

// canonicalBody returns a POST's canonical Content-Type and body.
func canonicalBody(cts []string, body []byte) (string, []byte, error) {
	if body == nil {
		body = []byte{}
	}
	switch len(cts) {
	case 0:
		return "", body, nil
	case 1:
	default:
		return "", nil, badBody("the request has %d Content-Type headers: send one", len(cts))
	}
	mt, params, err := mime.ParseMediaType(cts[0])
	if err != nil {
		return "", nil, badBody("Content-Type %q: %v", cts[0], err)
	}
	switch mt {
	case "multipart/form-data":
		return reencodeMultipart(params["boundary"], body)
	case "application/x-www-form-urlencoded":
		body = []byte(normalizeQuery(string(body)))
	}
	ct := mime.FormatMediaType(mt, params)
	if ct == "" {
		return "", nil, badBody("Content-Type %q cannot be written back canonically", cts[0])
	}
	return ct, body, nil
}

func badBody(format string, args ...any) error {
	return &Error{Code: "bad_body", Message: fmt.Sprintf(format, args...)}
}

// AppendKey appends the raw (unhashed) cache key of c on platform: the
// method (a HEAD as GET), platform, escaped path, query, Accept and
// Accept-Encoding, each ended by a 0 byte, and for a POST the content
// type, a 0 byte and the SHA-256 of the body. No part can hold a 0 byte
// (net/http refuses one in a header or the query; the path is escaped),
// so two requests share a key only when they are the same request.
func (c *Request) AppendKey(b []byte, platform string) []byte {
	method := c.Method
	if method == http.MethodHead {
		method = http.MethodGet // a HEAD is answered from the GET entry
	}
	b = append(b, method...)
	b = append(b, 0)
	b = append(b, platform...)
	b = append(b, 0)
	// The key holds the path as sent (escaped), never decoded: a decoded
	// path with a "%" (from %25) or a 0 byte (from %00) would read as
	// another request's escaped path or split the key's parts, so
	// /x%253A could take the entry of /x%3A. A path of characters that
	// are never escaped is its own escaped form: appended as it is,
	// without EscapedPath's allocation.
	if c.RawPath == "" && plainPath(c.Path) {
		b = append(b, c.Path...)
	} else {
		b = append(b, c.url().EscapedPath()...)
	}
	b = append(b, 0)
	b = append(b, c.Query...)
	b = append(b, 0)
	b = append(b, c.Accept...)
	b = append(b, 0)
	b = append(b, c.AcceptEncoding...)
	b = append(b, 0)
	if c.Body != nil {
		b = append(b, c.ContentType...)
		b = append(b, 0)
		sum := sha256.Sum256(c.Body)
		b = append(b, sum[:]...)
	}
	return b
}

// plainPath tells whether p holds only characters net/url never escapes
// in a path (unreserved, and $&+,/:;=@), so it is sent as it is.
func plainPath(p string) bool {
	for i := 0; i < len(p); i++ {
		if !pathChar[p[i]] {
			return false
		}
	}
	return true
}

var pathChar = func() (t [256]bool) {
	for _, c := range []byte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~$&+,/:;=@") {
		t[c] = true
	}
	return t
}()

func (c *Request) url() *url.URL {
	return &url.URL{Path: c.Path, RawPath: c.RawPath, RawQuery: c.Query}
}

// Outgoing returns the request to send a platform: c and nothing else,
// with ctx. Host, scheme and the base URL's prefix are the proxy's to
// fill in, as is our own User-Agent.
func (c *Request) Outgoing(ctx context.Context) *http.Request {
	h := make(http.Header, 3)
	if c.Accept != "" {
		h["Accept"] = []string{c.Accept}
	}
	if c.AcceptEncoding != "" {
		h["Accept-Encoding"] = []string{c.AcceptEncoding}
	}
	if c.ContentType != "" {
		h["Content-Type"] = []string{c.ContentType}
	}
	out := (&http.Request{
		Method:     c.Method,
		URL:        c.url(),
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     h,
	}).WithContext(ctx)
	if len(c.Body) > 0 {
		body := c.Body
		out.ContentLength = int64(len(body))
		out.Body = http.NoBody
		out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		out.Body, _ = out.GetBody()
	}
	return out
}
