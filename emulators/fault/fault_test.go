package fault

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

type inner struct{ resets int }

func (h *inner) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/teapot":
		w.WriteHeader(http.StatusTeapot)
	default:
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, strings.Repeat("x", 1000))
	}
}
func (h *inner) EmulatorStats() map[string]any { return map[string]any{"resets": h.resets} }
func (h *inner) ResetEmulator()                { h.resets++ }

type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) total() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var t time.Duration
	for _, d := range s.d {
		t += d
	}
	return t
}

func newServer(t *testing.T) (*Instrumented, *httptest.Server, *sleeps) {
	t.Helper()
	sl := &sleeps{}
	in := Wrap(&inner{}, WithSleeper(sl.sleep))
	srv := httptest.NewServer(in)
	t.Cleanup(srv.Close)
	return in, srv, sl
}

func do(t *testing.T, method, url, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

func TestCounts(t *testing.T) {
	in, srv, _ := newServer(t)
	for i := 0; i < 3; i++ {
		do(t, "GET", srv.URL+"/a", "")
	}
	do(t, "GET", srv.URL+"/teapot", "")
	do(t, "GET", srv.URL+"/_emulator/stats", "")
	s := in.Stats()
	if s.Total != 4 || s.ByPath["/a"] != 3 || s.ByPath["/teapot"] != 1 || s.ByStatus["200"] != 3 || s.ByStatus["418"] != 1 {
		t.Fatalf("stats = %+v", s)
	}
	if in.Count("/a") != 3 || in.Total() != 4 || in.StatusCount(418) != 1 || s.MaxInFlight != 1 || s.InFlight != 0 {
		t.Fatalf("accessors: %d %d %d %+v", in.Count("/a"), in.Total(), in.StatusCount(418), s)
	}
	if s.Emulator["resets"] != 0 {
		t.Fatalf("emulator stats = %v", s.Emulator)
	}
	resp, body := do(t, "GET", srv.URL+"/_emulator/stats", "")
	var got Stats
	if err := json.Unmarshal([]byte(body), &got); err != nil || resp.StatusCode != 200 || got.Total != 4 || got.ByPath["/a"] != 3 {
		t.Fatalf("GET stats: %d %s", resp.StatusCode, body)
	}
	if p := got.SortedPaths(); len(p) != 2 || p[0] != "/a" {
		t.Fatalf("SortedPaths = %v", p)
	}
	resp, _ = do(t, "POST", srv.URL+"/_emulator/reset", "")
	if resp.StatusCode != 204 || in.Total() != 0 || in.Stats().Emulator["resets"] != 1 {
		t.Fatalf("reset: %d, %+v", resp.StatusCode, in.Stats())
	}
}

func TestLatencyAndStatusForNextN(t *testing.T) {
	in, srv, sl := newServer(t)
	if _, err := in.AddFault(Fault{Latency: Duration(150 * time.Millisecond), Status: 503, Count: 2}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		resp, body := do(t, "GET", srv.URL+"/a", "")
		if resp.StatusCode != 503 || !strings.Contains(body, "injected fault") {
			t.Fatalf("faulted request %d: %d %s", i, resp.StatusCode, body)
		}
	}
	if resp, _ := do(t, "GET", srv.URL+"/a", ""); resp.StatusCode != 200 {
		t.Fatalf("third request: %d", resp.StatusCode)
	}
	if sl.total() != 300*time.Millisecond {
		t.Fatalf("slept %v", sl.total())
	}
	s := in.Stats()
	if s.FaultsInjected != 2 || s.ByStatus["503"] != 2 || len(in.Faults()) != 0 {
		t.Fatalf("stats %+v faults %v", s, in.Faults())
	}
}

func TestPathPrefixAndCustomBody(t *testing.T) {
	in, srv, _ := newServer(t)
	id, _ := in.AddFault(Fault{PathPrefix: "/api/", Status: 429, Body: `{"error":"x"}`})
	if resp, _ := do(t, "GET", srv.URL+"/other", ""); resp.StatusCode != 200 {
		t.Fatalf("other path: %d", resp.StatusCode)
	}
	resp, body := do(t, "GET", srv.URL+"/api/search", "")
	if resp.StatusCode != 429 || body != `{"error":"x"}` {
		t.Fatalf("api path: %d %s", resp.StatusCode, body)
	}
	if !in.RemoveFault(id) || in.RemoveFault(id) {
		t.Fatal("RemoveFault")
	}
	if resp, _ := do(t, "GET", srv.URL+"/api/search", ""); resp.StatusCode != 200 {
		t.Fatalf("after removal: %d", resp.StatusCode)
	}
}

func TestLatencyCanceled(t *testing.T) {
	in := Wrap(&inner{}, WithSleeper(func(ctx context.Context, d time.Duration) error { return context.Canceled }))
	in.AddFault(Fault{Latency: Duration(time.Second)})
	rec := httptest.NewRecorder()
	in.ServeHTTP(rec, httptest.NewRequest("GET", "/a", nil))
	if rec.Body.Len() != 0 || in.Stats().ByStatus["canceled"] != 1 {
		t.Fatalf("canceled: %d bytes, %+v", rec.Body.Len(), in.Stats())
	}
}

func TestRealSleep(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := RealSleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("RealSleep on a canceled context: %v", err)
	}
	if err := RealSleep(context.Background(), time.Millisecond); err != nil {
		t.Fatal(err)
	}
}

