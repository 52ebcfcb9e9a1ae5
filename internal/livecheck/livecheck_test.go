package livecheck

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fixture"
	"github.com/besluitbron/besluitbron/platforms"
)

// Every probe's samples exist and are what the emulator tests read.
func TestProbesHaveTheirSamples(t *testing.T) {
	ps, err := Probes(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != len(Platforms()) {
		t.Fatalf("%d probes for %d platforms", len(ps), len(Platforms()))
	}
	for i, p := range ps {
		if p.Platform != Platforms()[i] || p.Request.Path == "" || p.Request.Path[0] != '/' || p.Ext == "" {
			t.Errorf("probe %+v", p)
		}
		for _, s := range p.Samples {
			fixture.Read(t, p.Platform, s.File)
		}
		if len(p.Samples) == 0 && p.DocSource == "" {
			t.Errorf("%s: no sample and no named source", p.Platform)
		}
	}
	path := func(ps []Probe, platform string) string {
		for _, p := range ps {
			if p.Platform == platform {
				return p.Request.Path
			}
		}
		return ""
	}
	if tk, ob := path(ps, "tk"), path(ps, "ob"); tk != "/OData/v5/Fractie?%24top=1" || !strings.Contains(ob, "gmb-2023-174296") {
		t.Errorf("defaults: %s %s", tk, ob)
	}
	if ps, _ := Probes(Config{Options: map[string]platforms.Options{"tk": {"odata_root": {"/OData/v4/2.0"}}}, IDs: map[string]string{"ob": "stb-2018-84"}}); path(ps, "tk") != "/OData/v4/2.0/Fractie?%24top=1" || !strings.Contains(path(ps, "ob"), "stb-2018-84") {
		t.Errorf("config: %s %s", path(ps, "tk"), path(ps, "ob"))
	}
	if _, err := Probes(Config{IDs: map[string]string{"ob": "../etc"}}); err == nil {
		t.Error("a junk OB identifier accepted")
	}
}

// hostileProduct stands in for a BesluitBron whose platforms answer badly:
// HTML, errors, invented and missing fields, a body far too large, a
// dropped connection. It records the requests it got.
type hostileProduct struct {
	obRecord string // the real search record
	mu       sync.Mutex
	reqs     map[string]*http.Request
}

func newHostile(t *testing.T) *hostileProduct {
	return &hostileProduct{obRecord: string(fixture.Read(t, "ob", "sru-record-gmb.fragment.xml")), reqs: map[string]*http.Request{}}
}

var testTime = time.Date(2026, 12, 1, 1, 2, 3, 0, time.UTC)

func (h *hostileProduct) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := strings.Split(strings.TrimPrefix(r.URL.Path, "/platforms/"), "/")[0]
	h.mu.Lock()
	h.reqs[key] = r.Clone(context.Background())
	h.mu.Unlock()
	switch key {
	case "obv": // a login page instead of the API
		w.Header().Set("RateLimit-Limit", "60")
		_, _ = w.Write([]byte("<html><body>Inloggen</body></html>"))
	case "tk":
		http.Error(w, "upstream unavailable", http.StatusBadGateway)
	case "opentk": // invents "titel", lacks "milliseconds"
		w.Header().Set("Retry-After", "3")
		_, _ = w.Write([]byte(`{"results":[{"nummer":"2023D41173","datum":"2023-10-12T00:00:00","score":-7.5,"category":"Document","onderwerp":"o","snip":"s","relurl":"get/2023D41173","bijgewerkt":"2023-10-12T10:00:00Z","persoonnummer":-1,"titel":"t"}]}`))
	case "ob": // the real record in a namespaced envelope: as expected
		_, _ = w.Write([]byte(`<?xml version="1.0"?><sru:searchRetrieveResponse xmlns:sru="http://docs.oasis-open.org/ns/search-ws/sruResponse"><sru:numberOfRecords>1</sru:numberOfRecords><sru:records>` + h.obRecord + `</sru:records></sru:searchRetrieveResponse>`))
	case "rechtspraak": // far more than a one-row answer
		_, _ = w.Write([]byte("<feed>"))
		_, _ = w.Write(bytes.Repeat([]byte("<entry><id>x</id></entry>"), MaxBody/20))
	case "ori":
		w.WriteHeader(http.StatusGone)
		_, _ = w.Write([]byte(`{"error":"ORI was switched off"}`))
	case "bwb": // a manifest cut off mid-element
		_, _ = w.Write([]byte(`<?xml version="1.0" encoding="utf-8"?><work label="BWBR0008326"><metadata><datum_inwerk`))
	case "cvdr": // the regulation is gone
		http.NotFound(w, r)
	case "oa": // the connection drops mid-answer
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_, _ = conn.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{\"to"))
			conn.Close()
		}
	default:
		http.NotFound(w, r)
	}
}

