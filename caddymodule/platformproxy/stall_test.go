package platformproxy

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/besluitbron/besluitbron/emulators/fault"
	"github.com/besluitbron/besluitbron/httpx"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"

	_ "github.com/besluitbron/besluitbron/caddymodule/emulator"
	_ "github.com/besluitbron/besluitbron/caddymodule/platformcache"
)

// stalledOBV runs OpenBesluitvorming's emulator behind platform_cache and
// platform_proxy with a short response_header_timeout; it returns the
// route's base URL and the emulator's.
func stalledOBV(t *testing.T) (string, string) {
	port, emuPort := testproc.FreePort(t), testproc.FreePort(t)
	emu := fmt.Sprintf("http://127.0.0.1:%d", emuPort)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin off
%s}
http://:%d {
	besluitbron_emulator obv
}
http://:%d {
	handle_path /platforms/obv/* {
		route {
			platform_cache obv {
				dir off
			}
			platform_proxy obv %s {
				response_header_timeout 200ms
			}
		}
	}
}`, allowLoopback, emuPort, port, emu))
	return fmt.Sprintf("http://127.0.0.1:%d/platforms/obv", port), emu
}

// emulatorTotal is the number of requests the emulator received.
func emulatorTotal(t *testing.T, emu string) int64 {
	t.Helper()
	_, _, body := get(t, emu+"/_emulator/stats")
	var st fault.Stats
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatalf("emulator stats %s: %v", body, err)
	}
	return st.Total
}

// TestCaddyStalledPlatformAnswers504: a platform that accepts the request
// and sends no headers (the emulator's latency fault of ten minutes,
// ended by the proxy hanging up or the test's cleanup) is answered 504
// with Retry-After once response_header_timeout has passed, and the
// cache's flight for the key is freed: the next caller leads a new one,
// and once the platform answers again so does the route. Before, the
// transport had no header timeout and the request waited as long as the
// platform did.
func TestCaddyStalledPlatformAnswers504(t *testing.T) {
	base, emu := stalledOBV(t)
	const path = "/api/search?q=stikstof"
	resp, err := http.Post(emu+"/_emulator/faults", "application/json", strings.NewReader(`{"path_prefix":"/api/search","latency":"10m"}`))
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("adding the fault: %v %v", err, resp)
	}
	resp.Body.Close()
	for i := range 2 {
		code, h, body := get(t, base+path)
		if code != http.StatusGatewayTimeout || h.Get("Retry-After") != httpx.StalledRetryAfter {
			t.Fatalf("call %d to a stalled platform: HTTP %d, Retry-After %q: %s", i+1, code, h.Get("Retry-After"), body)
		}
		// Each call led its own flight: the stalled one was freed.
		if n := emulatorTotal(t, emu); n != int64(i+1) {
			t.Fatalf("after call %d the platform saw %d requests", i+1, n)
		}
	}
	req, _ := http.NewRequest(http.MethodDelete, emu+"/_emulator/faults", nil)
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	if code, _, body := get(t, base+path); code != http.StatusOK {
		t.Fatalf("after the stall: HTTP %d: %s", code, body)
	}
}

// TestCaddyHeaderTimeoutLeavesASilentBody: the header timeout ends at the
// headers. A platform that answers its headers at once and then stays
// silent longer than response_header_timeout (as long as a stalled
// request takes to be answered 504 by the same proxy) still delivers its
// whole body.
func TestCaddyHeaderTimeoutLeavesASilentBody(t *testing.T) {
	release := make(chan struct{})
	free := sync.OnceFunc(func() { close(release) })
	t.Cleanup(free)
	a := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/stall" {
			select { // never answers: the proxy hangs up
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "begin ")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		_, _ = io.WriteString(w, "end")
	})
	base := serve(t, "rechtspraak", fmt.Sprintf(`platform_proxy rechtspraak %s {
				response_header_timeout 200ms
			}`, a.URL))
	resp, err := http.Get(base + "/content?id=ECLI:NL:HR:2024:1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("headers: HTTP %d", resp.StatusCode)
	}
	// A stalled request sent after these headers arrived is answered 504
	// only once its own header timeout has passed: by then the body above
	// has been silent longer than the timeout.
	if code, _, body := get(t, base+"/stall"); code != http.StatusGatewayTimeout {
		t.Fatalf("stalled request: HTTP %d: %s", code, body)
	}
	free()
	b, err := io.ReadAll(resp.Body)
	if err != nil || string(b) != "begin end" {
		t.Fatalf("the silent body was cut: %q, %v", b, err)
	}
}
