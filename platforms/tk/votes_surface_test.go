package tk

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
)

// emuEnv is a surface's Env whose calls go to the emulator, logged.
func emuEnv(log *[]string) adapters.Env {
	get := emuGetter(emuHandler, log)
	return adapters.Env{Get: func(_ context.Context, _ string, r adapters.Request) ([]byte, error) { return get(r) },
		Memo: &adapters.Memo{}, Now: emuNow}
}

// votedDocuments are the numbers of the emulator's motions (newest first).
func votedDocuments(t *testing.T, root string) []string {
	t.Helper()
	var log []string
	get := emuGetter(emuHandler, &log)
	body, err := get(adapters.Get(root+"/Document", url.Values{"$filter": {"Soort eq 'Motie' and Verwijderd eq false"},
		"$select": {"Id,Nummer"}, "$orderby": {"Datum desc,Id"}, "$top": {"40"}}))
	if err != nil {
		t.Fatal(err)
	}
	env, err := parseEnvelope(body)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parseRows(env.Value)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		var n string
		_ = json.Unmarshal(r["Nummer"], &n)
		out = append(out, n)
	}
	if len(out) == 0 {
		t.Fatal("the emulator has no motions")
	}
	return out
}

// The surface's votes of a motion, through the emulator with the
// requests of tk_votes: its zaken, then their decisions; each decision
// is a chart whose bars add up to its totals, one bar per fractie, with
// the Kamer's 150 seats as its size. A zaak number asks its decisions
// alone; a document of a kind not voted on asks nothing.
func TestSurfaceVotesThroughEmulator(t *testing.T) {
	s := Surface("")
	ctx := context.Background()
	var found bool
	for _, nummer := range votedDocuments(t, DefaultRoot) {
		var log []string
		charts, err := s.Votes(ctx, emuEnv(&log), nummer, "Motie")
		if err != nil {
			t.Fatalf("votes of %s: %v", nummer, err)
		}
		checkRequests(t, log)
		if len(charts) == 0 {
			continue
		}
		found = true
		if len(log) != 3 || !strings.HasSuffix(log[0], "/$metadata") || !strings.Contains(log[1], "/Zaak?") || !strings.Contains(log[2], "/Besluit?") {
			t.Fatalf("requests %v", log)
		}
		c := charts[0]
		if c.Unit != adapters.VoteUnitSeats || c.Size != KamerSeats || len(c.Bars) < 5 || c.Totals == nil || c.Date == "" ||
			!strings.Contains(c.Result, "Stemmen") || !strings.HasPrefix(c.Title, "Motie ") || c.SourceURL == "" || len(c.Problems) != 0 {
			t.Fatalf("chart %+v", c)
		}
		if got := adapters.CountBars(c.Bars); *got != *c.Totals {
			t.Fatalf("bars add up to %+v, totals %+v", *got, *c.Totals)
		}
		if c.Totals.Sum() != KamerSeats {
			t.Fatalf("the emulator's vote counts %d seats", c.Totals.Sum())
		}
		// By its zaak number: the decisions alone.
		zaak := strings.Fields(strings.TrimPrefix(c.Title, "Motie "))[0]
		zaak = strings.TrimSuffix(zaak, ":")
		log = nil
		byZaak, err := s.Votes(ctx, emuEnv(&log), zaak, "")
		if err != nil || len(byZaak) != len(charts) || byZaak[0].Title != c.Title {
			t.Fatalf("votes of zaak %s: %v %+v", zaak, err, byZaak)
		}
		if len(log) != 2 {
			t.Fatalf("requests for a zaak %v", log)
		}
		break
	}
	if !found {
		t.Fatal("no motion of the emulator was voted on")
	}
	var log []string
	if charts, err := s.Votes(ctx, emuEnv(&log), "2024D00001", "Brief regering"); err != nil || charts != nil || len(log) != 0 {
		t.Fatalf("a letter's votes: %v %v, asked %v", charts, err, log)
	}
	// No document (kind ""): only a zaak number is looked up.
	if charts, err := s.Votes(ctx, emuEnv(&log), "2024D00001", ""); err != nil || charts != nil || len(log) != 0 {
		t.Fatalf("votes of no document: %v %v, asked %v", charts, err, log)
	}
	var bad *adapters.InvalidError
	if _, err := s.Votes(ctx, emuEnv(&log), "../x", "Motie"); err == nil || !errors.As(err, &bad) {
		t.Fatalf("a bad id: %v", err)
	}
}

