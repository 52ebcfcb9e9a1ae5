//go:build figures

package ob_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters/koopsru/datereplica"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/platforms/ob/emulator"
	"github.com/besluitbron/besluitbron/replica"
)

// The replica's first pass of its default scope (2024 on) over an
// emulator of emulator.RealisticScale, the pages cut at 1,000 and at
// 100: how many pages each takes, and that the pass holds them all
// (go test -tags figures -run Figures -v ./platforms/ob/).
func TestFiguresReplicaFirstPass(t *testing.T) {
	p := publications(t)
	for _, cap := range []int{1000, 100} {
		clk := fakeclock.New(harvestStart)
		e := emulator.New(emulator.Config{Seed: 1, Clock: clk, MaxRecords: cap, Scale: emulator.RealisticScale})
		var pages int
		idx, _, err := p.Open(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		hv, err := p.Harvester(idx, replica.Harvest{Clock: clk, Scope: "2024-01-01",
			Fetch: emulatorFetch(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { pages++; e.ServeHTTP(w, r) }))})
		if err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		if err := hv.(*datereplica.Harvester).Pass(context.Background()); err != nil {
			t.Fatal(err)
		}
		n, _ := idx.(*datereplica.Index).Count()
		t.Logf("cap %d: %d publications since 2024 in %d pages (%v here), %d days not read whole",
			cap, n, pages, time.Since(began).Round(time.Millisecond), len(hv.Progress().Unread))
		_ = idx.Close()
	}
}
