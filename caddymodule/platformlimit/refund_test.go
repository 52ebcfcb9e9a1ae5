package platformlimit

import (
	"context"
	"errors"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// Refunds of calls that got no answer from the platform. The next handler
// here plays platform_proxy's part on the wire: it sets
// {http.platform_proxy.sent} as platform_proxy does and fails or answers;
// caddy_refund_test.go runs the real platform_proxy through Caddy.

// proxyOutcome is a next handler that reports sent attempts (negative:
// it does not say, as a handler other than platform_proxy), writes status
// (0: nothing) and returns err.
func proxyOutcome(sent int64, status int, err error) caddyhttp.Handler {
	return caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		if sent >= 0 {
			r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer).Set(sentPlaceholder, sent)
		}
		if status != 0 {
			w.WriteHeader(status)
			w.Write([]byte("answer"))
		}
		return err
	})
}

var (
	errDead    = caddyhttp.Error(http.StatusBadGateway, syscall.ETIMEDOUT)    // a pooled connection found dead
	errReset   = caddyhttp.Error(http.StatusBadGateway, syscall.ECONNRESET)   // reset before any answer
	errRefused = caddyhttp.Error(http.StatusBadGateway, syscall.ECONNREFUSED) // the dial failed
	errBroken  = errors.New("reading the answer: unexpected EOF")             // mid-body, after the status
)

func TestRefundWhenNoAnswer(t *testing.T) {
	clk := fakeclock.New(t0)
	cases := []struct {
		name     string
		next     caddyhttp.Handler
		refunded bool
	}{
		{"dead connection after the request was sent", proxyOutcome(1, 0, errDead), true},
		{"reset after the request was sent", proxyOutcome(1, 0, errReset), true},
		{"dial refused: nothing sent", proxyOutcome(0, 0, errRefused), true},
		{"the proxy answered itself (no place): nothing sent", proxyOutcome(0, http.StatusServiceUnavailable, nil), true},
		{"another proxy handler (sent unknown), transport error", proxyOutcome(-1, 0, errRefused), true},

		{"platform answered 200", proxyOutcome(1, http.StatusOK, nil), false},
		{"platform answered 500", proxyOutcome(1, http.StatusInternalServerError, nil), false},
		{"platform answered 502", proxyOutcome(1, http.StatusBadGateway, nil), false},
		{"platform answered 503, sent unknown", proxyOutcome(-1, http.StatusServiceUnavailable, nil), false},
		{"platform's answer broke off mid-body", proxyOutcome(1, http.StatusOK, errBroken), false},
		{"resend counted once, then an answer", proxyOutcome(2, http.StatusOK, nil), false},
	}
	for i, c := range cases {
		h := provision(t, clk, &Handler{Platform: "test-refund-" + string(rune('a'+i)), Capacity: 10, Window: caddy.Duration(10 * time.Minute)})
		r, w := request("/x", "Besluitbron-Session", "s")
		err := h.ServeHTTP(w, r, c.next)
		st := h.budget.Stats()
		used := h.budget.Used("addr:192.0.2.1")
		if c.refunded {
			if st.Refunded != 1 || st.UnitsRefunded != 1 || st.UnitsSpent != 0 || st.Available != 10 || used != 0 || st.Admitted != 1 {
				t.Errorf("%s: want refunded; stats %+v, client used %v", c.name, st, used)
			}
		} else if st.Refunded != 0 || st.UnitsSpent != 1 || st.Available != 9 || used != 1 {
			t.Errorf("%s: want kept; stats %+v, client used %v", c.name, st, used)
		}
		// The handler passes the proxy's error on untouched.
		var he caddyhttp.HandlerError
		if err != nil && !errors.As(err, &he) && !errors.Is(err, errBroken) {
			t.Errorf("%s: error %v changed", c.name, err)
		}
	}
}

