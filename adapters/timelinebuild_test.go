package adapters

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// fakeSource is a source that gives steps, or fails, and records what it
// was asked.
func fakeSource(stage int, steps []TimelineStep, err error, seen *[][]TimelineStep) *TimelineSource {
	return &TimelineSource{Stage: stage,
		Read: func(_ context.Context, _ Env, q TimelineQuery) (TimelinePart, error) {
			*seen = append(*seen, q.Steps)
			return TimelinePart{Steps: steps, Requests: 1, Provenance: "asked"}, err
		}}
}

// Sources are asked in stage order, each seeing the earlier steps; the
// steps come out in date order with undated last; an unoffered stage is
// missing; a later stage's failure is missing in Explain's words.
func TestBuildTimelineOrdersStagesAndSteps(t *testing.T) {
	var seen [][]TimelineStep
	law := fakeSource(StageLaw, nil, errors.New("down"), &seen)
	law.Check = func(q TimelineQuery) (bool, error) { return q.Law != "", nil }
	surfaces := map[string]Surface{
		"law": {Timeline: law},
		"kamer": {Timeline: fakeSource(StageParliament, []TimelineStep{
			{Date: "2024-05-01", Title: "vote"}, {Title: "undated"}, {Date: "2023-01-02", Title: "bill"}}, nil, &seen)},
		"pub":  {Timeline: fakeSource(StagePublication, []TimelineStep{{Date: "2024-07-01", Title: "stb"}}, nil, &seen)},
		"none": {},
	}
	sources := TimelineSources(surfaces, []string{"law", "pub", "none", "kamer"})
	if len(sources) != 3 || sources[0].Key != "kamer" || sources[2].Key != "law" {
		t.Fatalf("%+v", sources)
	}
	if !OffersTimeline(sources, []string{"kamer"}) || OffersTimeline(sources, []string{"pub", "law"}) {
		t.Fatal("a timeline is offered where its parliament source is")
	}
	q := TimelineQuery{Dossier: Dossier{Number: "36410"}, Law: " BWBR1 ", Explain: func(k string, err error) string { return k + " said " + err.Error() }}
	tl, err := BuildTimeline(context.Background(), Env{}, sources, []string{"kamer", "law"}, q)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, s := range tl.Steps {
		titles = append(titles, s.Title)
	}
	if strings.Join(titles, ",") != "bill,vote,undated" || len(seen) != 2 || len(seen[1]) != 3 {
		t.Fatalf("%v %v", titles, seen)
	}
	if len(tl.Missing) != 2 || tl.Missing[0].Why != "law said down" || tl.Missing[1].Link != "Staatsblad publication" ||
		strings.Join(tl.Asked, ",") != "kamer,law" || tl.Requests["law"] != 1 || tl.Provenance["kamer"] != "asked" {
		t.Fatalf("%+v", tl)
	}

	// A law nobody offered reads, a malformed law: invalid, nothing asked.
	seen = nil
	if _, err := BuildTimeline(context.Background(), Env{}, sources, []string{"kamer"}, q); !errors.As(err, new(*InvalidError)) || len(seen) != 0 {
		t.Fatalf("%v %d", err, len(seen))
	}
	law.Check = func(TimelineQuery) (bool, error) { return true, errors.New("law: not a BWB id") }
	if _, err := BuildTimeline(context.Background(), Env{}, sources, []string{"kamer", "law"}, q); !errors.As(err, new(*InvalidError)) || len(seen) != 0 {
		t.Fatalf("%v %d", err, len(seen))
	}

	// The parliament source's failure is the timeline's; no dossier is
	// ErrNoDocument.
	surfaces["kamer"] = Surface{Timeline: fakeSource(StageParliament, nil, &NoDossierError{Why: "no dossier 99999"}, &seen)}
	_, err = BuildTimeline(context.Background(), Env{}, TimelineSources(surfaces, []string{"kamer"}), []string{"kamer"}, TimelineQuery{})
	var f *TimelineFailure
	if !errors.As(err, &f) || f.Platform != "kamer" || !errors.Is(err, ErrNoDocument) {
		t.Fatalf("%v", err)
	}
}

func TestParseDossier(t *testing.T) {
	for in, want := range map[[2]string]string{{"36200-vii", ""}: "36200-VII", {" 36410 ", ""}: "36410", {"36200", "vii"}: "36200-VII", {"36200-VII", "VII"}: "36200-VII"} {
		d, err := ParseDossier(in[0], in[1])
		if err != nil || d.String() != want {
			t.Errorf("%q: %v %v", in, d, err)
		}
	}
	for _, in := range [][2]string{{"", ""}, {"362", ""}, {"36200-VII", "VIII"}, {"36200", "V I"}, {"abc", ""}} {
		if _, err := ParseDossier(in[0], in[1]); err == nil {
			t.Errorf("%q passed", in)
		}
	}
}

func TestDossierOfKamerstuk(t *testing.T) {
	for in, want := range map[string]string{"kst-36200-VII-12": "36200-VII", "kst-36410-5": "36410", "KST-21501-20-1234": "21501-20"} {
		if d, ok := DossierOfKamerstuk(in); !ok || d.String() != want {
			t.Errorf("%q: %v %v", in, d, ok)
		}
	}
	for _, in := range []string{"", "kst-36410", "stb-2018-84", "kst-36200-VII-0", "kst-36200-VII-12-3", "kst-362-1", "kst--12", "kst-36200-V I-12", "36410-5"} {
		if d, ok := DossierOfKamerstuk(in); ok {
			t.Errorf("%q read as %v", in, d)
		}
	}
}
