package tk

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/fixture"
	"github.com/besluitbron/besluitbron/mcpkit"
	emu "github.com/besluitbron/besluitbron/platforms/tk/emulator"
	"github.com/besluitbron/besluitbron/platforms/tk/feed"
	"github.com/besluitbron/besluitbron/platforms/tk/localindex"
	"github.com/besluitbron/besluitbron/replica"
)

// The replica's votes against OData's, for the same data: the emulator
// serves both from one data set, and a real Besluit answer (with its
// Stemming rows varied) is turned into the SyncFeed entities it is made
// of. Decision by Decision they must be equal, totals, problems,
// Vergissing and the members apart included. The one difference allowed
// is the order of lists that follows the platform's order of Stemming
// rows (parties, members apart, mistaken votes, problems): the SyncFeed
// keeps none, so the replica reads votes by fractie and member name.

// replicaOf harvests the categories votes join from h's SyncFeed into a
// new index, page by page as the harvester stores them.
func replicaOf(t testing.TB, h http.Handler) (*localindex.Index, int) {
	t.Helper()
	return feedIndexOf(t, h, append(slices.Clone(voteCategories), "kamerstukdossier"), nil)
}

// feedIndexOf harvests categories of h's SyncFeed into a new index, page
// by page as the harvester stores them, each entity through each first
// (nil: as the feed gives it); it returns the index and the pages read.
func feedIndexOf(t testing.TB, h http.Handler, categories []string, each func(*feed.Entity)) (*localindex.Index, int) {
	t.Helper()
	idx, _, err := localindex.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	pages := 0
	for _, c := range categories {
		for token := int64(0); ; {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, feed.Request(feedCategories[c], token).Path, nil))
			pages++
			p, err := feed.ParsePage(rec.Body.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Entities) == 0 {
				break
			}
			for i := range p.Entities {
				if each != nil {
					each(&p.Entities[i])
				}
			}
			if _, err := idx.Apply(p.Entities, nil, []byte(strconv.FormatInt(p.Next, 10))); err != nil {
				t.Fatal(err)
			}
			token = p.Next
		}
	}
	return idx, pages
}

// normalized is d with the lists that follow the order of Stemming rows
// in one order.
func normalized(d Decision) Decision {
	d.Parties = slices.Clone(d.Parties)
	slices.SortFunc(d.Parties, func(a, b PartyVote) int { return strings.Compare(strings.ToLower(a.Party), strings.ToLower(b.Party)) })
	byName := func(a, b MemberVote) int {
		return cmp.Or(strings.Compare(a.Party, b.Party), strings.Compare(a.Name, b.Name), strings.Compare(a.Vote, b.Vote))
	}
	d.Dissenters, d.Mistaken = slices.Clone(d.Dissenters), slices.Clone(d.Mistaken)
	slices.SortFunc(d.Dissenters, byName)
	slices.SortFunc(d.Mistaken, byName)
	d.Problems = slices.Clone(d.Problems)
	slices.Sort(d.Problems)
	return d
}

// sameVotes fails unless the replica found what OData found.
func sameVotes(t *testing.T, what string, odata, local VotesFound) {
	t.Helper()
	if len(odata.Decisions) != len(local.Decisions) || odata.Total != local.Total || odata.Dossier != local.Dossier ||
		odata.DossierZaken != local.DossierZaken || odata.PageZaken != local.PageZaken {
		t.Fatalf("%s: OData %d decisions (total %d, dossier %d/%d), the replica %d (total %d, dossier %d/%d)", what,
			len(odata.Decisions), odata.Total, odata.PageZaken, odata.DossierZaken, len(local.Decisions), local.Total, local.PageZaken, local.DossierZaken)
	}
	for i := range odata.Decisions {
		a, b := normalized(odata.Decisions[i]), normalized(local.Decisions[i])
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("%s, decision %d:\nOData   %s\nreplica %s", what, i, ja, jb)
		}
	}
}

// votesEmulator is a smaller emulator than emuHandler: every zaak voted
// on is asked both ways.
func votesEmulator() http.Handler {
	return emu.New(emu.Config{Seed: 1, Clock: fakeclock.New(emuNow), Documents: 600})
}

