package tk

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	emu "github.com/besluitbron/besluitbron/platforms/tk/emulator"
	"github.com/besluitbron/besluitbron/platforms/tk/feed"
	"github.com/besluitbron/besluitbron/platforms/tk/localindex"
	"github.com/besluitbron/besluitbron/replica"
)

// The replica's part of a dossier's timeline against OData's, for the
// same data: the emulator serves both from one data set. Its SyncFeed
// gives each document its <kamerstukdossier ref> (docs/emulators.md: as a
// third-party client of the real feed reads it, tkconv's tkgetxml.cc; not
// confirmed by a real sample); a feed without the link is made by
// dropping it, and then the replica does not answer
// (TestTimelineReplicaFallsBack).

// timelineCorpus is the emulator's documents of the long differential
// test (without -short): enough that some dossiers' lists are cut by the
// zaken's and decisions' limits (their notes compared too).
const timelineCorpus = 4000

// timelineReplicaOf harvests the categories a timeline joins from h's
// SyncFeed into a new index, page by page as the harvester stores them.
// With linked false, the documents' <kamerstukdossier ref> is dropped: a
// feed that does not give the link; with it true, the feed must give it.
func timelineReplicaOf(t testing.TB, h http.Handler, linked bool) *localindex.Index {
	t.Helper()
	links := 0
	idx, _ := feedIndexOf(t, h, timelineCategories, func(e *feed.Entity) {
		switch {
		case e.Category != "document":
		case !linked:
			delete(e.Refs, "kamerstukdossier")
		case len(e.Refs["kamerstukdossier"]) > 0:
			links++
		}
	})
	if linked && links == 0 {
		t.Fatal("the emulator's SyncFeed links no document to its dossier")
	}
	return idx
}