// A decision as a chart: a vote per fractie is the fractie's seats on its
// side; a vote per member keeps each fractie's members apart (not taking
// part under other, seats without a member row as not recorded); the
// totals are the bars', the problems and note the decision's, so a
// decision that does not add up says so on the page.
func TestChartOfDecision(t *testing.T) {
	d := Decision{Date: "2024-05-14", Result: "Stemmen - aangenomen", Method: "Met handopsteken", SourceURL: "https://x/b",
		Zaken:    []VoteZaak{{Nummer: "2024Z00001", Soort: "Motie", Onderwerp: "Motie van het lid A over B"}},
		Parties:  []PartyVote{{Party: "VVD", Vote: VoteFor, Seats: 24}, {Party: "PVV", Vote: VoteAgainst, Seats: 37}, {Party: "SP", Vote: VoteNone, Seats: 5}},
		Problems: []string{"voor 24 + tegen 37 + niet deelgenomen 5 = 66, but 70 seats are present in the data"}, Note: "n"}
	c := Chart(d)
	if c.Title != "Motie 2024Z00001: Motie van het lid A over B" || c.Unit != adapters.VoteUnitSeats || c.Size != KamerSeats ||
		c.OtherKind != adapters.OtherNotTakingPart || len(c.Bars) != 3 || c.Bars[0].Voor != 24 || c.Bars[1].Tegen != 37 || c.Bars[2].Other != 5 ||
		*c.Totals != (adapters.VoteCount{Voor: 24, Tegen: 37, Other: 5}) || len(c.Problems) != 1 || c.Note != "n" || c.SourceURL != "https://x/b" {
		t.Fatalf("per fractie: %+v", c)
	}
	d.PerMember, d.Method = true, "Hoofdelijk"
	d.Parties = []PartyVote{{Party: "NSC", Vote: "verdeeld", Seats: 20, Members: 18, Voor: 8, Tegen: 8, NietDeelgenomen: 2, NotRecorded: 2}}
	c = Chart(d)
	if c.Unit != adapters.VoteUnitMembers || c.Bars[0] != (adapters.VoteBar{Party: "NSC", Vote: "verdeeld", Voor: 8, Tegen: 8, Other: 2, NotRecorded: 2}) ||
		*c.Totals != (adapters.VoteCount{Voor: 8, Tegen: 8, Other: 2, NotRecorded: 2}) {
		t.Fatalf("per member: %+v", c)
	}
}

// replicaVotes answers vote questions from a replica index as of a pass
// (ParliamentVotes), as the held replica does once it is caught up.
type replicaVotes struct{ j voteJoin }

func (r replicaVotes) Votes(ctx context.Context, p VotesParams) (VotesAnswer, bool, string) {
	found, why, err := r.j.votes(ctx, p)
	if err != nil || why != "" {
		return VotesAnswer{}, false, why
	}
	return VotesAnswer{VotesFound: found, Provenance: "from the replica", CompleteUpTo: r.j.asOf}, true, ""
}

// The reader's votes of a zaak come from the replica when it holds them,
// with no request: the same charts as the platform's, each saying where
// it was read (a document's: votes_document_replica_test.go). A zaak the
// replica does not hold asks the platform.
func TestReaderVotesOfAZaakFromTheReplica(t *testing.T) {
	h := votesEmulator()
	idx, _ := replicaOf(t, h)
	zaken, _, _ := votedZaken(t, idx)
	pv := replicaVotes{j: voteJoin{idx: idx, asOf: emuNow}}
	ctx := context.Background()
	compared := 0
	for _, z := range zaken {
		if compared == 10 {
			break
		}
		var log []string
		get := emuGetter(h, &log)
		env := adapters.Env{Get: func(_ context.Context, _ string, r adapters.Request) ([]byte, error) { return get(r) },
			Memo: &adapters.Memo{}, Now: emuNow}
		want, err := votes(ctx, env, DefaultRoot, nil, z, "")
		if err != nil || len(log) == 0 {
			t.Fatalf("%s from the platform: %v, %d requests", z, err, len(log))
		}
		if len(want) == 0 {
			// Decided without a vote: the replica shows none either.
			if got, err := votes(ctx, env, DefaultRoot, pv, z, ""); err != nil || len(got) != 0 {
				t.Fatalf("%s: the platform shows no vote, the replica %d (%v)", z, len(got), err)
			}
			continue
		}
		compared++
		log = nil
		got, err := votes(ctx, env, DefaultRoot, pv, z, "")
		if err != nil || len(log) != 0 {
			t.Fatalf("%s from the replica: %v, %d requests", z, err, len(log))
		}
		sameCharts(t, z, got, want)
	}
	if compared < 5 {
		t.Fatalf("%d zaken with votes compared", compared)
	}
	// A zaak the replica does not hold: the platform.
	var log []string
	get := emuGetter(h, &log)
	env := adapters.Env{Get: func(_ context.Context, _ string, r adapters.Request) ([]byte, error) { return get(r) },
		Memo: &adapters.Memo{}, Now: emuNow}
	if _, err := votes(ctx, env, DefaultRoot, pv, "2026Z99999", ""); err != nil || len(log) == 0 {
		t.Fatalf("a zaak the replica lacks: %v, %d requests", err, len(log))
	}
}
