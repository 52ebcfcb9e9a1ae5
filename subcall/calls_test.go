package subcall

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

// TestCallsGet: Calls turns each outcome of a Doer into what the platform
// packages take (a body, a RouteError, an UnreachedError) and keeps the
// answers: the 2xx ones in order, and the refusal.
func TestCallsGet(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	ok1 := &Answer{Status: 200, Body: []byte("one"), Header: http.Header{}, QueueWaitMS: 3}
	ok2 := &Answer{Status: 203, Body: []byte("two"), Header: http.Header{}}
	// Retry-After as a date: 90 s from the clock's now, not the machine's.
	refused := &Answer{Status: 429, Header: http.Header{"Retry-After": {at.Add(90 * time.Second).Format(http.TimeFormat)}}}
	gone := errors.New("connection refused")
	ownRefusal := &adapters.RouteError{Platform: "obv", Status: 503, Kind: adapters.KindUnavailable}
	answers := map[string]func() (*Answer, error){
		"ok1":     func() (*Answer, error) { return ok1, nil },
		"ok2":     func() (*Answer, error) { return ok2, nil },
		"refused": func() (*Answer, error) { return refused, nil },
		"gone":    func() (*Answer, error) { return nil, gone },
		"nil":     func() (*Answer, error) { return nil, nil },
		"own":     func() (*Answer, error) { return nil, ownRefusal },
	}
	c := &Calls{Clock: fakeclock.New(at), Do: func(_ context.Context, platform string, req adapters.Request) (*Answer, error) {
		if platform != "obv" {
			t.Errorf("platform %q, want obv", platform)
		}
		return answers[req.Path]()
	}}
	get := func(path string) ([]byte, error) {
		return c.Get(context.Background(), "obv", adapters.Request{Path: path})
	}

	if body, err := get("ok1"); err != nil || string(body) != "one" {
		t.Fatalf("a 2xx answer: %q, %v", body, err)
	}
	var re *adapters.RouteError
	if _, err := get("refused"); !errors.As(err, &re) || re.Kind != adapters.KindRateLimited || !re.RetryKnown || re.RetryAfter != 90 {
		t.Fatalf("a 429 with Retry-After in 90 s by the clock: %#v", err)
	}
	var un *adapters.UnreachedError
	if _, err := get("gone"); !errors.As(err, &un) || !errors.Is(err, gone) {
		t.Fatalf("no answer: %#v, want an UnreachedError around the Doer's error", err)
	}
	if _, err := get("nil"); !errors.As(err, &un) {
		t.Fatalf("a Doer that returned nothing: %#v, want an UnreachedError", err)
	}
	if _, err := get("own"); err != ownRefusal {
		t.Fatalf("a Doer's own RouteError: %#v, want it as it is", err)
	}
	if body, err := get("ok2"); err != nil || string(body) != "two" {
		t.Fatalf("a 203 answer: %q, %v", body, err)
	}
	if as := c.Answers(); len(as) != 2 || as[0] != ok1 || as[1] != ok2 {
		t.Fatalf("answers %v, want the two 2xx ones in order", as)
	}
	if c.Refused() != refused {
		t.Fatalf("refused %v, want the 429", c.Refused())
	}
}

// TestCallsWithoutDoer: the zero Calls has no way to send a request and
// says so instead of reaching anything.
func TestCallsWithoutDoer(t *testing.T) {
	var c Calls
	_, err := c.Get(context.Background(), "obv", adapters.Request{Path: "/api/sources"})
	var un *adapters.UnreachedError
	if !errors.As(err, &un) || len(c.Answers()) != 0 {
		t.Fatalf("no doer: %v, want an UnreachedError and no answers", err)
	}
}
