package emulator

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/besluitbron/besluitbron/emulators/fault"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/platforms"
)

func TestUnmarshalCaddyfile(t *testing.T) {
	cases := []struct {
		in       string
		platform string
		seed     int64
		err      string
	}{
		{"besluitbron_emulator obv", "obv", DefaultSeed, ""},
		{"besluitbron_emulator tk {\n seed 42\n}", "tk", 42, ""},
		{"besluitbron_emulator oa {\n seed -3\n}", "oa", -3, ""},
		{"besluitbron_emulator opentk {\n instance b\n}", "opentk", DefaultSeed, ""},
		{"besluitbron_emulator opentk {\n instance\n}", "", 0, "wrong argument count"},
		{"besluitbron_emulator opentk {\n instance a b\n}", "", 0, "wrong argument count"},
		{"besluitbron_emulator", "", 0, "wrong argument count"},
		{"besluitbron_emulator obv 42", "", 0, "the seed goes in a block"},
		{"besluitbron_emulator obv {\n seed\n}", "", 0, "wrong argument count"},
		{"besluitbron_emulator obv {\n seed abc\n}", "", 0, "must be an integer"},
		{"besluitbron_emulator obv {\n seed 1 2\n}", "", 0, "wrong argument count"},
		{"besluitbron_emulator obv {\n colour red\n}", "", 0, `unknown subdirective "colour"`},
	}
	for _, c := range cases {
		var h Handler
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(c.in))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || h.Platform != c.platform || h.seed() != c.seed {
			t.Errorf("%q: %+v seed %d err %v", c.in, h, h.seed(), err)
		}
	}
}

func TestValidateAndProvisionErrors(t *testing.T) {
	for _, c := range []struct{ platform, err string }{
		{"", "platform key missing"},
		{"openraad", `unknown platform "openraad"; one of ori, obv, tk, opentk, ob, rechtspraak, oa`},
	} {
		h := Handler{Platform: c.platform}
		if err := h.Validate(); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: %v", c.platform, err)
		}
	}
	// Provision refuses what Validate refuses.
	ctx, cancel := caddy.NewContext(caddy.Context{Context: t.Context()})
	defer cancel()
	h := Handler{Platform: "openraad"}
	if err := h.Provision(ctx); err == nil || !strings.Contains(err.Error(), `unknown platform "openraad"`) {
		t.Errorf("Provision of an unknown platform: %v", err)
	}
}

// Every platform has an emulator and every emulator is a platform's, so
// Validate's one check covers both.
func TestEveryPlatformHasAnEmulator(t *testing.T) {
	want := append([]string(nil), platforms.Keys()...)
	sort.Strings(want)
	if got := Available(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("emulators for %v, platforms %v", got, want)
	}
}

func caddyfileFor(adminPort, port int, platform string, seed int64) string {
	return fmt.Sprintf(`{
	admin localhost:%d
	auto_https off
	persist_config off
}
http://:%d {
	bind 127.0.0.1
	besluitbron_emulator %s {
		seed %d
	}
}
`, adminPort, port, platform, seed)
}

// fresh is a client that opens a connection per request. The test loads
// configs on a port an earlier config served: a kept-alive connection to
// the old config's server could be closed by its shutdown just after a
// request was written on it, and Go does not send such a request again
// (it may have been served), so the test saw EOF.
var fresh = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

func getJSON(t *testing.T, url string, v any) *http.Response {
	t.Helper()
	resp, err := fresh.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if v != nil {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v: %s", url, err, b)
		}
	}
	return resp
}

