package ob

import (
	"testing"

	"github.com/besluitbron/besluitbron/internal/fuzzcheck"
)

// FuzzParse feeds every Officiële Bekendmakingen answer parser the same
// bytes, seeded with the real payloads (fixtures/ob: two publication XML
// files, an SRU record and its enrichedData) and a search envelope around
// the real record: no panic, a clear error or the same result twice,
// valid UTF-8; a look-up returns the publication asked for or none.
func FuzzParse(f *testing.F) {
	fuzzcheck.AddFixtures(f, "ob")
	for _, rec := range fuzzcheck.Fixtures(f, "ob", "sru-record-gmb.fragment.xml") {
		f.Add([]byte(`<searchRetrieveResponse><numberOfRecords>1</numberOfRecords><records>` + string(rec) + `</records></searchRetrieveResponse>`))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzcheck.Parse(t, "ParseRecord", func() (any, error) { return ParseRecord(body) })
		// A look-up never hands back another publication than the one asked.
		if r, err := fuzzcheck.Parse(t, "ParseLookup", func() (Record, error) { return ParseLookup(body, "gmb-2023-174296") }); err == nil && r.Hit.ID != "gmb-2023-174296" {
			t.Fatalf("look-up of gmb-2023-174296 answered with %q", r.Hit.ID)
		}
		fuzzcheck.Parse(t, "ParseSearch", func() (any, error) {
			p, recs, err := ParseSearch(body)
			return []any{p, recs}, err
		})
		fuzzcheck.Parse(t, "ParseXML", func() (any, error) { return ParseXML(body) })
	})
}
