package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/fixture"
)

// product answers the Rechtspraak probe with the real feed and switches
// ORI off, as BesluitBron's default configuration does.
func product(t *testing.T) *httptest.Server {
	feed := fixture.Read(t, "rechtspraak", "zoeken.atom.xml")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/platforms/rechtspraak/uitspraken/zoeken"):
			_, _ = w.Write(feed)
		case strings.HasPrefix(r.URL.Path, "/platforms/ori/"):
			http.Error(w, "switched off", http.StatusGone)
		default:
			http.Error(w, "no route", http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestCommand(t *testing.T) {
	srv := product(t)
	var out, errOut strings.Builder
	if code := run([]string{"-base", srv.URL, "-platforms", "rechtspraak, ori"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "rechtspraak: ok") || !strings.Contains(out.String(), "2 of 2 platforms passed") {
		t.Errorf("%s", out.String())
	}

	// A platform BesluitBron has no route for fails the run; -json and
	// -save work together.
	dir := t.TempDir()
	out.Reset()
	if code := run([]string{"-base", srv.URL, "-platforms", "rechtspraak,obv", "-json", "-save", dir}, &out, &errOut); code != 1 {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	var res []struct {
		Platform  string `json:"platform"`
		Reachable bool   `json:"reachable"`
		ShapeOK   bool   `json:"shape_ok"`
		Saved     string `json:"saved"`
	}
	if err := json.Unmarshal([]byte(out.String()), &res); err != nil || len(res) != 2 {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if res[0].Platform != "obv" || res[0].Reachable || res[1].Platform != "rechtspraak" || !res[1].ShapeOK || filepath.Dir(res[1].Saved) != filepath.Join(dir, "rechtspraak") {
		t.Errorf("%+v", res)
	}
	if b, err := os.ReadFile(res[1].Saved); err != nil || string(b) != string(fixture.Read(t, "rechtspraak", "zoeken.atom.xml")) {
		t.Errorf("saved answer: %v", err)
	}

	for _, bad := range [][]string{{"-platforms", "ibis"}, {"-nope"}, {"extra"}, {"-base", srv.URL, "-id", "ob=../x"}, {"-option", "tk_nosuch=1"}, {"-id", "nosuch=1"}} {
		errOut.Reset()
		if code := run(bad, &out, &errOut); code != 2 || errOut.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", bad, code, errOut.String())
		}
	}
}
