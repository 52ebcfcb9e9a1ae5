package tk

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms/tk/feed"
	"github.com/besluitbron/besluitbron/platforms/tk/localindex"
)

func (r replicaVotes) DocumentVotes(ctx context.Context, doc DocumentID, limit int) (VotesAnswer, bool, string) {
	found, why, err := r.j.documentVotes(ctx, doc, limit)
	if err != nil || why != "" {
		return VotesAnswer{}, false, why
	}
	return VotesAnswer{VotesFound: found, Provenance: "from the replica", CompleteUpTo: r.j.asOf}, true, ""
}

// votedFeedDocument is a motion or an amendment as the feed gave it.
type votedFeedDocument struct{ guid, nummer, soort string }

// documentVotesReplica harvests the categories a document's votes join
// from h, each entity through each first (nil: as given), and returns the
// index and the motions and amendments it holds.
func documentVotesReplica(t *testing.T, each func(*feed.Entity)) (*localindex.Index, []votedFeedDocument) {
	t.Helper()
	var docs []votedFeedDocument
	idx, _ := feedIndexOf(t, votesEmulator(), documentVoteCategories, func(e *feed.Entity) {
		if each != nil {
			each(e)
		}
		if e.Category == "document" && !e.Deleted && voted(e.Fields["soort"]) {
			docs = append(docs, votedFeedDocument{guid: strings.ToLower(e.ID), nummer: documentOfFeed(e.ID, e.Fields).Nummer, soort: e.Fields["soort"]})
		}
	})
	if len(docs) < 20 {
		t.Fatalf("the emulator's feed holds %d motions and amendments", len(docs))
	}
	return idx, docs
}

// sameCharts holds the replica's charts to the platform's: equal but for
// the provenance, which says the replica answered.
func sameCharts(t *testing.T, what string, got, want []adapters.VoteChart) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: the replica shows %d charts, the platform %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i].Provenance != "from the replica" {
			t.Fatalf("%s: provenance %q", what, got[i].Provenance)
		}
		got[i].Provenance = ""
		slices.SortFunc(got[i].Bars, func(a, b adapters.VoteBar) int { return strings.Compare(a.Party, b.Party) })
		slices.SortFunc(want[i].Bars, func(a, b adapters.VoteBar) int { return strings.Compare(a.Party, b.Party) })
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%s:\nreplica  %+v\nplatform %+v", what, got[i], want[i])
		}
	}
}

// The reader's votes of a motion or an amendment come from the replica,
// through the zaken the document's feed entry names, with no request:
// for every motion and amendment of the corpus, by number and by GUID,
// the platform's charts. A document whose zaken were not voted on is
// asked of the platform, which says so.
func TestReaderVotesOfADocumentFromTheReplica(t *testing.T) {
	h := votesEmulator()
	idx, docs := documentVotesReplica(t, nil)
	pv := replicaVotes{j: voteJoin{idx: idx, asOf: emuNow}}
	ctx := context.Background()
	charted, unvoted := 0, 0
	for i, d := range docs {
		var log []string
		get := emuGetter(h, &log)
		env := adapters.Env{Get: func(_ context.Context, _ string, r adapters.Request) ([]byte, error) { return get(r) },
			Memo: &adapters.Memo{}, Now: emuNow}
		want, err := votes(ctx, env, DefaultRoot, nil, d.nummer, d.soort)
		if err != nil || len(log) == 0 {
			t.Fatalf("%s from the platform: %v, %d requests", d.nummer, err, len(log))
		}
		ids := []string{d.nummer}
		if i%5 == 0 {
			ids = append(ids, d.guid)
		}
		for _, id := range ids {
			log = nil
			got, err := votes(ctx, env, DefaultRoot, pv, id, d.soort)
			if err != nil {
				t.Fatalf("%s from the replica: %v", id, err)
			}
			if len(want) == 0 {
				// Not (yet) voted on: the replica cannot tell that from a
				// vote it has not read, so the platform is asked.
				if len(log) == 0 || len(got) != 0 {
					t.Fatalf("%s, not voted on: %d requests, %d charts", id, len(log), len(got))
				}
				unvoted++
				continue
			}
			if len(log) != 0 {
				t.Fatalf("%s: the replica asked the platform %v", id, log)
			}
			sameCharts(t, id, got, slices.Clone(want))
			charted++
		}
	}
	if charted < 20 {
		t.Fatalf("%d documents' charts compared (%d not voted on)", charted, unvoted)
	}
	t.Logf("%d documents' charts from the replica equal to the platform's; %d not voted on went to the platform", charted, unvoted)
}

