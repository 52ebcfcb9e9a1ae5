package site_test

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"testing"
)

// An operator pauses and resumes a replica's harvest through the admin
// API; the answer is the replica's state, and the pause shows in it.
func TestReplicaPauseAndResume(t *testing.T) {
	h := loadCaseLawHouse(t, filepath.Join(t.TempDir(), "caselaw"), "2026")
	call := func(method, path string) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(method, h.admin+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		var out map[string]any
		_ = json.Unmarshal(body, &out)
		return res.StatusCode, out
	}
	if code, st := call("POST", "/besluitbron/replica/rechtspraak/pause"); code != 200 || st["paused"] != true || st["enabled"] != true {
		t.Fatalf("pause: %d %v", code, st)
	}
	if code, st := call("GET", "/besluitbron/replica/rechtspraak"); code != 200 || st["paused"] != true {
		t.Fatalf("after pause: %d %v", code, st)
	}
	if code, st := call("POST", "/besluitbron/replica/rechtspraak/resume"); code != 200 || st["paused"] != nil {
		t.Fatalf("resume: %d %v", code, st)
	}
	for path, want := range map[string]int{
		"/besluitbron/replica/rechtspraak/stop": http.StatusNotFound, // no such action
		"/besluitbron/replica/tk/pause":         http.StatusNotFound, // keeps no replica
		"/besluitbron/replica/nergens/pause":    http.StatusNotFound, // no platform
	} {
		if code, _ := call("POST", path); code != want {
			t.Errorf("POST %s: %d, want %d", path, code, want)
		}
	}
	if code, _ := call("GET", "/besluitbron/replica/rechtspraak/pause"); code != http.StatusMethodNotAllowed {
		t.Errorf("GET pause: %d, want 405", code)
	}
}