// TestVotesReplicaSameAsOData: every zaak of the emulator that was voted
// on, by its number; every dossier with votes, page by page and by
// ordnummer; title words with periods. The replica answers each (no
// reason to ask the platform) and its decisions are OData's.
//
// In process, no Caddy: it runs beside the package's other parallel
// tests, and its two versions beside each other (the index and the
// emulator are only read).
func TestVotesReplicaSameAsOData(t *testing.T) {
	t.Parallel()
	h := votesEmulator()
	idx, _ := replicaOf(t, h)
	for _, root := range []string{legacyRoot, DefaultRoot} {
		t.Run(root, func(t *testing.T) {
			t.Parallel()
			var log []string
			get := emuGetter(h, &log)
			s := emuSchema(t, get, root)
			j := voteJoin{idx: idx, asOf: emuNow}
			ctx := context.Background()
			perMember, empty := 0, 0
			ask := func(p VotesParams) {
				t.Helper()
				if err := p.Check(); err != nil {
					t.Fatal(err)
				}
				want, err := AskVotes(s, get, p)
				if err != nil {
					t.Fatal(err)
				}
				got, why, err := j.votes(ctx, p)
				if want.Total == 0 && !(want.Dossier && want.PageZaken == 0) {
					// No vote: the platform is asked to say so.
					if err != nil || !strings.HasPrefix(why, "the replica holds no vote on these zaken") {
						t.Fatalf("%+v: no vote, and the replica says %q %v", p, why, err)
					}
					empty++
					return
				}
				if err != nil || why != "" {
					t.Fatalf("%+v: the replica did not answer: %q %v", p, why, err)
				}
				sameVotes(t, fmt.Sprintf("%+v", p), want, got)
				for _, d := range got.Decisions {
					if d.PerMember {
						perMember++
					}
				}
			}
			zaken, dossiers, ordnummers := votedZaken(t, idx)
			if len(zaken) < 50 || len(dossiers) < 3 {
				t.Fatalf("the emulator has %d zaken voted on in %d dossiers", len(zaken), len(dossiers))
			}
			for _, z := range zaken {
				ask(VotesParams{Zaak: z})
			}
			for _, d := range dossiers {
				ask(VotesParams{Dossier: d, Limit: 3})
				ask(VotesParams{Dossier: d, Limit: 3, Offset: 3})
				ask(VotesParams{Dossier: d, Limit: 25, Offset: 0})
				ask(VotesParams{Dossier: d, Ordnummer: ordnummers[d]})
			}
			// Title words the platform's contains() and the replica's
			// whole words find in the same zaken.
			words := 0
			for _, w := range []string{"jeugdzorg", "studiefinanciering", "warmtenet", "kinderopvang", "aanpak jeugdzorg"} {
				for _, q := range []VotesParams{
					{Query: w, Limit: 10},
					{Query: w, Limit: 10, Offset: 10},
					{Query: w, DateFrom: "2024-03-01", DateTo: "2024-12-31", Limit: 25},
					{Query: w, DateTo: "2023-12-31", Limit: 5, Offset: 2},
				} {
					ask(q)
					words++
				}
			}
			if perMember == 0 {
				t.Fatal("no vote per member (Hoofdelijk) among the emulator's")
			}
			t.Logf("%s: %d zaken, %d dossiers, %d word questions, %d votes per member: the replica's decisions are OData's (%d questions without a vote sent to the platform)", root, len(zaken), len(dossiers), words, perMember, empty)
		})
	}
}