// What the replica cannot vouch for is asked of the platform, and says
// why: a document it does not hold, one stored before the index kept
// documents' numbers (found by GUID, missed by number), one that names
// no zaak, one that names a zaak it does not hold, one that names more
// zaken than OData's request reads, and a replica that keeps no
// documents.
func TestDocumentVotesReplicaFallsBack(t *testing.T) {
	var nameless, namelessNummer, zaakless, dangling, crowded string
	idx, docs := documentVotesReplica(t, func(e *feed.Entity) {
		if e.Category != "document" || !voted(e.Fields["soort"]) || len(e.Refs["zaak"]) == 0 {
			return
		}
		switch {
		case nameless == "":
			nameless, namelessNummer = strings.ToLower(e.ID), documentOfFeed(e.ID, e.Fields).Nummer
			delete(e.Fields, "documentNummer")
			delete(e.Fields, "nummer")
		case zaakless == "":
			zaakless = strings.ToLower(e.ID)
			delete(e.Refs, "zaak")
		case dangling == "":
			dangling = strings.ToLower(e.ID)
			e.Refs["zaak"] = []string{"00000000-0000-0000-0000-00000000dead"}
		case crowded == "":
			// More zaken than OData's request of a document's zaken reads.
			crowded = strings.ToLower(e.ID)
			for i := range maxVoteCharts {
				e.Refs["zaak"] = append(e.Refs["zaak"], fmt.Sprintf("00000000-0000-0000-0000-%012d", i))
			}
		}
	})
	j := voteJoin{idx: idx, asOf: emuNow}
	ctx := context.Background()
	for _, c := range []struct {
		doc  DocumentID
		want string
	}{
		{DocumentID{Nummer: "2026D99999"}, "the replica holds no document 2026D99999"},
		{DocumentID{GUID: "00000000-0000-0000-0000-000000000001"}, "the replica holds no document 00000000-0000-0000-0000-000000000001"},
		{DocumentID{GUID: zaakless}, "the replica's copy of document " + zaakless + " names no zaak"},
		{DocumentID{GUID: dangling}, "document " + dangling + " names zaak 00000000-0000-0000-0000-00000000dead, which the replica does not hold"},
		{DocumentID{GUID: crowded}, fmt.Sprintf("document %s names %d zaken, more than the reader shows the votes of (%d)", crowded, maxVoteCharts+1, maxVoteCharts)},
	} {
		if _, why, err := j.documentVotes(ctx, c.doc, maxVoteCharts); err != nil || why != c.want {
			t.Fatalf("%+v: %q (%v), want %q", c.doc, why, err, c.want)
		}
	}
	// Stored with no number: missed by number, found by GUID.
	if nameless == "" {
		t.Fatal("no motion with a zaak to strip of its number")
	}
	if _, why, _ := j.documentVotes(ctx, DocumentID{GUID: nameless}, maxVoteCharts); why != "" && !strings.HasPrefix(why, "the replica holds no vote") {
		t.Fatalf("by GUID: %q", why)
	}
	if _, why, _ := j.documentVotes(ctx, DocumentID{Nummer: namelessNummer}, maxVoteCharts); namelessNummer == "" || why != "the replica holds no document "+namelessNummer {
		t.Fatalf("by number %q: %q", namelessNummer, why)
	}
	var numbered string
	for _, d := range docs {
		if d.guid != nameless && d.nummer != "" {
			numbered = d.nummer
			break
		}
	}
	if _, why, err := j.documentVotes(ctx, DocumentID{Nummer: numbered}, maxVoteCharts); err != nil || strings.Contains(why, "holds no document") {
		t.Fatalf("a numbered document %s: %q (%v)", numbered, why, err)
	}
	// A replica that keeps no documents does not answer at all.
	if got := (harvestScope{Categories: voteCategories}).lacks(documentVoteCategories); !reflect.DeepEqual(got, []string{"document"}) {
		t.Fatalf("lacks: %v", got)
	}
}
