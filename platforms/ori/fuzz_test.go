package ori

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/fuzzcheck"
	emu "github.com/besluitbron/besluitbron/platforms/ori/emulator"
)

// FuzzParse feeds the Open Raadsinformatie answer parsers the same bytes.
// There is no recorded ORI answer (fixtures/README.md), so the seeds are
// the emulator's answers to this adapter's own requests (a search, the
// organisations of its hits, one document), whose shapes come from
// Elasticsearch's and ORI's docs. No panic, a clear error or the same
// result twice, valid UTF-8; organisation ids are only ever well-formed
// ids (they go into the next request).
func FuzzParse(f *testing.F) {
	h := emu.New(emu.Config{Seed: 1, Clock: fakeclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))})
	r, err := SearchRequest(SearchParams{Query: "parkeren", Limit: 5})
	if err != nil {
		f.Fatal(err)
	}
	search := fuzzcheck.Serve(h, r)
	f.Add(search)
	if ids := OrganisationIDs(search); len(ids) > 0 {
		if r, err := OrganisationsRequest(ids); err == nil {
			f.Add(fuzzcheck.Serve(h, r))
		}
	}
	var env struct {
		Hits struct {
			Hits []struct {
				ID string `json:"_id"`
			} `json:"hits"`
		} `json:"hits"`
	}
	if json.Unmarshal(search, &env) != nil || len(env.Hits.Hits) == 0 {
		f.Fatalf("the emulator's search found nothing: %s", search)
	}
	if r, err := DocumentRequest(env.Hits.Hits[0].ID); err == nil {
		f.Add(fuzzcheck.Serve(h, r))
	}
	names := map[string]string{"81234": "Alkmaar"}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, id := range OrganisationIDs(body) {
			if !idRE.MatchString(id) {
				t.Fatalf("organisation id %q would go into a request", id)
			}
		}
		fuzzcheck.Parse(t, "ParseOrganisations", func() (any, error) { return ParseOrganisations(body) })
		fuzzcheck.Parse(t, "ParseSearch", func() (any, error) { return ParseSearch(body, 0, names) })
		fuzzcheck.Parse(t, "ParseDocument", func() (any, error) { return ParseDocument(body, nil) })
	})
}