// A {http.platform_proxy.sent} left from before this call (another route
// of the same request) never decides this call's refund.
func TestRefundIgnoresStaleSentPlaceholder(t *testing.T) {
	clk := fakeclock.New(t0)
	h := provision(t, clk, &Handler{Platform: "test-refund-stale", Capacity: 10, Window: caddy.Duration(time.Minute)})
	r, w := request("/x")
	r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer).Set(sentPlaceholder, int64(0))
	if err := h.ServeHTTP(w, r, upstream(http.StatusOK)); err != nil {
		t.Fatal(err)
	}
	if st := h.budget.Stats(); st.Refunded != 0 || st.UnitsSpent != 1 {
		t.Fatalf("a stale sent=0 refunded an answered call: %+v", st)
	}
}

// hangUpDuring runs one call whose caller hangs up while the next handler
// holds it; the next handler then records the hang-up as Caddy's
// reverse_proxy does (a 499 status, no error) and reports sent attempts
// (negative: it does not say), as platform_proxy does.
func hangUpDuring(t *testing.T, h *Handler, sent int64) error {
	t.Helper()
	r, w := request("/x")
	ctx, cancel := context.WithCancel(r.Context())
	r = r.WithContext(ctx)
	holding := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- h.ServeHTTP(w, r, caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
			close(holding)
			<-r.Context().Done()
			if sent >= 0 {
				r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer).Set(sentPlaceholder, sent)
			}
			w.WriteHeader(statusClientClosed)
			return nil
		}))
	}()
	<-holding
	cancel()
	return <-done
}

// A caller that hangs up while its request is on the way, before anything
// of it left (a dial, a wait for a place on a host), gets its units back.
func TestRefundOnHangUpBeforeSent(t *testing.T) {
	clk := fakeclock.New(t0)
	h := provision(t, clk, &Handler{Platform: "test-refund-hangup", Capacity: 10, Window: caddy.Duration(time.Minute)})
	if err := hangUpDuring(t, h, 0); err != nil {
		t.Fatalf("hang-up: %v", err)
	}
	if st := h.budget.Stats(); st.Refunded != 1 || st.UnitsSpent != 0 || st.Available != 10 {
		t.Fatalf("stats %+v; want the hang-up before sending refunded", st)
	}
}

// Hostile: a client that hangs up on every request once it reached the
// platform (the platform serves and counts each) gets nothing back, so it
// cannot send the platform more than the budget: after capacity such
// calls, its next one waits for the refill.
func TestHangUpAfterSentIsNotRefunded(t *testing.T) {
	clk := fakeclock.New(t0)
	h := provision(t, clk, &Handler{Platform: "test-refund-hostile", Capacity: 5, Window: caddy.Duration(time.Minute)})
	for range 5 {
		hangUpDuring(t, h, 1)
	}
	if st := h.budget.Stats(); st.Refunded != 0 || st.UnitsSpent != 5 || st.Available != 0 {
		t.Fatalf("stats %+v; want the 5 hung-up calls kept", st)
	}
	// Nor when it is not known whether the request left (another proxy).
	h2 := provision(t, clk, &Handler{Platform: "test-refund-hostile2", Capacity: 5, Window: caddy.Duration(time.Minute)})
	if err := hangUpDuring(t, h2, -1); err != nil {
		t.Fatal(err)
	}
	if st := h2.budget.Stats(); st.Refunded != 0 || st.UnitsSpent != 1 {
		t.Fatalf("stats %+v; a hang-up with unknown sending refunded", st)
	}

	r, w := request("/x")
	done := make(chan error, 1)
	go func() { done <- h.ServeHTTP(w, r, upstream(http.StatusOK)) }()
	for h.budget.Stats().Waiting != 1 {
		time.Sleep(time.Millisecond) // waiting for the goroutine to queue, not for time to pass
	}
	clk.Advance(12 * time.Second) // one unit's refill
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := w.Header().Get("Besluitbron-Queue-Wait"); got != "12000" {
		t.Fatalf("the sixth call waited %q ms; want 12000 (one unit's refill)", got)
	}
}
