package cache

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"sort"
	"strings"
	"sync"
)

// KeyHeaders are the request headers that change a platform's answer and
// so are part of the cache key.
var KeyHeaders = []string{"Accept", "Accept-Encoding"}

// Key returns the cache key of r on platform: method, platform, path,
// the query with its parameters in a normalised order, the headers that
// change the answer, and for a request with a body (POST searches) the
// content type and a hash of the body in a normalised form. body is the
// request body already read (nil for none). The key is a 32-byte SHA-256
// string.
func Key(platform string, r *http.Request, body []byte) string {
	bp := keyBufs.Get().(*[]byte)
	b := appendRawKey((*bp)[:0], platform, r, body)
	k := hashKey(b)
	*bp = b
	keyBufs.Put(bp)
	return k
}

// hashKey turns a raw key into the stored key.
func hashKey(raw []byte) string {
	sum := sha256.Sum256(raw)
	return string(sum[:])
}

// appendRawKey appends the key's parts, unhashed; the hot set looks
// entries up by it without hashing or allocating.
func appendRawKey(b []byte, platform string, r *http.Request, body []byte) []byte {
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet // a HEAD is answered from the GET entry
	}
	b = append(b, method...)
	b = append(b, 0)
	b = append(b, platform...)
	b = append(b, 0)
	// The key holds the path escaped, never decoded: a decoded path with
	// a "%" (from %25) or a 0 byte (from %00) would read as another
	// request's escaped path or split the key's parts, so /x%253A could
	// take the entry of /x%3A (found by FuzzKey). A path with neither is
	// its own escaped form as far as the key is concerned: appended as it
	// is, without EscapedPath's allocation.
	if p := r.URL.Path; r.URL.RawPath != "" || strings.IndexByte(p, '%') >= 0 || strings.IndexByte(p, 0) >= 0 {
		b = append(b, r.URL.EscapedPath()...)
	} else {
		b = append(b, p...)
	}
	b = append(b, 0)
	b = appendNormalizedQuery(b, r.URL.RawQuery)
	b = append(b, 0)
	for _, k := range KeyHeaders {
		for i, v := range r.Header[k] { // KeyHeaders are canonical
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, v...)
		}
		b = append(b, 0)
	}
	if body != nil {
		ct, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		b = append(b, ct...)
		b = append(b, 0)
		b = append(b, bodyDigest(ct, params, body)...)
	}
	return b
}

var keyBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// appendNormalizedQuery appends the query with its parameters ordered by
// name, keeping the order of repeated values (Rechtspraak's
// date=from&date=to is a range) and each parameter's encoding as sent.
func appendNormalizedQuery(b []byte, raw string) []byte {
	if raw == "" {
		return b
	}
	// Fast path: already in order (what BesluitBron's own tools send).
	sorted := true
	prev := ""
	// Every pair counts, the empty one after a trailing "&" too: the slow
	// path sorts it first, so "a=1&" must not pass as sorted (found by
	// FuzzKey: "0&" and "&0" had different keys).
	for rest, more := raw, true; more; {
		var pair string
		pair, rest, more = strings.Cut(rest, "&")
		name, _, _ := strings.Cut(pair, "=")
		if name < prev {
			sorted = false
			break
		}
		prev = name
	}
	if sorted {
		return append(b, raw...)
	}
	pairs := strings.Split(raw, "&")
	sort.SliceStable(pairs, func(i, j int) bool {
		a, _, _ := strings.Cut(pairs[i], "=")
		c, _, _ := strings.Cut(pairs[j], "=")
		return a < c
	})
	for i, p := range pairs {
		if i > 0 {
			b = append(b, '&')
		}
		b = append(b, p...)
	}
	return b
}

// bodyDigest hashes a request body. Multipart forms (OpenTK's search) and
// urlencoded forms are hashed by their fields in name order, so a client's
// random multipart boundary or field order does not split the cache; any
// other body is hashed as it is.
func bodyDigest(ct string, params map[string]string, body []byte) []byte {
	h := sha256.New()
	switch ct {
	case "multipart/form-data":
		if fields, err := multipartFields(body, params["boundary"]); err == nil {
			for _, f := range fields {
				_, _ = h.Write([]byte(f))
				_, _ = h.Write([]byte{0})
			}
			_, _ = h.Write([]byte("multipart"))
			return h.Sum(nil)
		}
	case "application/x-www-form-urlencoded":
		_, _ = h.Write(appendNormalizedQuery(nil, string(body)))
		_, _ = h.Write([]byte("form"))
		return h.Sum(nil)
	}
	_, _ = h.Write(body)
	return h.Sum(nil)
}

// multipartFields returns a multipart body's parts as sorted
// "name\x00filename\x00content" strings.
func multipartFields(body []byte, boundary string) ([]string, error) {
	if boundary == "" {
		return nil, errors.New("no boundary")
	}
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	var fields []string
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		content, err := io.ReadAll(p)
		if err != nil {
			return nil, err
		}
		fields = append(fields, p.FormName()+"\x00"+p.FileName()+"\x00"+string(content))
	}
	sort.Strings(fields)
	return fields, nil
}
