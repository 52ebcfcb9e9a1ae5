package clientlimit

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

// issue adds n session ids to the registry for one test.
func issue(t *testing.T, reg *session.Registry, prefix string, n int) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s-%d", prefix, i)
		reg.Add(ids[i], "test")
	}
	t.Cleanup(func() {
		for _, id := range ids {
			reg.Remove(id, "test")
		}
	})
	return ids
}

// One address opening many sessions gets one address's rate, not the
// connector's; an honest session from another address is unaffected, and
// a session alone still gets its own session's rate.
func TestManySessionsFromOneAddress(t *testing.T) {
	for _, n := range []int{15, 50} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			clock := fakeclock.New(t0)
			ctx, _ := newConfig(t)
			zone := "t-many-" + strconv.Itoa(n)
			// The default ratios: session 20/s 60, address 50/s 150,
			// connector 300/s 600 (15 sessions' worth).
			h := provisionOn(t, ctx, clock, &Handler{Zone: zone, Process: off})
			flood := issue(t, h.sessions, zone+"-flood", n)
			honest := issue(t, h.sessions, zone+"-honest", 1)[0]
			alone := issue(t, h.sessions, zone+"-alone", 1)[0]

			passed, honestPassed, honestSent := 0, 0, 0
			var refusal *http.Response
			// 10 s: every session of the flooder sends every 10 ms (100/s
			// each); the honest session sends 20/s, its session's rate.
			for ms := 0; ms < 10_000; ms += 10 {
				clock.AdvanceTo(t0.Add(time.Duration(ms) * time.Millisecond))
				for _, id := range flood {
					w, _ := serve(h, req("203.0.113.9", session.MCPHeader, id))
					if w.Code == 200 {
						passed++
					} else if refusal == nil {
						refusal = w.Result()
					}
				}
				if ms%50 == 0 {
					honestSent++
					if w, _ := serve(h, req("203.0.113.10", session.MCPHeader, honest)); w.Code == 200 {
						honestPassed++
					}
				}
			}
			// The address's burst of 150, then 50/s for 10 s (the last
			// request at 9.99 s): 150 + 499 = 649; the connector would
			// have allowed 600 + 3000.
			if passed != 649 {
				t.Errorf("%d sessions from one address passed %d requests in 10 s, want the address's 649", n, passed)
			}
			if honestPassed != honestSent {
				t.Errorf("honest session from another address passed %d of %d", honestPassed, honestSent)
			}
			// The refusal names the address, and its Retry-After is true.
			if refusal == nil || refusal.StatusCode != 429 || refusal.Header.Get("Retry-After") != "1" {
				t.Fatalf("first refusal %+v, want 429 with Retry-After 1", refusal)
			}
			clock.AdvanceTo(t0.Add(20 * time.Second)) // every bucket full again
			for i := range 150 {                      // spend the address again
				serve(h, req("203.0.113.9", session.MCPHeader, flood[i%n]))
			}
			w, _ := serve(h, req("203.0.113.9", session.MCPHeader, flood[1]))
			var body rejection
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != 429 || body.Layer != "address" {
				t.Fatalf("%d %s, want 429 by the address layer", w.Code, w.Body)
			}
			ra, _ := strconv.Atoi(w.Header().Get("Retry-After"))
			clock.Advance(time.Duration(ra) * time.Second)
			if w, _ := serve(h, req("203.0.113.9", session.MCPHeader, flood[1])); w.Code != 200 {
				t.Fatalf("after Retry-After %d s: %d", ra, w.Code)
			}

			// A session alone, from its own address: its 60, then 20/s.
			clock.AdvanceTo(t0.Add(time.Minute))
			alonePassed := 0
			for ms := 0; ms < 10_000; ms += 10 {
				clock.AdvanceTo(t0.Add(time.Minute + time.Duration(ms)*time.Millisecond))
				if w, _ := serve(h, req("203.0.113.11", session.MCPHeader, alone)); w.Code == 200 {
					alonePassed++
				}
			}
			if alonePassed != 60+199 {
				t.Errorf("a session alone passed %d in 10 s, want its session's %d", alonePassed, 60+199)
			}
		})
	}
}

// From a trusted source (a hosted assistant's egress) each issued session
// is a client of its own; requests there without a session still share
// the address's bucket.
func TestTrustedSourceSessions(t *testing.T) {
	clock := fakeclock.New(t0)
	ctx, _ := newConfig(t)
	h := provisionOn(t, ctx, clock, &Handler{Zone: "t-trusted", Process: off, Connector: off,
		Session: lc("1/m", 2), Address: lc("1/m", 3), TrustedSources: []string{"192.0.2.0/24"}})
	ids := issue(t, h.sessions, "t-trusted", 10)
	passed := 0
	for _, id := range ids {
		for range 3 {
			if w, _ := serve(h, req("192.0.2.50", session.MCPHeader, id)); w.Code == 200 {
				passed++
			}
		}
	}
	if passed != 20 {
		t.Fatalf("10 sessions from a trusted source passed %d, want 2 each (20)", passed)
	}
	// Without a session, or with a made-up one, the address's 3.
	passed = 0
	for i := range 10 {
		if w, _ := serve(h, req("192.0.2.50", session.MCPHeader, "made-up-"+strconv.Itoa(i))); w.Code == 200 {
			passed++
		}
	}
	if passed != 3 {
		t.Fatalf("made-up ids from a trusted source passed %d, want the address's 3", passed)
	}
	// An untrusted address's sessions share its 3.
	passed = 0
	for _, id := range issue(t, h.sessions, "t-untrusted", 10) {
		if w, _ := serve(h, req("198.51.100.50", session.MCPHeader, id)); w.Code == 200 {
			passed++
		}
	}
	if passed != 3 {
		t.Fatalf("10 sessions from an untrusted address passed %d, want the address's 3", passed)
	}
}

// A flood of made-up Mcp-Session-Id values stores nothing per id: each
// counts as its address, so the zone holds one key per address (bounded
// by max_keys) and the session registry learns nothing.
func TestMadeUpIdFloodStaysBounded(t *testing.T) {
	clock := fakeclock.New(t0)
	ctx, _ := newConfig(t)
	h := provisionOn(t, ctx, clock, &Handler{Zone: "t-madeup", Process: off, Connector: off, Session: off, Address: lc("1/h", 5), MaxKeys: 640})
	issued := h.sessions.Len()
	for i := range 100_000 {
		clock.AdvanceTo(t0.Add(time.Duration(i) * time.Microsecond))
		serve(h, req("203.0.113.77", session.MCPHeader, "mcp-session-"+strconv.Itoa(i)))
	}
	if n := h.zone.zone.Keys().Len(); n != 1 {
		t.Fatalf("100,000 made-up ids from one address: %d keys held, want 1 (the address)", n)
	}
	if n := h.sessions.Len(); n != issued {
		t.Fatalf("session registry grew from %d to %d ids", issued, n)
	}
	// From 10,000 addresses (one made-up id each): at most max_keys.
	for i := range 10_000 {
		addr := fmt.Sprintf("10.%d.%d.1", i>>8, i&255)
		serve(h, req(addr, session.MCPHeader, "mcp-session-x"+strconv.Itoa(i)))
	}
	if n, capKeys := h.zone.zone.Keys().Len(), h.zone.zone.Keys().MaxKeys(); n > capKeys {
		t.Fatalf("%d keys held, max_keys %d", n, capKeys)
	}
}
