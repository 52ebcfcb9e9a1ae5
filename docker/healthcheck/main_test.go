package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestStatusURLFollowsTheCaddyfilesPort(t *testing.T) {
	for port, want := range map[string]string{
		"":     "http://127.0.0.1:8080/status.json",
		"9000": "http://127.0.0.1:9000/status.json",
	} {
		got, err := statusURL(port)
		if err != nil || got != want {
			t.Errorf("statusURL(%q) = %q, %v; want %q", port, got, err, want)
		}
	}
	for _, bad := range []string{"0", "65536", "80/../admin", "x", "-1"} {
		if _, err := statusURL(bad); err == nil || !strings.Contains(err.Error(), "BESLUITBRON_PORT") {
			t.Errorf("statusURL(%q) = %v, want an error naming BESLUITBRON_PORT", bad, err)
		}
	}
}

func TestCheckWantsA200(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/status.json" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"version":"x"}`))
	}))
	defer srv.Close()
	client := &http.Client{Timeout: timeout}
	if err := check(client, srv.URL+"/status.json"); err != nil {
		t.Fatalf("a 200: %v", err)
	}
	status = http.StatusServiceUnavailable
	if err := check(client, srv.URL+"/status.json"); err == nil || !strings.Contains(err.Error(), "503") {
		t.Fatalf("a 503: %v, want an error naming the status", err)
	}
}

func TestCheckFailsWhenNothingListens(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/status.json"
	srv.Close()
	if err := check(&http.Client{Timeout: timeout}, url); err == nil {
		t.Fatal("no server: no error")
	}
}

// A status page that never answers fails the check within the client's
// timeout rather than hanging the container runtime's health probe.
func TestCheckGivesUpOnAServerThatNeverAnswers(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
	}))
	defer srv.Close()
	defer close(release)
	err := check(&http.Client{Timeout: 50 * time.Millisecond}, srv.URL+"/status.json")
	if err == nil {
		t.Fatal("a server that never answers passed the check")
	}
}
