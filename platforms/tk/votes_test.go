package tk

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fixture"
)

// voteSchema is the emulator's schema of root, with its vote sets.
func voteSchema(t *testing.T, root string) (*Schema, *voteSets, *[]string, Getter) {
	t.Helper()
	var log []string
	get := emuGetter(emuHandler, &log)
	s := emuSchema(t, get, root)
	v, err := VoteSets(s)
	if err != nil {
		t.Fatal(err)
	}
	return s, v, &log, get
}

// The real Besluit answer (a motion, voted per fractie) gives its zaak,
// result, method, date, each fractie's vote with its seats, and totals
// that add up to the seats present; the sample holds 3 fracties, so the
// other 145 seats are said to be missing, not invented.
func TestVotesRealFixture(t *testing.T) {
	_, v, _, _ := voteSchema(t, legacyRoot)
	ds, total, err := ParseVotes(v, fixture.Read(t, "tk", "odata-besluit-expand.json"))
	if err != nil || len(ds) != 1 || total != 1 {
		t.Fatalf("%d decisions (total %d): %v", len(ds), total, err)
	}
	d := ds[0]
	if d.ID != "6b15c18f-fdc5-4ea4-bee2-a556e94d7682" || d.Result != "Stemmen - aangenomen" || d.ResultText != "Aangenomen." ||
		d.Method != "Met handopsteken" || d.PerMember || d.Date != "2022-10-04" ||
		d.SourceURL != "https://gegevensmagazijn.tweedekamer.nl/SyncFeed/2.0/Entiteiten/6b15c18f-fdc5-4ea4-bee2-a556e94d7682" {
		t.Fatalf("decision %+v", d)
	}
	if len(d.Zaken) != 1 || d.Zaken[0].Nummer != "2022Z17826" || d.Zaken[0].Soort != "Motie" ||
		!strings.HasPrefix(d.Zaken[0].Onderwerp, "Gewijzigde motie van het lid Leijten") || d.Zaken[0].URL == "" {
		t.Fatalf("zaken %+v", d.Zaken)
	}
	want := []PartyVote{{Party: "Omtzigt", Vote: "Voor", Seats: 1}, {Party: "JA21", Vote: "Tegen", Seats: 3}, {Party: "Gündogan", Vote: "Tegen", Seats: 1}}
	if fmt.Sprint(d.Parties) != fmt.Sprint(want) {
		t.Fatalf("parties %+v", d.Parties)
	}
	if tt := d.Totals; tt != (VoteTotals{Unit: "seats", Voor: 1, Tegen: 4, NietDeelgenomen: 0, Present: 5, NotInData: 145}) {
		t.Fatalf("totals %+v", tt)
	}
	if !d.Consistent || len(d.Problems) != 0 || !strings.Contains(d.Summary, "Motie 2022Z17826: Aangenomen. (met handopsteken, 2022-10-04): voor 1, tegen 4, niet deelgenomen 0 of 5 seats; 145 of the Kamer's 150 seats not in the data") {
		t.Fatalf("consistent=%v %v %q", d.Consistent, d.Problems, d.Summary)
	}

	// The second real answer parses the same way.
	ds, _, err = ParseVotes(v, fixture.Read(t, "tk", "odata-besluit-nextlink.json"))
	if err != nil || len(ds) == 0 || ds[0].Result != "Stemmen - verworpen" || ds[0].Totals.Voor+ds[0].Totals.Tegen+ds[0].Totals.NietDeelgenomen != ds[0].Totals.Present {
		t.Fatalf("%+v %v", ds, err)
	}

	// With a party, only its vote; the result and totals stay.
	found, seen := FilterParty(ds[:0:0], "x", nil)
	if found || seen != nil {
		t.Fatal("no decisions, no party")
	}
	one, _, _ := ParseVotes(v, fixture.Read(t, "tk", "odata-besluit-expand.json"))
	if found, _ := FilterParty(one, "ja21", nil); !found || len(one[0].Parties) != 1 || one[0].Parties[0].Seats != 3 || one[0].Totals.Tegen != 4 {
		t.Fatalf("party filter %+v", one[0])
	}
	// A full name the Fractie list gives finds the abbreviation the votes use.
	one, _, _ = ParseVotes(v, fixture.Read(t, "tk", "odata-besluit-expand.json"))
	if found, _ := FilterParty(one, "Juiste Antwoord 2021", map[string]string{"juiste antwoord 2021": "JA21"}); !found || one[0].Parties[0].Party != "JA21" {
		t.Fatalf("party by name %+v", one[0].Parties)
	}
}