// votedZaken are the numbers of the zaken the index holds a vote on, the
// dossiers (36200-VII) of those in one, and per dossier the ordnummer of
// one of them.
func votedZaken(t *testing.T, idx *localindex.Index) ([]string, []string, map[string]int) {
	t.Helper()
	ctx := context.Background()
	var zaken, dossiers []string
	ordnummers := map[string]int{}
	seen := map[string]bool{}
	all, err := idx.WithWords(ctx, "zaak", "motie", localindex.MaxJoin)
	if err != nil {
		t.Fatal(err)
	}
	more, err := idx.WithWords(ctx, "zaak", "amendement", localindex.MaxJoin)
	if err != nil {
		t.Fatal(err)
	}
	for _, z := range append(all.Entities, more.Entities...) {
		bs, err := idx.Linking(ctx, "besluit", "zaak", []string{z.ID}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(bs.Entities) == 0 || seen[z.ID] {
			continue
		}
		seen[z.ID] = true
		zaken = append(zaken, feedField(z, "nummer"))
		for _, k := range refs(z, "kamerstukdossier") {
			ks, _ := idx.Get(ctx, []string{k})
			if d, ok := ks[k]; ok {
				name := feedField(d, "nummer")
				if tv := feedField(d, "toevoeging"); tv != "" {
					name += "-" + tv
				}
				if !seen[name] {
					seen[name] = true
					dossiers = append(dossiers, name)
				}
				if n, err := strconv.Atoi(feedField(z, "volgnummer")); err == nil && n > 0 {
					ordnummers[name] = n
				}
			}
		}
	}
	slices.Sort(zaken)
	slices.Sort(dossiers)
	return zaken, dossiers, ordnummers
}

// feedTwin is the SyncFeed's entities of an OData Besluit answer expanded
// as VotesRequest asks (Zaak, Stemming, Agendapunt with its Activiteit):
// each a feed entity with its fields by their lowerCamel names and its
// links as refs, as the SyncFeed writes them. A deleted row is one the
// feed removed; two rows with one Id (a hostile answer) are two entities.
func feedTwin(t *testing.T, body []byte) []feed.Entity {
	t.Helper()
	var env struct{ Value []map[string]any }
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	var out []feed.Entity
	ids := map[string]int{}
	entity := func(category string, r map[string]any, refs map[string][]string) (feed.Entity, bool) {
		id := strings.ToLower(fmt.Sprint(r["Id"]))
		if n := ids[id]; n > 0 {
			id = id[:24] + fmt.Sprintf("%012d", n)
		}
		ids[id]++
		e := feed.Entity{ID: id, Category: category, Element: category, Fields: map[string]string{}, Refs: refs}
		if u, ok := r["ApiGewijzigdOp"].(string); ok {
			e.Updated = u
		} else {
			e.Updated = "2022-10-05T07:11:47Z"
		}
		for k, v := range r {
			switch x := v.(type) {
			case nil, []any, map[string]any:
				continue
			case string:
				if k == "Id" || k == "GewijzigdOp" || k == "ApiGewijzigdOp" {
					continue
				}
				if strings.HasSuffix(k, "_Id") {
					e.Refs[strings.ToLower(k[:1])+strings.TrimSuffix(k[1:], "_Id")] = []string{x}
					continue
				}
				e.Fields[strings.ToLower(k[:1])+k[1:]] = x
			case float64:
				e.Fields[strings.ToLower(k[:1])+k[1:]] = strconv.FormatFloat(x, 'f', -1, 64)
			case bool:
				if k == "Verwijderd" {
					continue
				}
				e.Fields[strings.ToLower(k[:1])+k[1:]] = strconv.FormatBool(x)
			}
		}
		return e, r["Verwijderd"] != true
	}
	for _, b := range env.Value {
		bid := strings.ToLower(fmt.Sprint(b["Id"]))
		brefs := map[string][]string{}
		for _, z := range b["Zaak"].([]any) {
			z := z.(map[string]any)
			brefs["zaak"] = append(brefs["zaak"], strings.ToLower(fmt.Sprint(z["Id"])))
			if e, live := entity("zaak", z, map[string][]string{}); live {
				out = append(out, e)
			}
		}
		if e, live := entity("besluit", b, brefs); live {
			out = append(out, e)
		}
		if ap, ok := b["Agendapunt"].(map[string]any); ok {
			if e, live := entity("agendapunt", ap, map[string][]string{}); live {
				out = append(out, e)
			}
			if act, ok := ap["Activiteit"].(map[string]any); ok {
				if e, live := entity("activiteit", act, map[string][]string{}); live {
					out = append(out, e)
				}
			}
		}
		for _, s := range b["Stemming"].([]any) {
			s := s.(map[string]any)
			if e, live := entity("stemming", s, map[string][]string{"besluit": {bid}}); live {
				e.Refs["besluit"] = []string{bid}
				out = append(out, e)
			}
		}
	}
	return out
}

// The real Besluit answer and its hostile and inconsistent variants
// (votes_test.go's), read through OData and through the replica holding
// the same entities: the same decision, problems, Vergissing, deleted
// votes and members apart included.
func TestVotesReplicaSameAsODataOnVariants(t *testing.T) {
	_, v, _, _ := voteSchema(t, legacyRoot)
	mistaken := fractieVote("B", "Tegen", 3)
	mistaken["Vergissing"] = true
	deleted := fractieVote("C", "Voor", 9)
	deleted["Verwijderd"] = true
	var members []map[string]any
	i := 0
	add := func(party, soort string, n, seats int) {
		for range n {
			i++
			members = append(members, memberVote(i, fmt.Sprintf("%s-lid %d", party, i), party, soort, seats))
		}
	}
	add("A", "Voor", 74, 76)
	add("A", "Tegen", 2, 76)
	add("B", "Tegen", 70, 74)
	add("B", "Niet deelgenomen", 1, 74)
	wrongMember := memberVote(999, "B-lid 999", "B", "Voor", 74)
	wrongMember["Vergissing"] = true
	verworpen := strings.Replace(string(besluitWith(t, "Hoofdelijk", members)), `"BesluitSoort":"Stemmen - aangenomen"`, `"BesluitSoort":"Stemmen - verworpen"`, 1)
	for name, body := range map[string][]byte{
		"real":                     fixture.Read(t, "tk", "odata-besluit-expand.json"),
		"contradicted":             besluitWith(t, "", []map[string]any{fractieVote("A", "Voor", 70), fractieVote("B", "Tegen", 80)}),
		"twice, over 150":          besluitWith(t, "", []map[string]any{fractieVote("A", "Voor", 100), fractieVote("A", "Voor", 100)}),
		"unknown value":            besluitWith(t, "", []map[string]any{fractieVote("A", "Voor", 75), fractieVote("B", "Onthouden", 75)}),
		"bad seats":                besluitWith(t, "", []map[string]any{fractieVote("A", "Voor", "veel"), fractieVote("B", "Tegen", -3)}),
		"no votes":                 besluitWith(t, "", []map[string]any{}),
		"vergissing":               besluitWith(t, "", []map[string]any{fractieVote("A", "Voor", 1), mistaken}),
		"deleted vote":             besluitWith(t, "", []map[string]any{fractieVote("A", "Voor", 1), deleted}),
		"hoofdelijk":               besluitWith(t, "Hoofdelijk", append(slices.Clone(members), wrongMember)),
		"hoofdelijk, contradicted": []byte(verworpen),
	} {
		t.Run(name, func(t *testing.T) {
			want, total, err := ParseVotes(v, body)
			if err != nil {
				t.Fatal(err)
			}
			idx, _, err := localindex.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer idx.Close()
			if _, err := idx.Apply(feedTwin(t, body), nil, []byte("1")); err != nil {
				t.Fatal(err)
			}
			p := VotesParams{Zaak: "2022Z17826"}
			_ = p.Check()
			got, why, err := voteJoin{idx: idx, asOf: emuNow}.votes(context.Background(), p)
			if err != nil || why != "" {
				t.Fatalf("the replica did not answer: %q %v", why, err)
			}
			sameVotes(t, name, VotesFound{Decisions: want, Total: total}, got)
			d := got.Decisions[0]
			switch name {
			case "hoofdelijk":
				if !d.PerMember || len(d.Dissenters) != 3 || len(d.Mistaken) != 1 || !d.Consistent {
					t.Fatalf("members apart and the mistaken vote: %+v", d)
				}
			case "vergissing":
				if len(d.Mistaken) != 1 || d.Totals.Present != 1 {
					t.Fatalf("vergissing counted: %+v", d)
				}
			case "contradicted", "hoofdelijk, contradicted", "twice, over 150", "unknown value", "bad seats", "no votes":
				if d.Consistent || len(d.Problems) == 0 {
					t.Fatalf("no problem reported: %+v", d)
				}
			}
		})
	}
}

// A partial feed: the replica holds what its last complete pass read, and
// what it cannot vouch for goes to the platform. Votes published after
// the pass whose decision it does not hold (the stemming pages ran ahead
// of the besluit pages) would leave a zaak's decision out with nothing to
// show it; a decision whose votes changed after the pass may be counted
// from half of them. Neither is answered.
func TestVotesReplicaRefusesAPartialFeed(t *testing.T) {
	body := fixture.Read(t, "tk", "odata-besluit-expand.json")
	p := VotesParams{Zaak: "2022Z17826"}
	_ = p.Check()
	open := func(extra ...feed.Entity) *localindex.Index {
		idx, _, err := localindex.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { idx.Close() })
		if _, err := idx.Apply(append(feedTwin(t, body), extra...), nil, []byte("1")); err != nil {
			t.Fatal(err)
		}
		return idx
	}
	ctx := context.Background()
	var pass time.Time // after every entity of the fixture
	for _, e := range feedTwin(t, body) {
		if u, err := time.Parse(time.RFC3339Nano, e.Updated); err == nil && u.After(pass) {
			pass = u.Add(time.Second)
		}
	}

	// Whole as of the pass: answered.
	if found, why, err := (voteJoin{idx: open(), asOf: pass}).votes(ctx, p); err != nil || why != "" || len(found.Decisions) != 1 {
		t.Fatalf("%q %v %+v", why, err, found)
	}
	// A vote of a decision the replica does not hold, published after
	// the pass: the data is incomplete.
	orphan := feed.Entity{ID: "aaaaaaaa-0000-4000-8000-000000000001", Category: "stemming", Updated: pass.Add(time.Hour).Format(time.RFC3339),
		Fields: map[string]string{"soort": "Voor", "fractieGrootte": "150", "actorFractie": "X", "vergissing": "false"},
		Refs:   map[string][]string{"besluit": {"bbbbbbbb-0000-4000-8000-000000000002"}}}
	found, why, err := (voteJoin{idx: open(orphan), asOf: pass}).votes(ctx, p)
	if err != nil || len(found.Decisions) != 0 || !strings.Contains(why, "holds votes of a decision (Besluit bbbbbbbb-0000-4000-8000-000000000002) it does not hold yet: its data is incomplete") {
		t.Fatalf("an orphan vote: %q %v %+v", why, err, found)
	}
	// One naming no decision at all.
	orphan.Refs = nil
	if _, why, _ := (voteJoin{idx: open(orphan), asOf: pass}).votes(ctx, p); !strings.Contains(why, "names no decision") {
		t.Fatalf("a vote of no decision: %q", why)
	}
	// One of the decision's votes changed after the pass (now marked
	// Vergissing): the replica may hold the changed vote and not the rest
	// of the change, so it does not count them.
	var changed feed.Entity
	for _, e := range feedTwin(t, body) {
		if e.Category == "stemming" {
			changed = e
			break
		}
	}
	changed.Updated, changed.Fields["vergissing"] = pass.Add(time.Hour).Format(time.RFC3339), "true"
	if found, why, _ := (voteJoin{idx: open(changed), asOf: pass}).votes(ctx, p); len(found.Decisions) != 0 ||
		!strings.Contains(why, "the Kamer changed vote (Stemming) "+changed.ID+" after the replica's last complete pass ("+pass.UTC().Format(time.RFC3339)+")") {
		t.Fatalf("a vote newer than the pass: %q %+v", why, found)
	}
}

