package rechtspraak

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fixture"
)

// fakeIndex answers words as BesluitBron's index would, or fails.
type fakeIndex struct {
	asked []WordQuery
	err   error
}

func (f *fakeIndex) SearchWords(_ context.Context, q WordQuery) (WordPage, error) {
	f.asked = append(f.asked, q)
	if f.err != nil {
		return WordPage{}, f.err
	}
	return WordPage{Total: 3, Provenance: "BesluitBron's index of Rechtspraak's feed, complete up to 2026-12-01T10:00:00Z (3 decisions)",
		Hits: []WordHit{{ECLI: "ECLI:NL:RBDHA:2025:1", Title: "ECLI:NL:RBDHA:2025:1, Rechtbank Den Haag, 01-02-2025, C/09/1",
			Summary: "stikstofvergunning voor een boerderij", Court: "Rechtbank Den Haag", Date: "2025-02-01"}}}, nil
}

// The surface answers words from the index when it has one: the
// question fits, the court is named as the feed writes it, the hits link
// to the platform and carry the index's provenance. Without an index, or
// when the index cannot answer, Rechtspraak is skipped with the reason.
func TestWordsFromTheIndex(t *testing.T) {
	list := fixture.Read(t, "rechtspraak", "waardelijst-instanties.xml")
	lists := 0
	env := adapters.Env{Memo: new(adapters.Memo), Now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC),
		Get: func(_ context.Context, _ string, r adapters.Request) ([]byte, error) {
			lists++
			if r.Path != "/Waardelijst/Instanties" {
				return nil, fmt.Errorf("unexpected request %s", r.Path)
			}
			return list, nil
		}}
	q := adapters.Question{Words: "stikstof vergunning", Limit: 10, Sort: "relevance"}

	if u := Surface(nil).Unfit(q); u == nil || u.Reason != adapters.UnfitNoWordSearch {
		t.Fatalf("without an index, words alone: %v", u)
	}
	idx := &fakeIndex{}
	s := Surface(idx)
	if u := s.Unfit(q); u != nil {
		t.Fatalf("with an index, words fit: %v", u)
	}
	pg, err := s.Search(context.Background(), env, q)
	if err != nil || len(pg.Hits) != 1 || pg.Hits[0].URL != DocumentURL("ECLI:NL:RBDHA:2025:1") || pg.Provenance == "" || !pg.HasMore {
		t.Fatalf("page %+v, %v", pg, err)
	}
	if lists != 0 {
		t.Fatal("words without a court asked the platform")
	}

	q.Organisation = "agarn"
	if _, err := s.Search(context.Background(), env, q); err != nil {
		t.Fatal(err)
	}
	if got := idx.asked[len(idx.asked)-1].Court; got != "Ambtenarengerecht Arnhem" {
		t.Fatalf("court AGARN asked the index as %q, want the feed's name Ambtenarengerecht Arnhem", got)
	}
	q.Organisation = "ambtenarengerecht"
	var unfit *adapters.UnfitError
	if _, err := s.Search(context.Background(), env, q); !errors.As(err, &unfit) || unfit.Reason != adapters.UnfitUnknownCourt {
		t.Fatalf("a court that names several: %v", err)
	}

	q.Organisation = ""
	idx.err = fmt.Errorf("%w: the index file is corrupt", ErrIndexUnavailable)
	if _, err := s.Search(context.Background(), env, q); !errors.As(err, &unfit) || unfit.Reason != adapters.UnfitIndexUnavailable {
		t.Fatalf("an index that cannot answer: %v", err)
	}
	idx.err = errors.New("query words: the quote is not closed: close it or drop it")
	if _, err := s.Search(context.Background(), env, q); !errors.As(err, &unfit) || unfit.Reason != adapters.UnfitArguments || unfit.Why != idx.err.Error() {
		t.Fatalf("a question the index refuses: %v", err)
	}
}