// besluitWith is the real Besluit answer with its Stemming rows replaced
// and, with method, its StemmingsSoort.
func besluitWith(t *testing.T, method string, stemming []map[string]any) []byte {
	t.Helper()
	var env map[string]any
	if err := json.Unmarshal(fixture.Read(t, "tk", "odata-besluit-expand.json"), &env); err != nil {
		t.Fatal(err)
	}
	b := env["value"].([]any)[0].(map[string]any)
	if method != "" {
		b["StemmingsSoort"] = method
	}
	b["Stemming"] = stemming
	out, _ := json.Marshal(env)
	return out
}

func fractieVote(party, soort string, seats any) map[string]any {
	return map[string]any{"Id": "6fadeabe-7a45-4beb-9757-015722bb346a", "Soort": soort, "FractieGrootte": seats,
		"ActorNaam": party, "ActorFractie": party, "Vergissing": false, "Persoon_Id": nil, "Verwijderd": false}
}

func memberVote(i int, name, party, soort string, seats int) map[string]any {
	return map[string]any{"Id": fmt.Sprintf("00000000-0000-4000-8000-%012d", i), "Soort": soort, "FractieGrootte": seats,
		"ActorNaam": name, "ActorFractie": party, "Vergissing": false,
		"Persoon_Id": fmt.Sprintf("10000000-0000-4000-8000-%012d", i), "Verwijderd": false}
}

// A hostile or inconsistent answer is reported as found: a fractie twice,
// an unknown vote value, seats over 150, a recorded result the tally
// contradicts, a huge list of votes. Nothing is corrected.
func TestVotesInconsistentReported(t *testing.T) {
	_, v, _, _ := voteSchema(t, legacyRoot)
	parse := func(body []byte) Decision {
		t.Helper()
		ds, _, err := ParseVotes(v, body)
		if err != nil || len(ds) != 1 {
			t.Fatalf("%v %v", ds, err)
		}
		return ds[0]
	}
	has := func(d Decision, want string) {
		t.Helper()
		if d.Consistent || !strings.Contains(strings.Join(d.Problems, "\n"), want) || !strings.Contains(d.Summary, "DOES NOT ADD UP") {
			t.Fatalf("want a problem %q: consistent=%v %q", want, d.Consistent, d.Problems)
		}
	}

	// 150 seats in all, but the recorded "aangenomen" has 70 voor, 80 tegen.
	d := parse(besluitWith(t, "", []map[string]any{fractieVote("A", "Voor", 70), fractieVote("B", "Tegen", 80)}))
	has(d, `recorded as "Stemmen - aangenomen", but voor 70 is not more than tegen 80`)
	if d.Totals.Voor != 70 || d.Totals.Tegen != 80 || d.Result != "Stemmen - aangenomen" {
		t.Fatalf("corrected? %+v", d)
	}
	// A fractie twice and more seats than the Kamer has: counted as given.
	d = parse(besluitWith(t, "", []map[string]any{fractieVote("A", "Voor", 100), fractieVote("A", "Voor", 100)}))
	has(d, "A votes more than once")
	has(d, "200 seats are counted, more than the Kamer's 150 seats")
	if d.Totals.Voor != 200 || d.Totals.Present != 200 || d.Totals.NotInData != 0 {
		t.Fatalf("totals %+v", d.Totals)
	}
	// An unknown vote value: voor + tegen + niet deelgenomen no longer add up.
	d = parse(besluitWith(t, "", []map[string]any{fractieVote("A", "Voor", 75), fractieVote("B", "Onthouden", 75)}))
	has(d, `vote value "Onthouden" of B is none of Voor, Tegen, Niet deelgenomen`)
	has(d, "voor 75 + tegen 0 + niet deelgenomen 0 = 75, but 150 seats are present in the data")
	// Seats that are no number, or negative.
	d = parse(besluitWith(t, "", []map[string]any{fractieVote("A", "Voor", "veel"), fractieVote("B", "Tegen", -3)}))
	has(d, "A has no valid FractieGrootte")
	has(d, "B has no valid FractieGrootte")
	// A huge list: counted up to a bound, and said.
	var huge []map[string]any
	for i := range 5000 {
		huge = append(huge, memberVote(i, fmt.Sprint("lid ", i), "X", "Voor", 150))
	}
	d = parse(besluitWith(t, "Hoofdelijk", huge))
	has(d, "the answer lists 5000 votes for this decision")
	has(d, "X has 600 members voting but 150 seats")
	// Each member twice: the problems are listed up to a bound.
	var twice []map[string]any
	for i := range 100 {
		twice = append(twice, memberVote(i, fmt.Sprint("lid ", i), "Y", "Tegen", 75), memberVote(i, fmt.Sprint("lid ", i), "Y", "Tegen", 75))
	}
	d = parse(besluitWith(t, "Hoofdelijk", twice))
	has(d, "member lid 0 votes more than once")
	has(d, "and 83 more problems") // 100 members twice, Y over its seats, over 150, the result
	if len(d.Problems) != 21 || d.Totals.Tegen != 200 {
		t.Fatalf("%d problems, tegen %d", len(d.Problems), d.Totals.Tegen)
	}
	// No votes at all.
	d = parse(besluitWith(t, "", []map[string]any{}))
	has(d, "holds no votes")

	// A vote marked Vergissing is listed apart and not counted; the rest
	// still adds up.
	m := fractieVote("B", "Tegen", 3)
	m["Vergissing"] = true
	d = parse(besluitWith(t, "", []map[string]any{fractieVote("A", "Voor", 1), m}))
	if !d.Consistent || d.Totals.Tegen != 0 || d.Totals.Present != 1 || len(d.Mistaken) != 1 || d.Mistaken[0].Party != "B" ||
		!strings.Contains(d.Note, "Vergissing") || len(d.Parties) != 1 {
		t.Fatalf("vergissing: %+v", d)
	}
	// A deleted Stemming is not counted.
	del := fractieVote("C", "Voor", 9)
	del["Verwijderd"] = true
	if d = parse(besluitWith(t, "", []map[string]any{fractieVote("A", "Voor", 1), del})); d.Totals.Present != 1 {
		t.Fatalf("deleted vote counted: %+v", d.Totals)
	}
}