// joinAt is a replica whose last complete pass began at asOf, as tk_votes
// asks it (parliamentWords.Votes without the keeper around it).
type joinAt struct{ voteJoin }

func (j joinAt) Votes(ctx context.Context, p VotesParams) (VotesAnswer, bool, string) {
	found, why, err := j.votes(ctx, p)
	if err != nil {
		return VotesAnswer{}, false, err.Error()
	}
	if why != "" {
		return VotesAnswer{}, false, why
	}
	n, _ := j.idx.Count()
	return VotesAnswer{VotesFound: found, CompleteUpTo: j.asOf,
		Provenance: replica.Provenance(replicaSpec.Source, replicaSpec.Units(), replica.Progress{CompleteUpTo: j.asOf, Records: n}) + wordsMatched(p)}, true, ""
}

// votesEnv is a connector's Env for tk_votes: the replica it is given,
// and the platform's route to h, counting requests.
type votesEnv struct {
	mcpkit.Env
	parliament ParliamentVotes
	h          http.Handler
	lists      adapters.Memo
	log        []string
}

func (e *votesEnv) Replica(string) any {
	if e.parliament == nil {
		return nil
	}
	return e.parliament
}
func (e *votesEnv) Setting(string) any    { return legacyRoot }
func (e *votesEnv) Now() time.Time        { return emuNow }
func (e *votesEnv) Lists() *adapters.Memo { return &e.lists }
func (e *votesEnv) Getter(context.Context, string) func(adapters.Request) ([]byte, error) {
	return emuGetter(e.h, &e.log)
}

