package oa

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/fuzzcheck"
	emu "github.com/besluitbron/besluitbron/platforms/oa/emulator"
)

// FuzzParse feeds the Open Archivaris answer parsers the same bytes. Open
// Archivaris has no public payload or API description (fixtures/README.md),
// so the seeds are the emulator's answers to this adapter's own requests
// (a search, a document, a page of its text) plus the other result shapes
// the parser accepts. No panic, a clear error or the same result twice,
// valid UTF-8.
func FuzzParse(f *testing.F) {
	h := emu.New(emu.Config{Seed: 1, NoRateLimit: true, Clock: fakeclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))})
	ep := Endpoints{}.WithDefaults()
	r, err := ep.SearchRequest(SearchParams{Query: "besluit", Limit: 5})
	if err != nil {
		f.Fatal(err)
	}
	search := fuzzcheck.Serve(h, r)
	f.Add(search)
	var res struct {
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
	}
	if json.Unmarshal(search, &res) != nil || len(res.Results) == 0 {
		f.Fatalf("the emulator's search found nothing: %s", search)
	}
	if r, err := ep.DocumentRequest(res.Results[0].ID); err == nil {
		f.Add(fuzzcheck.Serve(h, r))
	}
	if r, err := ep.TextRequest(res.Results[0].ID, 1); err == nil {
		f.Add(fuzzcheck.Serve(h, r))
	}
	f.Add([]byte(`{"hits":{"total":7,"hits":[{"_id":"d1","_source":{"title":"Besluit","date":"2024-01-02","organisation":"Utrecht","highlight":["x y"],"url":"https://openarchivaris.nl/d1"}}]},"total":7}`))
	f.Add([]byte(`{"id":"d1","title":"T","pages":["een","twee"]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzcheck.Parse(t, "ParseSearch", func() (any, error) { return ParseSearch(body, 20) })
		fuzzcheck.Parse(t, "ParseDocument", func() (any, error) { return ParseDocument(body) })
		fuzzcheck.Parse(t, "ParseText", func() (any, error) { return ParseText(body) })
	})
}