// A vote per member: members counted and grouped per fractie, the
// fractie's vote its majority, members apart from it listed, seats with
// no member row said, not called absent.
func TestVotesHoofdelijk(t *testing.T) {
	_, v, _, _ := voteSchema(t, legacyRoot)
	var rows []map[string]any
	i := 0
	add := func(party, soort string, n, seats int) {
		for range n {
			i++
			rows = append(rows, memberVote(i, fmt.Sprintf("%s-lid %d", party, i), party, soort, seats))
		}
	}
	add("A", "Voor", 74, 76)
	add("A", "Tegen", 2, 76)
	add("B", "Tegen", 70, 74)
	add("B", "Niet deelgenomen", 1, 74)
	ds, _, err := ParseVotes(v, besluitWith(t, "Hoofdelijk", rows))
	if err != nil {
		t.Fatal(err)
	}
	d := ds[0]
	if !d.PerMember || d.Totals != (VoteTotals{Unit: "members", Voor: 74, Tegen: 72, NietDeelgenomen: 1, Present: 147, NotInData: 3}) {
		t.Fatalf("totals %+v", d.Totals)
	}
	if len(d.Parties) != 2 || d.Parties[0] != (PartyVote{Party: "A", Vote: "Voor", Seats: 76, Members: 76, Voor: 74, Tegen: 2}) ||
		d.Parties[1] != (PartyVote{Party: "B", Vote: "Tegen", Seats: 74, Members: 71, Tegen: 70, NietDeelgenomen: 1, NotRecorded: 3}) {
		t.Fatalf("parties %+v", d.Parties)
	}
	if len(d.Dissenters) != 3 || d.Dissenters[0].Party != "A" || d.Dissenters[0].Vote != "Tegen" || d.Dissenters[2].Vote != "Niet deelgenomen" {
		t.Fatalf("dissenters %+v", d.Dissenters)
	}
	// The recorded "aangenomen" agrees with voor 74 > tegen 72.
	if !d.Consistent || !strings.Contains(d.Summary, "voor 74, tegen 72, niet deelgenomen 1 of 147 members") {
		t.Fatalf("problems %v, summary %q", d.Problems, d.Summary)
	}
	if found, _ := FilterParty(ds, "a", nil); !found || len(ds[0].Parties) != 1 || len(ds[0].Dissenters) != 2 {
		t.Fatalf("party A: %+v", ds[0])
	}
	// Recorded "verworpen" against the same members' votes: reported.
	body := besluitWith(t, "Hoofdelijk", rows)
	body = []byte(strings.Replace(string(body), `"BesluitSoort":"Stemmen - aangenomen"`, `"BesluitSoort":"Stemmen - verworpen"`, 1))
	ds, _, _ = ParseVotes(v, body)
	if ds[0].Consistent || !strings.Contains(strings.Join(ds[0].Problems, ";"), `recorded as "Stemmen - verworpen", but voor 74 is more than tegen 72`) {
		t.Fatalf("contradicted result not reported: %v", ds[0].Problems)
	}
}