// tk_votes routes: from the replica with no platform request, its
// provenance saying how complete it is; to the platform when the replica
// cannot vouch for the answer, saying why, with the platform's decisions.
// In process, no Caddy: it runs beside the package's other parallel
// tests (its index is its own).
func TestVotesToolRoutesToTheReplica(t *testing.T) {
	t.Parallel()
	h := votesEmulator()
	idx, _ := replicaOf(t, h)
	zaken, dossiers, _ := votedZaken(t, idx)
	env := &votesEnv{parliament: joinAt{voteJoin{idx: idx, asOf: emuNow}}, h: h}
	ctx := context.Background()
	call := func(in toolVotesIn) *toolVotesOut {
		t.Helper()
		out, res := toolVotes(ctx, env, in)
		if res != nil {
			t.Fatalf("%+v: %+v", in, res.Content)
		}
		return out
	}
	for _, in := range []toolVotesIn{{Zaak: zaken[0]}, {Dossier: dossiers[0], Limit: 2}, {Query: "jeugdzorg", Party: "VVD"}} {
		env.log = nil
		out := call(in)
		if len(env.log) != 0 || out.Count == 0 || !strings.HasPrefix(out.Provenance, "BesluitBron's index of the Tweede Kamer's SyncFeed, complete up to 2026-11-29T12:00:00Z (") ||
			out.FetchedAt != "2026-11-29T12:00:00Z" || out.Platform != "tk" {
			t.Fatalf("%+v: %d requests, %+v", in, len(env.log), out)
		}
		// The same question without a replica: the platform's answer,
		// the same but for where it came from.
		plain := &votesEnv{h: h}
		want, res := toolVotes(ctx, plain, in)
		if res != nil || len(plain.log) == 0 || want.Provenance != "" {
			t.Fatalf("%+v without a replica: %+v %v", in, want, plain.log)
		}
		want.Provenance, want.Meta = out.Provenance, out.Meta
		for i := range want.Decisions {
			want.Decisions[i], out.Decisions[i] = normalized(want.Decisions[i]), normalized(out.Decisions[i])
		}
		a, _ := json.Marshal(want)
		b, _ := json.Marshal(out)
		if string(a) != string(b) {
			t.Fatalf("%+v:\nplatform %s\nreplica  %s", in, a, b)
		}
	}
	// A number the replica does not hold goes to the platform, saying so.
	env.log = nil
	if out := call(toolVotesIn{Zaak: "2026Z99999"}); len(env.log) == 0 || out.Provenance != "asked the Tweede Kamer: the replica holds no zaak 2026Z99999" ||
		!strings.HasPrefix(out.Note, "No vote is recorded on zaak 2026Z99999") {
		t.Fatalf("an unknown zaak: %v %+v", env.log, out)
	}

	// A partial feed: a vote published after the pass whose decision the
	// replica does not hold. The platform answers, and says why.
	orphan := feed.Entity{ID: "aaaaaaaa-0000-4000-8000-000000000001", Category: "stemming", Updated: emuNow.Add(time.Minute).Format(time.RFC3339),
		Fields: map[string]string{"soort": "Voor", "fractieGrootte": "150", "actorFractie": "X"},
		Refs:   map[string][]string{"besluit": {"bbbbbbbb-0000-4000-8000-000000000002"}}}
	if _, err := idx.Apply([]feed.Entity{orphan}, nil, []byte("2")); err != nil {
		t.Fatal(err)
	}
	env.log = nil
	out := call(toolVotesIn{Zaak: zaken[0]})
	if len(env.log) == 0 || out.Count != 1 || !out.Decisions[0].Consistent ||
		out.Provenance != "asked the Tweede Kamer: the replica holds votes of a decision (Besluit bbbbbbbb-0000-4000-8000-000000000002) it does not hold yet: its data is incomplete until its next pass reads the decision" {
		t.Fatalf("a partial feed: %v %+v", env.log, out)
	}
}
