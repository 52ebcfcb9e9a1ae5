package httpx

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"30", 30 * time.Second, true},
		{" 0 ", 0, true},
		{"1.5", 1500 * time.Millisecond, true},
		{"86400", 24 * time.Hour, true},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Minute).Format(http.TimeFormat), -time.Minute, true}, // past: negative, callers decide
		{"", 0, false},
		{"soon", 0, false},
		{"-1", 0, false},
		{"1e9", 0, false},
		{"86401", 0, false},
		{"NaN", 0, false},
		{now.Add(25 * time.Hour).Format(http.TimeFormat), 0, false},
	} {
		got, ok := RetryAfter(tc.v, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("RetryAfter(%q) = %v, %v; want %v, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}

func TestBufferBodyFits(t *testing.T) {
	r := httptest.NewRequest("POST", "/x", io.NopCloser(strings.NewReader("hello")))
	r.ContentLength = -1 // chunked: no length up front
	r.TransferEncoding = []string{"chunked"}
	body, over, err := BufferBody(r, 5)
	if err != nil || over || string(body) != "hello" {
		t.Fatalf("%q %v %v", body, over, err)
	}
	if r.ContentLength != 5 || r.TransferEncoding != nil || r.GetBody == nil {
		t.Fatalf("length %d, encoding %v, GetBody %v", r.ContentLength, r.TransferEncoding, r.GetBody != nil)
	}
	for range 2 { // readable, and again through GetBody
		b, _ := io.ReadAll(r.Body)
		if string(b) != "hello" {
			t.Fatalf("body read back %q", b)
		}
		r.Body, _ = r.GetBody()
	}
}

func TestBufferBodyEmpty(t *testing.T) {
	r := httptest.NewRequest("GET", "/x", nil)
	body, over, err := BufferBody(r, 5)
	if err != nil || over || body == nil || len(body) != 0 || r.Body != http.NoBody {
		t.Fatalf("%v %v %v %v", body, over, err, r.Body)
	}
	r = httptest.NewRequest("POST", "/x", strings.NewReader(""))
	r.ContentLength = -1
	if body, over, err := BufferBody(r, 5); err != nil || over || len(body) != 0 || r.Body != http.NoBody || r.ContentLength != 0 {
		t.Fatalf("empty chunked body: %v %v %v", body, over, err)
	}
}

// Over the cap, nothing is lost: the body still streams whole, so a
// caller that does not buffer it can pass it on.
func TestBufferBodyOverStreamsWhole(t *testing.T) {
	big := bytes.Repeat([]byte("ab"), 100)
	r := httptest.NewRequest("POST", "/x", io.NopCloser(bytes.NewReader(big)))
	r.ContentLength = -1
	body, over, err := BufferBody(r, 10)
	if err != nil || !over || body != nil {
		t.Fatalf("%q %v %v", body, over, err)
	}
	if b, _ := io.ReadAll(r.Body); !bytes.Equal(b, big) {
		t.Fatalf("streamed %d bytes, want %d", len(b), len(big))
	}
	// A declared length over the cap: refused unread.
	r = httptest.NewRequest("POST", "/x", bytes.NewReader(big))
	if _, over, _ := BufferBody(r, 10); !over {
		t.Fatal("Content-Length over the cap not refused")
	}
	if b, _ := io.ReadAll(r.Body); !bytes.Equal(b, big) {
		t.Fatal("a refused body was read")
	}
}

func TestBufferBodyReadError(t *testing.T) {
	boom := errors.New("client gone")
	r := httptest.NewRequest("POST", "/x", io.NopCloser(iotest.ErrReader(boom)))
	r.ContentLength = -1
	if _, _, err := BufferBody(r, 10); !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
}