// heldDossiers are the dossiers the index holds, as a user names them.
func heldDossiers(t testing.TB, idx *localindex.Index) []adapters.Dossier {
	t.Helper()
	var out []adapters.Dossier
	seen := map[adapters.Dossier]bool{}
	// The index lists no category, but every dossier was published
	// after the zero time.
	all, err := idx.ChangedAfter(context.Background(), "kamerstukdossier", time.Time{}, localindex.MaxJoin)
	if err != nil || !all.Whole() {
		t.Fatalf("%d of %d dossiers: %v", len(all.Entities), all.Total, err)
	}
	for _, k := range all.Entities {
		d := adapters.Dossier{Number: feedField(k, "nummer"), Addition: strings.ToUpper(feedField(k, "toevoeging"))}
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b adapters.Dossier) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// TestTimelineReplicaSameAsOData: every dossier of the emulator, both
// OData versions. The replica answers each that OData holds a step of,
// with OData's steps, notes and missing links; a dossier OData holds
// nothing of is not answered by the replica either.
func TestTimelineReplicaSameAsOData(t *testing.T) {
	h := votesEmulator()
	roots := []string{legacyRoot, DefaultRoot}
	if !testing.Short() {
		// More documents per dossier: pages cut by the zaken's and
		// decisions' limits, and their notes. Through the current root
		// only: the quick tier compares both roots' answers, and the
		// large corpus under -race takes minutes per root.
		h = emu.New(emu.Config{Seed: 3, Clock: fakeclock.New(emuNow), Documents: timelineCorpus})
		roots = []string{DefaultRoot}
	}
	idx := timelineReplicaOf(t, h, true)
	dossiers := heldDossiers(t, idx)
	if len(dossiers) < 30 {
		t.Fatalf("the emulator has %d dossiers", len(dossiers))
	}
	j := voteJoin{idx: idx, asOf: emuNow}
	prog := replica.Progress{CompleteUpTo: emuNow, Records: 1}
	ctx := context.Background()
	for _, root := range roots {
		t.Run(root, func(t *testing.T) {
			var log []string
			get := emuGetter(h, &log)
			env := adapters.Env{Get: func(_ context.Context, _ string, r adapters.Request) ([]byte, error) { return get(r) },
				Memo: &adapters.Memo{}, Now: emuNow}
			var compared, withDocs, withVotes, withDecisions, withActivities, kamerstukken, noZaak, cut, empty, titled int
			for _, d := range dossiers {
				want, err := readTimeline(ctx, env, root, adapters.TimelineQuery{Dossier: d})
				a, why, jerr := timelineFromReplica(ctx, j, d, prog)
				if jerr != nil {
					t.Fatalf("%s: %v", d, jerr)
				}
				if err != nil {
					// OData holds nothing of it: the replica leaves it to
					// the platform too.
					if why != "the replica holds no document and no zaak in dossier "+d.String() {
						t.Fatalf("%s: OData %v, the replica %q", d, err, why)
					}
					empty++
					continue
				}
				if why != "" {
					t.Fatalf("%s: the replica did not answer: %s", d, why)
				}
				got := a.Part
				if got.Requests != 0 || !strings.HasPrefix(got.Provenance, "BesluitBron's index of the Tweede Kamer's SyncFeed, complete up to 2026-11-29T12:00:00Z (") {
					t.Fatalf("%s: %d requests, provenance %q", d, got.Requests, got.Provenance)
				}
				if want.Requests == 0 {
					t.Fatalf("%s: OData made no request", d)
				}
				want.Requests, want.Provenance = got.Requests, got.Provenance
				jw, _ := json.Marshal(want)
				jg, _ := json.Marshal(got)
				if string(jw) != string(jg) {
					t.Fatalf("%s:\nOData   %s\nreplica %s", d, jw, jg)
				}
				compared++
				for _, s := range got.Steps {
					switch s.Kind {
					case adapters.StepDocument:
						withDocs++
						if strings.Contains(s.LinkedBy, "(kamerstuk kst-") {
							kamerstukken++
						}
					case adapters.StepVote:
						withVotes++
					case adapters.StepDecision:
						withDecisions++
					case adapters.StepActivity:
						withActivities++
					}
				}
				if len(got.Missing) > 0 {
					noZaak++
				}
				if len(got.Notes) > 0 {
					cut++
				}
				if got.Title != "" {
					titled++
				}
			}
			if compared < 30 || withVotes == 0 || withDecisions == 0 || withActivities == 0 || kamerstukken == 0 || titled == 0 {
				t.Fatalf("%d dossiers compared (%d with a title): %d documents (%d kamerstukken), %d votes, %d other decisions", compared, titled, withDocs, kamerstukken, withVotes, withDecisions)
			}
			if !testing.Short() && cut == 0 {
				t.Fatalf("no dossier of the large corpus has a list cut short: its notes are not compared")
			}
			t.Logf("%s: %d of %d dossiers the replica answers with OData's part (%d document steps, %d of them kamerstukken, %d activities, %d votes, %d other decisions; %d dossiers with a note of a list cut short, %d without a zaak); %d OData holds nothing of",
				root, compared, len(dossiers), withDocs, kamerstukken, withActivities, withVotes, withDecisions, cut, noZaak, empty)
		})
	}
}

// fakeHeld is a replica host holding idx with the harvester h.
type fakeHeld struct {
	idx *localindex.Index
	h   *harvester
}

func (f fakeHeld) Current() (replica.Index, replica.Harvester, error) { return f.idx, f.h, nil }
func (f fakeHeld) Broken(error)                                       {}

// The replica does not answer what it cannot vouch for, and the platform
// answers instead, the part's provenance saying why: the feed gives no
// Document→Kamerstukdossier link (the emulator's as it is), a replica not
// yet through a pass or keeping some years or categories only, an entity
// of the dossier published after the pass, and votes of a decision the
// replica does not hold.
func TestTimelineReplicaFallsBack(t *testing.T) {
	h := votesEmulator()
	ctx := context.Background()
	linked := timelineReplicaOf(t, h, true)
	dossiers := heldDossiers(t, linked)
	// A dossier with a decision on one of its zaken.
	var d adapters.Dossier
	var r timelineRead
	for _, x := range dossiers {
		got, why, err := (voteJoin{idx: linked, asOf: emuNow}).timeline(ctx, x)
		if err == nil && why == "" && len(got.decisions) > 0 && len(got.docs) > 0 {
			d, r = x, got
			break
		}
	}
	if len(r.decisions) == 0 {
		t.Fatal("no dossier with a document and a decision")
	}

	// As the surface asks it: from the replica, no request; else the
	// platform, saying why.
	read := func(p ParliamentTimeline) adapters.TimelinePart {
		t.Helper()
		var log []string
		get := emuGetter(h, &log)
		env := adapters.Env{Get: func(_ context.Context, _ string, r adapters.Request) ([]byte, error) { return get(r) },
			Memo: &adapters.Memo{}, Now: emuNow}
		part, err := timelineSource(legacyRoot, p).Read(ctx, env, adapters.TimelineQuery{Dossier: d})
		if err != nil {
			t.Fatal(err)
		}
		if part.Requests != len(log) {
			t.Fatalf("%d requests counted, %d made", part.Requests, len(log))
		}
		return part
	}
	asked := func(p ParliamentTimeline, why string) {
		t.Helper()
		part := read(p)
		if part.Requests == 0 || part.Provenance != "asked the Tweede Kamer through the cache: "+why {
			t.Fatalf("%d requests, provenance %q, want the reason %q", part.Requests, part.Provenance, why)
		}
	}
	if part := read(nil); part.Requests == 0 || part.Provenance != "asked the Tweede Kamer through the cache" {
		t.Fatalf("without a replica: %+v", part)
	}

	// A held replica, through a pass at emuNow.
	hv := func(idx *localindex.Index, scope harvestScope) parliamentWords {
		return parliamentWords{held: fakeHeld{idx: idx, h: newHarvester(idx, replica.Harvest{}, scope)}}
	}
	// Before any pass: still being built.
	asked(hv(linked, harvestScope{}), "the replica is still being built")
	if why := timelineUnfit(harvestScope{Since: 2020}, replica.Progress{CompleteUpTo: emuNow}); why != "the replica keeps documents from 2020 on, so a dossier's older documents are not in it" {
		t.Fatalf("some years: %q", why)
	}
	if why := timelineUnfit(harvestScope{Categories: []string{"besluit", "document", "zaak"}}, replica.Progress{CompleteUpTo: emuNow}); why != "the replica keeps no activiteit, agendapunt, kamerstukdossier, stemming, which a dossier's timeline joins" {
		t.Fatalf("some categories: %q", why)
	}

	at := func(idx *localindex.Index, asOf time.Time) ParliamentTimeline {
		return joinTimelineAt{voteJoin{idx: idx, asOf: asOf}}
	}
	// Whole: answered, no request.
	if part := read(at(linked, emuNow)); part.Requests != 0 || !strings.HasPrefix(part.Provenance, "BesluitBron's index of the Tweede Kamer's SyncFeed, complete up to ") {
		t.Fatalf("from the replica: %+v", part)
	}

	// The emulator's feed as it is: no document names its dossier.
	plain := timelineReplicaOf(t, h, false)
	asked(at(plain, emuNow), "no document the replica holds names its dossier (the SyncFeed gave no Document→Kamerstukdossier link), so a dossier's documents cannot be read from it")

	// A dossier the replica does not hold.
	other := d
	other.Addition = "ZZZ"
	if _, why, _ := (voteJoin{idx: linked, asOf: emuNow}).timeline(ctx, other); why != "the replica holds no dossier "+other.String() {
		t.Fatalf("an unknown dossier: %q", why)
	}

	// Not caught up: the last complete pass began before the dossier's
	// entities were published.
	early := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, why, _ := (voteJoin{idx: linked, asOf: early}).timeline(ctx, d); !strings.HasPrefix(why, "the Kamer changed ") ||
		!strings.Contains(why, " after the replica's last complete pass (2000-01-01T00:00:00Z); the pass that reads it may not have read the rest of the ") {
		t.Fatalf("a pass before the dossier: %q", why)
	}

	// An entity of the dossier published after the pass: its decision,
	// changed (a new text) an hour after emuNow.
	b := r.decisions[0]
	held, err := linked.Get(ctx, []string{b.ID})
	if err != nil || len(held) != 1 {
		t.Fatalf("%v %v", held, err)
	}
	changed := held[b.ID]
	fe := feed.Entity{ID: changed.ID, Category: "besluit", Element: "besluit", Fields: changed.Fields, Refs: changed.Refs,
		Updated: emuNow.Add(time.Hour).Format(time.RFC3339)}
	fe.Fields["besluitTekst"] = "Gewijzigd."
	// (The replica held is changed from here on.)
	after := linked
	if _, err := after.Apply([]feed.Entity{fe}, nil, []byte("x")); err != nil {
		t.Fatal(err)
	}
	asked(at(after, emuNow), fmt.Sprintf("the Kamer changed besluit %s after the replica's last complete pass (2026-11-29T12:00:00Z); the pass that reads it may not have read the rest of the dossier yet", b.ID))

	// A vote published after the pass whose decision the replica does
	// not hold (asked before any dossier's entities: it says so first) (the stemming pages ran ahead of the besluit pages, or the
	// feed left the besluit out): a decision would be missing.
	orphan := feed.Entity{ID: "aaaaaaaa-0000-4000-8000-000000000001", Category: "stemming", Element: "stemming", Updated: emuNow.Add(time.Minute).Format(time.RFC3339),
		Fields: map[string]string{"soort": "Voor", "fractieGrootte": "150", "actorFractie": "X"},
		Refs:   map[string][]string{"besluit": {"bbbbbbbb-0000-4000-8000-000000000002"}}}
	missing := linked
	if _, err := missing.Apply([]feed.Entity{orphan}, nil, []byte("x")); err != nil {
		t.Fatal(err)
	}
	asked(at(missing, emuNow), "the replica holds votes of a decision (Besluit bbbbbbbb-0000-4000-8000-000000000002) it does not hold yet: its data is incomplete until its next pass reads the decision")
}

// joinTimelineAt is a replica whose last complete pass began at asOf, as
// the timeline asks it (parliamentWords.Timeline without the keeper
// around it).
type joinTimelineAt struct{ voteJoin }

func (j joinTimelineAt) Timeline(ctx context.Context, d adapters.Dossier) (TimelineAnswer, bool, string) {
	n, _ := j.idx.Count()
	a, why, err := timelineFromReplica(ctx, j.voteJoin, d, replica.Progress{CompleteUpTo: j.asOf, Records: n})
	if err != nil {
		return TimelineAnswer{}, false, err.Error()
	}
	return a, why == "", why
}

// A dossier of documents and no zaak: the replica lists the documents and
// names the missing link as OData's part does (timelineRead.steps), with
// the kamerstuk of a document in one dossier only; a document in two
// dossiers has none, as kamerstukOf reads OData.
func TestTimelineReplicaDossierWithoutZaak(t *testing.T) {
	idx, _, err := localindex.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	const k1, k2 = "11111111-0000-4000-8000-000000000001", "11111111-0000-4000-8000-000000000002"
	at := "2024-05-01T10:00:00Z"
	doc := func(id, nr, volg string, ks ...string) feed.Entity {
		return feed.Entity{ID: id, Category: "document", Element: "document", Updated: at,
			Fields: map[string]string{"soort": "Brief regering", "documentNummer": nr, "titel": "Titel " + nr, "onderwerp": "Onderwerp " + nr,
				"datum": "2024-04-0" + volg, "vergaderjaar": "2023-2024", "volgnummer": volg},
			Refs: map[string][]string{"kamerstukdossier": ks}}
	}
	if _, err := idx.Apply([]feed.Entity{
		{ID: k1, Category: "kamerstukdossier", Element: "kamerstukdossier", Updated: at, Fields: map[string]string{"nummer": "36999", "toevoeging": "VII", "titel": "Een dossier"}},
		{ID: k2, Category: "kamerstukdossier", Element: "kamerstukdossier", Updated: at, Fields: map[string]string{"nummer": "36998", "titel": "Een ander"}},
		doc("22222222-0000-4000-8000-000000000001", "2024D00001", "1", k1),
		doc("22222222-0000-4000-8000-000000000002", "2024D00002", "2", k1, k2),
	}, nil, []byte("1")); err != nil {
		t.Fatal(err)
	}
	d := adapters.Dossier{Number: "36999", Addition: "VII"}
	a, why, err := timelineFromReplica(context.Background(), voteJoin{idx: idx, asOf: emuNow}, d, replica.Progress{CompleteUpTo: emuNow})
	if err != nil || why != "" {
		t.Fatalf("%q %v", why, err)
	}
	p := a.Part
	if len(p.Steps) != 2 || p.Steps[0].ID != "2024D00002" || p.Steps[1].ID != "2024D00001" {
		t.Fatalf("steps %+v", p.Steps)
	}
	if p.Steps[0].Citation == "" || strings.Contains(p.Steps[0].LinkedBy, "kamerstuk") ||
		p.Steps[1].LinkedBy != "the Tweede Kamer's Document→Kamerstukdossier link names dossier 36999-VII (kamerstuk kst-36999-VII-1)" {
		t.Fatalf("kamerstukken %+v", p.Steps)
	}
	if len(p.Missing) != 1 || p.Missing[0] != (adapters.TimelineGap{Platform: "tk", Link: "decisions and votes",
		Why: "the Tweede Kamer's data links no zaak to dossier 36999-VII, so no decision on it can be read"}) {
		t.Fatalf("missing %+v", p.Missing)
	}
	// The dossier without its addition is another one, which the
	// replica does not hold.
	if _, why, _ := (voteJoin{idx: idx, asOf: emuNow}).timeline(context.Background(), adapters.Dossier{Number: "36999"}); why != "the replica holds no dossier 36999" {
		t.Fatalf("36999: %q", why)
	}
}
