package httpx

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// WriteRefusal answers a request BesluitBron refuses itself (a 400, 405,
// 413 of a platform route) with body as JSON: never stored by a cache,
// with its exact length.
func WriteRefusal(w http.ResponseWriter, status int, body any) {
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