// Bad arguments are refused before any request, saying what to fix.
func TestVotesParamsCheck(t *testing.T) {
	for _, tc := range []struct {
		p    VotesParams
		want string
	}{
		{VotesParams{}, "give exactly one of zaak"},
		{VotesParams{Zaak: "2022Z17826", Query: "stikstof"}, "give exactly one of zaak"},
		{VotesParams{Zaak: "2023D41173"}, "a document number (D) is read with tk_fetch"},
		{VotesParams{Zaak: "motie"}, `zaak "MOTIE" is not a zaak number`},
		{VotesParams{Dossier: "36200-VII", Toevoeging: "VIII"}, "give it once"},
		{VotesParams{Dossier: "362"}, "is not a Kamerstuk dossier number"},
		{VotesParams{Dossier: "36200", Toevoeging: "V-II"}, "is not a dossier addition"},
		{VotesParams{Query: "x", Ordnummer: 3}, "give dossier too"},
		{VotesParams{Dossier: "36200", Ordnummer: 100000}, "ordnummer 100000 is out of range"},
		{VotesParams{Query: "a b c d e f g h i"}, "at most 8"},
		{VotesParams{Query: "stikstof x"}, `query word "x" is too short`},
		{VotesParams{Query: "stikstof", Limit: 26}, "limit 26 is out of range: use 1 to 25"},
		{VotesParams{Query: "stikstof", Offset: -1}, "offset -1"},
		{VotesParams{Query: "stikstof", DateFrom: "2024-13-01"}, "date_from"},
		{VotesParams{Query: "stikstof", DateFrom: "2024-02-01", DateTo: "2024-01-01"}, "swap them"},
	} {
		err := tc.p.Check()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.p, err, tc.want)
		}
	}
	p := VotesParams{Dossier: "36200-vii", Ordnummer: 12}
	if err := p.Check(); err != nil || p.Dossier != "36200" || p.Toevoeging != "VII" || p.Limit != 10 {
		t.Fatalf("%+v %v", p, err)
	}
	p = VotesParams{Zaak: " 2022z17826 "}
	if err := p.Check(); err != nil || p.Zaak != "2022Z17826" {
		t.Fatalf("%+v %v", p, err)
	}
}