func TestHostileAnswers(t *testing.T) {
	h := newHostile(t)
	srv := httptest.NewServer(h)
	defer srv.Close()
	results, err := Run(context.Background(), Options{Base: srv.URL + "/", UserAgent: "lc-test"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Result{}
	for _, r := range results {
		got[r.Platform] = r
	}
	if r := got["obv"]; !r.Reachable || !r.ShapeChecked || r.ShapeOK || r.OK() || len(r.Missing) != 1 || !strings.Contains(r.Missing[0], "answer is XML") || r.RateLimit["Ratelimit-Limit"] != "60" {
		t.Errorf("obv (HTML): %+v", r)
	}
	if r := got["tk"]; r.Reachable || r.OK() || r.Status != 502 || !strings.Contains(r.Error, "answered 502: upstream unavailable") {
		t.Errorf("tk (502): %+v", r)
	}
	if r := got["opentk"]; !r.Reachable || r.ShapeOK || strings.Join(r.Missing, "|") != "milliseconds: missing (want number)" ||
		strings.Join(r.New, "|") != "results[].titel: not in the sample (extra string)" || r.RateLimit["Retry-After"] != "3" {
		t.Errorf("opentk (invented/missing): %+v", r)
	}
	if r := got["ob"]; !r.OK() || !r.ShapeOK || len(r.New) != 0 {
		t.Errorf("ob (the real record): %+v", r)
	}
	if r := got["rechtspraak"]; !r.Reachable || !r.Truncated || r.ShapeChecked || r.OK() || len(r.body) != MaxBody {
		t.Errorf("rechtspraak (too large): reachable=%v truncated=%v checked=%v body=%d", r.Reachable, r.Truncated, r.ShapeChecked, len(r.body))
	}
	if r := got["ori"]; !r.Off || !r.OK() {
		t.Errorf("ori (410): %+v", r)
	}
	if r := got["bwb"]; !r.Reachable || !r.ShapeChecked || r.ShapeOK || r.OK() {
		t.Errorf("bwb (broken XML): %+v", r)
	}
	if r := got["cvdr"]; r.Reachable || r.OK() || r.Status != 404 {
		t.Errorf("cvdr (404): %+v", r)
	}
	if r := got["oa"]; r.OK() || !strings.Contains(r.Error, "reading the answer") {
		t.Errorf("oa (dropped): %+v", r)
	}
	var sb strings.Builder
	if failed := WriteText(&sb, results); failed != 7 || !strings.Contains(sb.String(), "2 of 9 platforms passed") ||
		!strings.Contains(sb.String(), "NOT as expected") || !strings.Contains(sb.String(), "no rate-limit headers seen") {
		t.Errorf("%d failed:\n%s", failed, sb.String())
	}

	// What the probes sent: past the cache, named, the platform's route,
	// the adapters' method and content type.
	for k, r := range h.reqs {
		if r.Header.Get("Cache-Control") != "no-store" || r.Header.Get("User-Agent") != "lc-test" || !strings.HasPrefix(r.URL.Path, "/platforms/"+k+"/") {
			t.Errorf("%s: %s %s %v", k, r.Method, r.URL, r.Header)
		}
	}
	if r := h.reqs["opentk"]; r.Method != "POST" || !strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data; boundary=") {
		t.Errorf("opentk request: %s %s", r.Method, r.Header.Get("Content-Type"))
	}
	if len(h.reqs) != len(Platforms()) {
		t.Errorf("%d platforms called", len(h.reqs))
	}

	// Saving keeps only the usable answers.
	dir := t.TempDir()
	if err := Save(dir, results, testTime); err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if (r.Saved != "") != (r.Platform == "obv" || r.Platform == "opentk" || r.Platform == "ob" || r.Platform == "bwb") {
			t.Errorf("%s saved as %q", r.Platform, r.Saved)
		}
	}
}

func TestRunOptions(t *testing.T) {
	h := newHostile(t)
	srv := httptest.NewServer(h)
	defer srv.Close()
	results, err := Run(context.Background(), Options{Base: srv.URL, Platforms: []string{"ori", "ob"}})
	if err != nil || len(results) != 2 || results[0].Platform != "ori" || results[1].Platform != "ob" || len(h.reqs) != 2 {
		t.Fatalf("%+v %v", results, err)
	}
	for _, bad := range []Options{
		{Base: srv.URL, Platforms: []string{"openraad"}},
		{},
		{Base: srv.URL, FixtureDir: t.TempDir()},
	} {
		if _, err := Run(context.Background(), bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if _, err := Run(context.Background(), Options{Base: srv.URL, FixtureDir: t.TempDir(), Platforms: []string{"oa"}}); err != nil {
		t.Errorf("a platform without samples needs no fixtures: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rs, err := Run(ctx, Options{Base: srv.URL, Platforms: []string{"obv"}})
	if err != nil || rs[0].Reachable || !strings.Contains(rs[0].Error, "context canceled") {
		t.Errorf("cancelled: %+v %v", rs, err)
	}
}
