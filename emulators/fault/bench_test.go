package fault

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

var small = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) })

// BenchmarkBare is the handler alone, for comparison with BenchmarkWrapped.
func BenchmarkBare(b *testing.B) {
	req := httptest.NewRequest("GET", "/api/search", nil)
	for i := 0; i < b.N; i++ {
		small.ServeHTTP(httptest.NewRecorder(), req)
	}
}

// BenchmarkWrapped is the same handler behind the counting wrapper with an
// inactive fault on another path.
func BenchmarkWrapped(b *testing.B) {
	in := Wrap(small)
	_, _ = in.AddFault(Fault{PathPrefix: "/other", Status: 500})
	req := httptest.NewRequest("GET", "/api/search", nil)
	for i := 0; i < b.N; i++ {
		in.ServeHTTP(httptest.NewRecorder(), req)
	}
}
