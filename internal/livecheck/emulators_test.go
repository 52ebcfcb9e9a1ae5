package livecheck

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/emulators"
	"github.com/besluitbron/besluitbron/emulators/fault"

	_ "github.com/besluitbron/besluitbron/emulators/standard"
)

// emulatorProduct serves the offline emulators behind /platforms/<key>/
// routes as BesluitBron lays them out (the prefix stripped, as handle_path
// does), with ORI switched off (410) as in the default configuration. The
// check speaks HTTP to whatever is at the base, so plain handlers stand
// in for the Caddy routes: this package's tests link without Caddy.
func emulatorProduct(t *testing.T) string {
	mux := http.NewServeMux()
	for _, k := range Platforms() {
		if k == "ori" {
			continue
		}
		newFn, ok := emulators.Lookup(k)
		if !ok {
			t.Fatalf("no emulator for %s", k)
		}
		prefix := "/platforms/" + k
		mux.Handle(prefix+"/", http.StripPrefix(prefix, fault.Wrap(newFn(1))))
	}
	mux.HandleFunc("/platforms/ori/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusGone)
		io.WriteString(w, `{"error":"ORI was switched off on 2026-11-01"}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// With its defaults, as an operator runs it, the check passes every
// platform of the offline house (the OB emulator holds the default
// probe's publication, the real sample's record).
func TestAgainstEmulators(t *testing.T) {
	base := emulatorProduct(t)
	o := Options{Base: base, Client: &http.Client{Timeout: 30 * time.Second}}
	results, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(Platforms()) {
		t.Fatalf("%d results", len(results))
	}
	got := map[string]Result{}
	for _, r := range results {
		got[r.Platform] = r
	}
	for _, k := range []string{"obv", "tk", "opentk", "ob", "rechtspraak", "bwb", "cvdr"} {
		r := got[k]
		if !r.Reachable || r.Status != 200 || !r.ShapeChecked || !r.ShapeOK || !r.OK() {
			t.Errorf("%s: %+v", k, r)
		}
	}
	// What the emulator tests hold in both directions shows no new field
	// here either: the same shape functions and samples.
	for _, k := range []string{"obv", "rechtspraak", "bwb", "cvdr"} {
		if len(got[k].New) != 0 {
			t.Errorf("%s: fields the samples lack: %q", k, got[k].New)
		}
	}
	if r := got["oa"]; !r.Reachable || r.ShapeChecked || !r.OK() || !strings.Contains(r.Basis, "API assumed") {
		t.Errorf("oa: %+v", r)
	}
	if r := got["ori"]; !r.Off || r.Reachable || !r.OK() || !strings.Contains(r.Error, "410") {
		t.Errorf("ori: %+v", r)
	}
	// OpenBesluitvorming's emulator sends the platform's RateLimit-* headers.
	if rl := got["obv"].RateLimit; rl["Ratelimit-Limit"] != "60" || rl["Ratelimit-Remaining"] == "" || rl["Ratelimit-Reset"] == "" {
		t.Errorf("obv rate-limit headers: %v", rl)
	}
	if len(got["rechtspraak"].RateLimit) != 0 {
		t.Errorf("rechtspraak rate-limit headers: %v", got["rechtspraak"].RateLimit)
	}

	var sb strings.Builder
	if failed := WriteText(&sb, results); failed != 0 {
		t.Errorf("%d failed:\n%s", failed, sb.String())
	}
	for _, want := range []string{"obv: ok", "ori: off", "not checked: no sample and no documented shape (API assumed", "shape:      as expected (checked against real sample)", "Ratelimit-Limit: 60", "9 of 9 platforms passed"} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, sb.String())
		}
	}

	// -save: each answer becomes a fixture the samples' own readers accept,
	// with its origin noted; a second save at the same time overwrites
	// nothing.
	dir := t.TempDir()
	now := time.Date(2026, 12, 1, 1, 2, 3, 0, time.UTC)
	if err := Save(dir, results, now); err != nil {
		t.Fatal(err)
	}
	saved := 0
	for _, r := range results {
		if r.Saved == "" {
			continue
		}
		saved++
		b, err := os.ReadFile(r.Saved)
		if err != nil || len(b) == 0 {
			t.Fatalf("%s: %v", r.Saved, err)
		}
		if filepath.Dir(r.Saved) != filepath.Join(dir, r.Platform) || !strings.Contains(r.Saved, ".live-20261201T010203Z.") {
			t.Errorf("saved as %s", r.Saved)
		}
		origin, _ := os.ReadFile(filepath.Join(dir, r.Platform, "ORIGIN.md"))
		if !strings.Contains(string(origin), filepath.Base(r.Saved)) || !strings.Contains(string(origin), "/platforms/"+r.Platform+"/") {
			t.Errorf("%s: origin %q", r.Platform, origin)
		}
	}
	if saved != 8 { // all but ORI, which is off
		t.Errorf("%d answers saved", saved)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "obv", "search.live-20261201T010203Z.json"))
	if err := Save(dir, results, now); err == nil || !strings.Contains(err.Error(), "not overwritten") {
		t.Errorf("second save: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "obv", "search.live-20261201T010203Z.json")); string(after) != string(before) {
		t.Error("a saved fixture was overwritten")
	}
}

// A publication the platform does not hold is reported as not found, with
// the flag that picks another, never as a shape not as expected.
func TestAbsentRecordIsNotFound(t *testing.T) {
	base := emulatorProduct(t)
	o := Options{Base: base, Client: &http.Client{Timeout: 30 * time.Second}, Platforms: []string{"ob"},
		Config: Config{IDs: map[string]string{"ob": "gmb-2023-999999999"}}}
	results, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	r := results[0]
	if r.OK() || !r.Reachable || r.ShapeChecked || len(r.Missing) != 0 ||
		!strings.Contains(r.Error, "not found") || !strings.Contains(r.Error, "-id ob=") {
		t.Fatalf("%+v", r)
	}
	var sb strings.Builder
	if failed := WriteText(&sb, results); failed != 1 || strings.Contains(sb.String(), "NOT as expected") {
		t.Errorf("%d failed:\n%s", failed, sb.String())
	}
}