func TestResetBeforeAnswer(t *testing.T) {
	in, srv, _ := newServer(t)
	in.AddFault(Fault{Reset: true, Count: 1})
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	_, err := (&http.Client{Transport: tr}).Get(srv.URL + "/a")
	if err == nil {
		t.Fatal("want a connection error")
	}
	if s := in.Stats(); s.ByStatus["reset"] != 1 || s.Total != 1 {
		t.Fatalf("stats %+v", s)
	}
	if resp, _ := do(t, "GET", srv.URL+"/a", ""); resp.StatusCode != 200 {
		t.Fatal("after the reset")
	}
}

func TestResetMidBody(t *testing.T) {
	in, srv, _ := newServer(t)
	in.AddFault(Fault{Reset: true, ResetAfterBytes: 100})
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(srv.URL + "/a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil || len(b) >= 1000 || resp.ContentLength != 1000 {
		t.Fatalf("read %d of %d bytes, err %v", len(b), resp.ContentLength, err)
	}
}

func TestSlowBody(t *testing.T) {
	in, srv, sl := newServer(t)
	in.AddFault(Fault{BytesPerSecond: 200})
	resp, body := do(t, "GET", srv.URL+"/a", "")
	if resp.StatusCode != 200 || len(body) != 1000 || resp.ContentLength != 1000 {
		t.Fatalf("%d, %d bytes", resp.StatusCode, len(body))
	}
	// 1000 bytes at 200 B/s in 20-byte chunks: 49 waits of 100ms.
	if sl.total() != 4900*time.Millisecond {
		t.Fatalf("slept %v", sl.total())
	}
}

func TestPaddedAnswer(t *testing.T) {
	in, srv, _ := newServer(t)
	in.AddFault(Fault{PadBytes: 5 << 20, Count: 1})
	resp, body := do(t, "GET", srv.URL+"/a", "")
	want := strings.Repeat("x", 1000) + strings.Repeat(" ", 5<<20)
	if resp.StatusCode != 200 || resp.ContentLength != int64(len(want)) || body != want {
		t.Fatalf("%d, Content-Length %d, %d bytes (want %d, the answer then spaces)", resp.StatusCode, resp.ContentLength, len(body), len(want))
	}
	// The fault was for one request: the next answer is the emulator's own.
	if _, body := do(t, "GET", srv.URL+"/a", ""); len(body) != 1000 {
		t.Fatalf("after the fault: %d bytes", len(body))
	}
}

