package obv_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/platforms/obv"
	"github.com/besluitbron/besluitbron/platforms/obv/emulator"
)

// surfaceEnv sends a surface's requests to the emulator, logged.
func surfaceEnv(t *testing.T, log *[]string) adapters.Env {
	t.Helper()
	h := emulator.New(emulator.Config{Seed: 1, Clock: fakeclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)), NoRateLimit: true})
	return adapters.Env{Get: func(_ context.Context, _ string, r adapters.Request) ([]byte, error) {
		*log = append(*log, r.Path)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(r.Method, "http://obv.test"+r.Path, nil))
		if rec.Code != http.StatusOK {
			return nil, fmt.Errorf("HTTP %d", rec.Code)
		}
		return rec.Body.Bytes(), nil
	}, Memo: &adapters.Memo{}}
}

// motions are the ids of an organisation's motions in the emulator.
func motions(t *testing.T, env adapters.Env, org string) []string {
	t.Helper()
	r, err := obv.SearchRequest(obv.SearchParams{Organization: org, EntityType: "Motion", Sort: "date_desc", Limit: 6})
	if err != nil {
		t.Fatal(err)
	}
	body, err := env.Get(context.Background(), "obv", r)
	if err != nil {
		t.Fatal(err)
	}
	p, err := obv.ParseSearch(body)
	if err != nil || len(p.Hits) == 0 {
		t.Fatalf("motions of %s: %v", org, err)
	}
	var out []string
	for _, h := range p.Hits {
		out = append(out, h.ID)
	}
	return out
}

// The surface's votes of a motion: one detail request (the one its fetch
// sends), parsed as obv_votes parses it. An iBabs council's motion has a
// bar per group whose counts add up to the totals and to the published
// tally; a Notubiz council's has no bars and says that no per-member
// votes are published, with the tally as published. An entity that is
// no motion asks nothing.
func TestSurfaceVotesThroughEmulator(t *testing.T) {
	s := obv.Surface()
	ctx := context.Background()
	var log []string
	env := surfaceEnv(t, &log)

	var perMember bool
	for _, id := range motions(t, env, "houten") {
		log = nil
		charts, err := s.Votes(ctx, env, id, "Motion")
		if err != nil || len(charts) != 1 {
			t.Fatalf("votes of %s: %v %v", id, err, charts)
		}
		fetchReq, _ := obv.EntityRequest(id)
		if len(log) != 1 || log[0] != fetchReq.Path {
			t.Fatalf("requests %v, want the fetch's %s", log, fetchReq.Path)
		}
		c := charts[0]
		if c.NotVoted || len(c.Bars) == 0 {
			continue
		}
		perMember = true
		if c.Unit != adapters.VoteUnitMembers || c.NoPartyVotes || c.Totals == nil || c.Title == "" || len(c.Problems) != 0 {
			t.Fatalf("chart %+v", c)
		}
		if got := adapters.CountBars(c.Bars); *got != *c.Totals {
			t.Fatalf("bars %+v, totals %+v", *got, *c.Totals)
		}
		if c.Tally == nil || c.Tally.Voor == nil || *c.Tally.Voor != c.Totals.Voor || c.Tally.Tegen == nil || *c.Tally.Tegen != c.Totals.Tegen {
			t.Fatalf("tally %+v, totals %+v", c.Tally, *c.Totals)
		}
	}
	if !perMember {
		t.Fatal("no houten motion with per-member votes")
	}

	var none bool
	for _, id := range motions(t, env, "soest") {
		charts, err := s.Votes(ctx, env, id, "Motion")
		if err != nil || len(charts) != 1 {
			t.Fatalf("votes of %s: %v %v", id, err, charts)
		}
		c := charts[0]
		if c.NotVoted {
			continue
		}
		none = true
		if !c.NoPartyVotes || len(c.Bars) != 0 || c.Totals != nil {
			t.Fatalf("notubiz chart %+v", c)
		}
	}
	if !none {
		t.Fatal("no soest motion put to the vote")
	}

	log = nil
	if charts, err := s.Votes(ctx, env, "document:notubiz:gemeente:soest:12345", "Document"); err != nil || charts != nil || len(log) != 0 {
		t.Fatalf("a document's votes: %v %v, asked %v", charts, err, log)
	}
	if charts, err := s.Votes(ctx, env, motions(t, env, "houten")[0], ""); err != nil || charts != nil || len(log) != 1 {
		t.Fatalf("votes of no entity read: %v %v, asked %v", charts, err, log)
	}
	log = nil
	var bad *adapters.InvalidError
	if _, err := s.Votes(ctx, env, "motion:x", "Motion"); !errors.As(err, &bad) || len(log) != 0 {
		t.Fatalf("a bad motion id: %v, asked %v", err, log)
	}
}
