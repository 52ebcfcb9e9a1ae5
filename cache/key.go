package cache

import (
	"crypto/sha256"
	"net/http"
	"sync"

	"github.com/besluitbron/besluitbron/canonical"
)

// KeyHeaders are the request headers that change a platform's answer and
// so are part of the cache key: the only client headers platform_proxy
// passes on (package canonical).
var KeyHeaders = canonical.KeyHeaders

// Key returns the cache key of r on platform: the SHA-256 of the raw key
// of r's canonical request (canonical.Request.AppendKey), which is the
// very request platform_proxy sends the platform. body is the request body
// already read (nil for none); rules are the platform's (zero: none). A
// request without a canonical form has no key: the error says why, and
// Serve passes such a request by, to be refused by the proxy.
func Key(platform string, r *http.Request, body []byte, rules canonical.Rules) (string, error) {
	c, err := canonical.Build(r, body, rules)
	if err != nil {
		return "", err
	}
	return hashKey(c.AppendKey(nil, platform)), nil
}

// hashKey turns a raw key into the stored key.
func hashKey(raw []byte) string {
	sum := sha256.Sum256(raw)
	return string(sum[:])
}

// keyBufs holds the buffers raw keys are built in on the hot path: a hit
// looks its entry up by the raw key without hashing or allocating.
var keyBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}
