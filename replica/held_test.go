package replica

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

type heldIndex struct{}

func (heldIndex) Err() error   { return nil }
func (heldIndex) Close() error { return nil }

type otherIndex struct{ heldIndex }

type heldHarvester struct{ p Progress }

func (heldHarvester) Run(ctx context.Context) error { return ctx.Err() }
func (h heldHarvester) Progress() Progress          { return h.p }

type fakeHeld struct {
	ix     Index
	hv     Harvester
	err    error
	broken []error
}

func (f *fakeHeld) Current() (Index, Harvester, error) { return f.ix, f.hv, f.err }
func (f *fakeHeld) Broken(err error)                   { f.broken = append(f.broken, err) }

// Opened gives the index and harvester as the offer's own types, or says
// why not in words fit for a provenance; Unready and LookupFailed say why
// an opened replica answers nothing.
func TestOpenedUnreadyLookupFailed(t *testing.T) {
	h := &fakeHeld{ix: heldIndex{}, hv: heldHarvester{}}
	if _, _, why := Opened[heldIndex, heldHarvester](h, "a test index"); why != "" {
		t.Fatal(why)
	}
	h.ix = otherIndex{}
	if _, _, why := Opened[heldIndex, heldHarvester](h, "a test index"); why != "the replica is not a test index" {
		t.Fatal(why)
	}
	h.err = &UnavailableError{What: "the test index at /secret/dir", Kind: ErrCorrupt, Err: errors.New("bad block")}
	if _, _, why := Opened[heldIndex, heldHarvester](h, "a test index"); !strings.HasPrefix(why, "the replica is not open (") || strings.Contains(why, "/secret") {
		t.Fatal(why)
	}

	if why := Unready(Progress{}); why != "the replica is still being built" {
		t.Fatal(why)
	}
	if why := Unready(Progress{CompleteUpTo: time.Unix(1, 0), Stopped: h.err}); !strings.HasPrefix(why, "the replica stopped (") {
		t.Fatal(why)
	}
	if why := Unready(Progress{CompleteUpTo: time.Unix(1, 0)}); why != "" {
		t.Fatal(why)
	}

	if why := LookupFailed(h, errors.New("limit 0")); why != "the replica cannot take the question (limit 0)" || len(h.broken) != 0 {
		t.Fatal(why, h.broken)
	}
	if why := LookupFailed(h, h.err); !strings.HasPrefix(why, "the replica failed (") || strings.Contains(why, "/secret") || len(h.broken) != 1 {
		t.Fatal(why, h.broken)
	}
}
