package httpx

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
)

func TestMakeInertKeepsPlatformPolicyAndIsIdempotent(t *testing.T) {
	h := http.Header{}
	h.Set("Content-Type", "text/html")
	h.Add("Set-Cookie", "a=1")
	h.Add("Set-Cookie", "b=2")
	h.Set("Refresh", "0; url=https://evil.example/")
	h.Set("Clear-Site-Data", `"storage"`)
	h.Set("Content-Security-Policy", "default-src 'self'")
	MakeInert(h)
	MakeInert(h)
	want := http.Header{
		"Cache-Control":           {"no-store"}, // it set a cookie: personal
		"Content-Type":            {"text/html"},
		"X-Content-Type-Options":  {"nosniff"},
		"Content-Security-Policy": {"default-src 'self'", "sandbox"},
	}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("got %v\nwant %v", h, want)
	}
}

func TestInertWriterAppliesOnImplicitHeader(t *testing.T) {
	rec := httptest.NewRecorder()
	w := Inert(rec)
	w.Header().Set("Set-Cookie", "a=1")
	_, _ = w.Write([]byte("<script>x</script>"))
	if rec.Header().Get("Set-Cookie") != "" || rec.Header().Get("X-Content-Type-Options") != "nosniff" || rec.Header().Get("Content-Security-Policy") != "sandbox" {
		t.Errorf("header %v", rec.Header())
	}
	if err := http.NewResponseController(w).Flush(); err != nil {
		t.Errorf("flush through the wrapper: %v", err)
	}
}

// BenchmarkInertHit is what a cache hit pays for being inert: the wrapper
// and the header changes on a typical stored header.
func BenchmarkInertHit(b *testing.B) {
	rec := httptest.NewRecorder()
	stored := http.Header{"Content-Type": {"application/json"}, "Etag": {`"x"`}, "Cache-Control": {"max-age=60"}}
	b.ReportAllocs()
	for b.Loop() {
		h := rec.Header()
		clear(h)
		for k, v := range stored {
			h[k] = v
		}
		w := Inert(rec)
		w.WriteHeader(http.StatusOK)
	}
}
