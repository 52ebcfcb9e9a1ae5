package site_test

import (
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/redistest"
)

// TestStatusSaysTheStoreMode: with a Redis store the status page says
// the cache and budgets are shared; when Redis cannot be reached it says
// this instance serves alone (degraded), and shared again once Redis is
// back. Neither the page nor /status.json shows the Redis address or the
// instance's id.
func TestStatusSaysTheStoreMode(t *testing.T) {
	t.Parallel() // a house of its own in a child process, on ports of its own
	proxy := redistest.NewProxy(t)
	prefix := redistest.Prefix(t)
	// A Redis call past the default 150 ms degrades the instance: on a
	// machine busy with CI's other packages that happened before the cut.
	// The cut closes the proxy's connections, so calls then fail at once.
	h := startOfflineHouseEnv(t, []string{"BESLUITBRON_REDIS=" + proxy.URL(), "BESLUITBRON_STORE_PREFIX=" + prefix,
		"BESLUITBRON_STORE_TIMEOUT=5s"})
	var store struct{ Instance string }
	if err := json.Unmarshal([]byte(get(t, h.admin+"/besluitbron/store", nil)), &store); err != nil || store.Instance == "" {
		t.Fatalf("admin store: %+v %v", store, err)
	}
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(strings.TrimSuffix(proxy.URL(), "/0"), "redis://"))
	noLeak := func(what, body string) {
		t.Helper()
		for _, leak := range []string{"redis://", "127.0.0.1:" + port, store.Instance, prefix} {
			if strings.Contains(body, leak) {
				t.Errorf("%s shows %q", what, leak)
			}
		}
	}
	check := func(mode, text string) {
		t.Helper()
		if got := statusStore(t, h); got != mode {
			t.Errorf("/status.json says store %q, want %s", got, mode)
		}
		page := get(t, h.base+"/status", nil)
		if !strings.Contains(page, `data-store="`+mode+`"`) || !strings.Contains(page, text) {
			t.Errorf("/status does not say %q", text)
		}
		noLeak("/status", page)
		noLeak("/status.json", get(t, h.base+"/status.json", nil))
		noLeak("/status?lang=en", get(t, h.base+"/status?lang=en", nil))
	}
	check("shared", "gedeeld met de andere instanties")
	if en := get(t, h.base+"/status?lang=en", nil); !strings.Contains(en, "shared with BesluitBron") {
		t.Error("/status?lang=en does not say shared")
	}

	proxy.Cut()
	// The store notices at its next operation: a new question needs the
	// shared cache and budgets. Each try from an address of its own, so
	// the page's per-address limit never decides.
	deadline := time.Now().Add(time.Minute)
	for i := 0; statusStore(t, h) != "degraded"; i++ {
		if time.Now().After(deadline) {
			t.Fatal("the status never said degraded after Redis was cut")
		}
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 9, byte(1+i%250))}}
		cl := &http.Client{Timeout: time.Minute, Transport: &http.Transport{DialContext: d.DialContext}}
		resp, err := cl.Get(h.base + "/search?" + url.Values{"q": {"begroting " + strconv.Itoa(i)}}.Encode())
		if err == nil {
			resp.Body.Close()
		}
		cl.CloseIdleConnections()
	}
	check("degraded", "Redis is onbereikbaar, dus deze instantie werkt alleen")

	proxy.Restore()
	deadline = time.Now().Add(time.Minute)
	for statusStore(t, h) != "shared" {
		if time.Now().After(deadline) {
			t.Fatal("the status never said shared again after Redis came back")
		}
		time.Sleep(50 * time.Millisecond) // bounded poll for the store's probe
	}
	check("shared", "gedeeld met de andere instanties")
}
