package opentk

import (
	"regexp"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/fuzzcheck"
	emu "github.com/besluitbron/besluitbron/platforms/opentk/emulator"
)

// FuzzParse feeds the OpenTK answer parsers the same bytes. There is no
// recorded OpenTK answer (fixtures/README.md), so the seeds are the
// emulator's answers to this adapter's own requests (a search of each
// kind, a document, minutes), whose shapes come from tkserv's source. No
// panic, a clear error or the same result twice, valid UTF-8, and a search
// page never holds more than the limit asked.
func FuzzParse(f *testing.F) {
	h := emu.New(emu.Config{Seed: 1, Documents: 500, Clock: fakeclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))})
	var nummers []string
	for _, kind := range []string{"alles", "moties", "vragenantwoorden", "activiteiten"} {
		r, err := SearchRequest("stikstof", false, kind)
		if err != nil {
			f.Fatal(err)
		}
		body := fuzzcheck.Serve(h, r)
		f.Add(body, 0, 10)
		nummers = append(nummers, regexp.MustCompile(`\d{4}D\d{5}`).FindAllString(string(body), 2)...)
	}
	if len(nummers) == 0 {
		f.Fatal("the emulator's searches named no document number")
	}
	for _, n := range nummers {
		for _, req := range []func(string) (adapters.Request, error){DocumentRequest, MinutesRequest} {
			if r, err := req(n); err == nil {
				f.Add(fuzzcheck.Serve(h, r), 0, 1)
			}
		}
	}
	f.Fuzz(func(t *testing.T, body []byte, offset, limit int) {
		// The tool checks offset and limit before they get here.
		offset, limit = max(0, offset%MaxResults), 1+abs(limit%100)
		if p, err := fuzzcheck.Parse(t, "ParseSearch", func() (adapters.Page, error) { return ParseSearch(body, offset, limit) }); err == nil && len(p.Hits) > limit {
			t.Fatalf("%d hits for limit %d", len(p.Hits), limit)
		}
		fuzzcheck.Parse(t, "ParseDocument", func() (any, error) { return ParseDocument("2023D41173", Document, body) })
		fuzzcheck.Parse(t, "ParseDocument(Verslag)", func() (any, error) { return ParseDocument("2023D41173", Verslag, body) })
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