func TestControlAPI(t *testing.T) {
	in, srv, _ := newServer(t)
	cases := []struct {
		method, path, body string
		status             int
		contains           string
	}{
		{"POST", "/_emulator/faults", `{`, 400, "fault:"},
		{"POST", "/_emulator/faults", `{"latncy":"1s"}`, 400, "unknown field"},
		{"POST", "/_emulator/faults", `{"latency":"soon"}`, 400, "latency"},
		{"POST", "/_emulator/faults", `{"latency":true}`, 400, "latency"},
		{"POST", "/_emulator/faults", `{}`, 400, "does nothing"},
		{"POST", "/_emulator/faults", `{"status":302}`, 400, "between 400 and 599"},
		{"POST", "/_emulator/faults", `{"status":500,"reset":true}`, 400, "choose one"},
		{"POST", "/_emulator/faults", `{"count":-1,"status":500}`, 400, "count"},
		{"POST", "/_emulator/faults", `{"latency":"11m"}`, 400, "10m"},
		{"POST", "/_emulator/faults", `{"body":"x"}`, 400, "needs a status"},
		{"POST", "/_emulator/faults", `{"reset_after_bytes":5}`, 400, "needs reset"},
		{"POST", "/_emulator/faults", `{"reset":true,"reset_after_bytes":-5}`, 400, "reset_after_bytes"},
		{"POST", "/_emulator/faults", `{"bytes_per_second":-1}`, 400, "bytes_per_second"},
		{"POST", "/_emulator/faults", `{"pad_bytes":-1}`, 400, "pad_bytes"},
		{"POST", "/_emulator/faults", `{"pad_bytes":2000000000}`, 400, "pad_bytes"},
		{"POST", "/_emulator/faults", `{"pad_bytes":10,"status":500}`, 400, "choose one"},
		{"POST", "/_emulator/faults", `{"status":500,"path_prefix":"api"}`, 400, "must start with /"},
		{"POST", "/_emulator/faults", `{"status":500,"id":4}`, 400, "set by the emulator"},
		{"POST", "/_emulator/faults", `{"latency":250,"path_prefix":"/x"}`, 201, `"id": 1`},
		{"GET", "/_emulator/faults", ``, 200, `"latency": "250ms"`},
		{"DELETE", "/_emulator/faults?id=x", ``, 400, "number"},
		{"DELETE", "/_emulator/faults?id=99", ``, 404, "no fault with id 99"},
		{"DELETE", "/_emulator/faults?id=1", ``, 204, ""},
		{"DELETE", "/_emulator/faults", ``, 204, ""},
		{"PUT", "/_emulator/faults", ``, 405, "method not allowed"},
		{"POST", "/_emulator/stats", ``, 405, "GET"},
		{"GET", "/_emulator/reset", ``, 405, "POST"},
		{"GET", "/_emulator/nope", ``, 404, "unknown control endpoint"},
	}
	for _, c := range cases {
		resp, body := do(t, c.method, srv.URL+c.path, c.body)
		if resp.StatusCode != c.status || !strings.Contains(body, c.contains) {
			t.Errorf("%s %s %s: %d %s, want %d containing %q", c.method, c.path, c.body, resp.StatusCode, body, c.status, c.contains)
		}
	}
	if in.Total() != 0 {
		t.Errorf("control requests were counted: %d", in.Total())
	}
}

func TestConcurrent(t *testing.T) {
	in := Wrap(&inner{})
	in.AddFault(Fault{Status: 500, Count: 50})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 25; k++ {
				in.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/a", nil))
			}
		}()
	}
	wg.Wait()
	s := in.Stats()
	if s.Total != 200 || s.ByStatus["500"] != 50 || s.ByStatus["200"] != 150 || s.FaultsInjected != 50 {
		t.Fatalf("%+v", s)
	}
}

func TestClientAddress(t *testing.T) {
	for _, tc := range []struct {
		remote string
		xff    []string
		want   string
	}{
		{"198.51.100.7:4444", nil, "198.51.100.7"},
		{"127.0.0.1:1", []string{"203.0.113.1, 198.51.100.2"}, "198.51.100.2"},
		{"127.0.0.1:1", []string{"203.0.113.1", "192.0.2.9"}, "192.0.2.9"},
		{"127.0.0.1:1", []string{" "}, "127.0.0.1"},
		{"not-an-address", nil, "not-an-address"},
	} {
		req := httptest.NewRequest("GET", "/", nil)
		req.RemoteAddr = tc.remote
		for _, v := range tc.xff {
			req.Header.Add("X-Forwarded-For", v)
		}
		if got := ClientAddress(req); got != tc.want {
			t.Errorf("remote %s, X-Forwarded-For %q: got %q, want %q", tc.remote, tc.xff, got, tc.want)
		}
	}
}
