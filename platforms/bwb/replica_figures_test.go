//go:build figures

package bwb_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	emu "github.com/besluitbron/besluitbron/platforms/bwb/emulator"
)

// The replica's first pass over an emulator of the BWB's size, with the
// cap public clients report (1,000) and the one reported of the CVDR
// (100): how many pages each takes, and that every version arrives
// (go test -tags figures -run Figures -v ./platforms/bwb/).
func TestFiguresReplicaFirstPass(t *testing.T) {
	want := allVersions(t, emu.RealisticRegulations)
	for _, cap := range []int{1000, 100} {
		clk := fakeclock.New(harvestStart)
		began := time.Now()
		var pages int
		e := emu.New(emu.Config{Generated: emu.RealisticRegulations, PageCap: cap, Clock: clk})
		idx, h := harvest(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { pages++; e.ServeHTTP(w, r) }), clk)
		n, err := idx.Count()
		if err != nil || n != uint64(len(want)) {
			t.Fatalf("cap %d: held %d of %d versions (%v)", cap, n, len(want), err)
		}
		p := h.Progress()
		t.Logf("cap %d: %d versions of %d regulations in %d pages (%v here), %d days not read whole",
			cap, n, emu.RealisticRegulations, pages, time.Since(began).Round(time.Millisecond), len(p.Unread))
	}
}
