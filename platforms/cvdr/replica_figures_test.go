//go:build figures

package cvdr_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	emu "github.com/besluitbron/besluitbron/platforms/cvdr/emulator"
)

// The replica's first pass over an emulator of the CVDR's size, with the
// cap one public client reports of the CVDR (100) and the one reported
// of KOOP's SRU (1,000): how many pages each takes, and that every
// version arrives (go test -tags figures -run Figures -v ./platforms/cvdr/).
func TestFiguresReplicaFirstPass(t *testing.T) {
	want := allVersions(t, emu.RealisticRegulations)
	for _, cap := range []int{1000, 100} {
		clk := fakeclock.New(harvestStart)
		began := time.Now()
		var pages int
		e := emu.NewWith(emu.Config{Generated: emu.RealisticRegulations, PageCap: cap})
		idx, h := openReplica(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { pages++; e.ServeHTTP(w, r) }), clk, "all")
		if err := h.Pass(context.Background()); err != nil {
			t.Fatal(err)
		}
		n, err := idx.Count()
		if err != nil || n != uint64(len(want)) {
			t.Fatalf("cap %d: held %d of %d versions (%v)", cap, n, len(want), err)
		}
		t.Logf("cap %d: %d versions of %d regulations in %d pages (%v here), %d days not read whole",
			cap, n, emu.RealisticRegulations, pages, time.Since(began).Round(time.Millisecond), len(h.Progress().Unread))
	}
}