// The requests are OData v4 the emulator (and so the platform's
// documented syntax) accepts: one lambda level, a path through
// single-valued navigations for the voting day, an explicit order with
// Id last; and they find the votes of a zaak, of a dossier and by words.
func TestVotesAgainstEmulator(t *testing.T) {
	for _, root := range []string{legacyRoot, DefaultRoot} {
		t.Run(root, func(t *testing.T) {
			_, v, log, get := voteSchema(t, root)
			p := VotesParams{Query: "motie", DateFrom: "2025-01-01"}
			if err := p.Check(); err != nil {
				t.Fatal(err)
			}
			req, err := VotesRequest(v, p, nil)
			if err != nil {
				t.Fatal(err)
			}
			u, _ := url.Parse(req.Path)
			f := u.Query().Get("$filter")
			for _, want := range []string{"Verwijderd eq false", "startswith(BesluitSoort,'Stemmen')",
				"Zaak/any(z:z/Verwijderd eq false and (contains(z/Titel,'motie') or contains(z/Onderwerp,'motie')))",
				"Agendapunt/Activiteit/Datum ge 2025-01-01T00:00:00+01:00"} {
				if !strings.Contains(f, want) {
					t.Fatalf("filter %q lacks %q", f, want)
				}
			}
			body, err := get(req)
			if err != nil {
				t.Fatal(err)
			}
			ds, total, err := ParseVotes(v, body)
			if err != nil || len(ds) == 0 || total < len(ds) {
				t.Fatalf("%d of %d: %v", len(ds), total, err)
			}
			for i, d := range ds {
				if !d.Consistent || d.Totals.Present != KamerSeats || d.Date < "2025-01-01" || (i > 0 && d.Date > ds[i-1].Date) ||
					!strings.HasPrefix(d.Result, "Stemmen") || len(d.Zaken) != 1 || len(d.Parties) == 0 {
					t.Fatalf("decision %d: %+v", i, d)
				}
			}
			checkRequests(t, (*log)[1:])

			// By the zaak number of the first: the same decision.
			zp := VotesParams{Zaak: ds[0].Zaken[0].Nummer}
			_ = zp.Check()
			req, _ = VotesRequest(v, zp, nil)
			body, err = get(req)
			if err != nil {
				t.Fatal(err)
			}
			byZaak, _, err := ParseVotes(v, body)
			if err != nil || len(byZaak) != 1 || byZaak[0].ID != ds[0].ID {
				t.Fatalf("by zaak: %+v %v", byZaak, err)
			}
		})
	}
}

// The emulator's votes with a dossier: its zaken first, then their votes.
func TestVotesDossierAgainstEmulator(t *testing.T) {
	s, v, log, get := voteSchema(t, legacyRoot)
	// a dossier with a vote: ask the emulator which zaak of a vote has one
	body, err := get(adaptersGet("/OData/v4/2.0/Besluit?$filter=startswith(BesluitSoort,'Stemmen')&$expand=Zaak($expand=Kamerstukdossier)&$top=50&$orderby=Id"))
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Value []struct {
			Zaak []struct {
				Nummer           string
				Volgnummer       *int
				Kamerstukdossier []struct {
					Nummer     int
					Toevoeging *string
				}
			}
		}
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	var p VotesParams
	for _, b := range env.Value {
		if z := b.Zaak[0]; len(z.Kamerstukdossier) == 1 && z.Volgnummer != nil {
			p = VotesParams{Dossier: fmt.Sprint(z.Kamerstukdossier[0].Nummer), Ordnummer: *z.Volgnummer}
			if tv := z.Kamerstukdossier[0].Toevoeging; tv != nil {
				p.Toevoeging = *tv
			}
			break
		}
	}
	if p.Dossier == "" {
		t.Fatal("no vote on a zaak in a dossier in the emulator")
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	*log = nil
	req, err := DossierZakenRequest(s, p)
	if err != nil {
		t.Fatal(err)
	}
	body, err = get(req)
	if err != nil {
		t.Fatal(err)
	}
	ids, total, err := ParseDossierZaken(s, body)
	if err != nil || len(ids) == 0 || total != len(ids) {
		t.Fatalf("%v %d %v\n%+v %s\n%s", ids, total, err, p, req.Path, body)
	}
	req, _ = VotesRequest(v, p, ids)
	body, err = get(req)
	if err != nil {
		t.Fatal(err)
	}
	ds, _, err := ParseVotes(v, body)
	if err != nil || len(ds) == 0 {
		t.Fatalf("%v %v", ds, err)
	}
	checkRequests(t, *log)
}

func adaptersGet(path string) adapters.Request { return adapters.Request{Method: "GET", Path: path} }

// tk_votes' description states its cost: requests per call, the cache,
// and the Kamer's budget as the platform table has it.
func TestVotesDescriptionStatesCost(t *testing.T) {
	for _, want := range []string{"Cost: where this BesluitBron keeps a replica", "has completed a pass, no platform request",
		"From the platform: one platform request per call (two for a dossier", "BesluitBron's cache",
		"the Kamer's budget of " + tableRow.Budget.Allowance() + " (a request is one unit) shared by all users", "5 units a second"} {
		if !strings.Contains(toolVotesDesc, want) {
			t.Errorf("description lacks %q:\n%s", want, toolVotesDesc)
		}
	}
}