func TestCaddyServesOBVAndCountsSurviveReload(t *testing.T) {
	admin, port := testproc.FreePort(t), testproc.FreePort(t)
	testcaddy.Load(t, caddyfileFor(admin, port, "obv", 5))
	base := fmt.Sprintf("http://127.0.0.1:%d", port)

	var search map[string]any
	resp := getJSON(t, base+"/api/search?query=woningbouw&organization=soest", &search)
	if resp.StatusCode != 200 || resp.Header.Get("RateLimit-Limit") != "60" {
		t.Fatalf("search through Caddy: %d %v", resp.StatusCode, resp.Header)
	}
	if _, ok := search["results"]; !ok {
		t.Fatalf("no results key: %v", search)
	}
	// The proxy sends the platform's own Host; the site has no host matcher.
	req, _ := http.NewRequest("GET", base+"/api/sources", nil)
	req.Host = "openbesluitvorming.nl"
	if r, err := fresh.Do(req); err != nil || r.StatusCode != 200 {
		t.Fatalf("request with the platform's Host: %v %v", err, r)
	} else {
		r.Body.Close()
	}

	var st fault.Stats
	getJSON(t, base+"/_emulator/stats", &st)
	if st.Total != 2 || st.ByPath["/api/search"] != 1 || st.ByStatus["200"] != 2 || st.Emulator["rate_limited"] != 0.0 {
		t.Fatalf("stats %+v", st)
	}

	// A fault over HTTP: the next request gets a 503.
	r, err := fresh.Post(base+"/_emulator/faults", "application/json", strings.NewReader(`{"status":503,"count":1}`))
	if err != nil || r.StatusCode != 201 {
		t.Fatalf("adding a fault: %v %v", err, r)
	}
	r.Body.Close()
	if resp := getJSON(t, base+"/api/stats", nil); resp.StatusCode != 503 {
		t.Fatalf("faulted: %d", resp.StatusCode)
	}

	// A connection reset through Caddy's response writer (hijack works).
	r, err = fresh.Post(base+"/_emulator/faults", "application/json", strings.NewReader(`{"reset":true,"count":1}`))
	if err != nil || r.StatusCode != 201 {
		t.Fatalf("adding a reset fault: %v %v", err, r)
	}
	r.Body.Close()
	tr := &http.Transport{DisableKeepAlives: true}
	if _, err := (&http.Client{Transport: tr}).Get(base + "/api/stats"); err == nil {
		t.Fatal("want a connection error from the reset fault")
	}
	tr.CloseIdleConnections()
	getJSON(t, base+"/_emulator/stats", &st)
	if st.ByStatus["reset"] != 1 {
		t.Fatalf("reset not counted: %+v", st)
	}

	// Reload with the same platform and seed (another site address): the
	// emulator, and so its counts, survive.
	port2 := testproc.FreePort(t)
	testcaddy.Load(t, caddyfileFor(admin, port2, "obv", 5))
	getJSON(t, fmt.Sprintf("http://127.0.0.1:%d/_emulator/stats", port2), &st)
	if st.Total != 4 || st.ByStatus["503"] != 1 {
		t.Fatalf("after reload: %+v", st)
	}
	if in, ok := Instrumented("obv", 5); !ok || in.Total() != 4 {
		t.Fatalf("Instrumented: %v %v", in, ok)
	}
	// Another seed is another emulator. testcaddy.Reload, not Load: on
	// the same port the old config's listener could still take the next
	// connection and reset it (about once in 20 runs).
	testcaddy.Reload(t, caddyfileFor(admin, port2, "obv", 6))
	getJSON(t, fmt.Sprintf("http://127.0.0.1:%d/_emulator/stats", port2), &st)
	if st.Total != 0 {
		t.Fatalf("seed 6: %+v", st)
	}
	if _, ok := Instrumented("obv", 5); ok {
		t.Error("the seed-5 emulator should be released once no config uses it")
	}
}

func TestCaddyfileAdapts(t *testing.T) {
	cfg := string(testcaddy.Adapt(t, "http://127.0.0.1:1 {\n\tbesluitbron_emulator obv {\n\t\tseed 9\n\t}\n}\n"))
	if !strings.Contains(cfg, `"handler":"besluitbron_emulator"`) || !strings.Contains(cfg, `"platform":"obv"`) || !strings.Contains(cfg, `"seed":9`) {
		t.Fatalf("adapted config: %s", cfg)
	}
}

// TestEveryBuiltInEmulator serves each built-in emulator on its own
// loopback port, as the offline mode does, and reads its stats.
func TestEveryBuiltInEmulator(t *testing.T) {
	admin := testproc.FreePort(t)
	cf := fmt.Sprintf("{\n\tadmin localhost:%d\n\tauto_https off\n\tpersist_config off\n}\n", admin)
	ports := map[string]int{}
	for _, k := range Available() {
		ports[k] = testproc.FreePort(t)
		cf += fmt.Sprintf("http://127.0.0.1:%d {\n\tbesluitbron_emulator %s\n}\n", ports[k], k)
	}
	testcaddy.Load(t, cf)
	for k, p := range ports {
		resp, err := fresh.Get(fmt.Sprintf("http://127.0.0.1:%d/no-such-path-%s", p, k))
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		resp.Body.Close()
		var st fault.Stats
		getJSON(t, fmt.Sprintf("http://127.0.0.1:%d/_emulator/stats", p), &st)
		if st.Total != 1 || st.ByPath["/no-such-path-"+k] != 1 {
			t.Errorf("%s: stats %+v", k, st)
		}
	}
}

// TestInstances: two sites of one platform with different instance names
// have separate counts and faults.
func TestInstances(t *testing.T) {
	admin, a, b := testproc.FreePort(t), testproc.FreePort(t), testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin localhost:%d
	auto_https off
	persist_config off
}
http://:%d {
	bind 127.0.0.1
	besluitbron_emulator oa {
		instance one
	}
}
http://:%d {
	bind 127.0.0.1
	besluitbron_emulator oa {
		instance two
	}
}
`, admin, a, b))
	one, ok1 := Instrumented("oa", DefaultSeed, "one")
	two, ok2 := Instrumented("oa", DefaultSeed, "two")
	if !ok1 || !ok2 || one == two {
		t.Fatalf("instances: %v %v", ok1, ok2)
	}
	if _, err := one.AddFault(fault.Fault{Status: 502}); err != nil {
		t.Fatal(err)
	}
	if r := getJSON(t, fmt.Sprintf("http://127.0.0.1:%d/api/v1/bodies?government_type=provincie", a), nil); r.StatusCode != 502 {
		t.Errorf("instance one: %d", r.StatusCode)
	}
	if r := getJSON(t, fmt.Sprintf("http://127.0.0.1:%d/api/v1/bodies?government_type=provincie", b), nil); r.StatusCode != 200 {
		t.Errorf("instance two: %d", r.StatusCode)
	}
	if one.Total() != 1 || two.Total() != 1 {
		t.Errorf("counts %d %d", one.Total(), two.Total())
	}
}
