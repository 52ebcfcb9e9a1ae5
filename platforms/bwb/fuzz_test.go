package bwb

import (
	"testing"

	"github.com/besluitbron/besluitbron/internal/fuzzcheck"
)

// FuzzParse feeds every parser of the laws the same bytes, seeded with the
// real payloads (fixtures/bwb: a manifest and two toestanden) and a search
// envelope in the shape public clients read: no panic, a clear error or
// the same result twice, valid UTF-8. A manifest answers for the
// regulation asked and no other; a part asked for is one the version has.
func FuzzParse(f *testing.F) {
	fuzzcheck.AddFixtures(f, "bwb")
	f.Add([]byte(`<searchRetrieveResponse><numberOfRecords>1</numberOfRecords><records><record><recordData><gzd><originalData><meta><owmskern>` +
		`<identifier>BWBR0008326</identifier><title>Regeling belastingcapaciteit</title></owmskern></meta></originalData></gzd></recordData></record></records></searchRetrieveResponse>`))
	f.Add([]byte(`<toestand bwb-id="BWBR0000001"><wetgeving><artikel><kop><nr>1</nr></kop><al>x</al></artikel></wetgeving></toestand>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzcheck.Parse(t, "ParseSearch", func() (any, error) { return ParseSearch(body) })
		if m, err := fuzzcheck.Parse(t, "ParseManifest", func() (Manifest, error) { return ParseManifest(body, "BWBR0045754") }); err == nil {
			if m.ID != "BWBR0045754" || len(m.Versions) == 0 {
				t.Fatalf("manifest of %q with %d versions", m.ID, len(m.Versions))
			}
			if _, err := m.InForceOn("2023-01-01"); err != nil && err.Error() == "" {
				t.Fatal("empty date error")
			}
		}
		fuzzcheck.Parse(t, "ParseToestand", func() (any, error) {
			ts, err := ParseToestand(body)
			if err != nil {
				return nil, err
			}
			a, aerr := ts.Article("1", "")
			c, cerr := ts.Chapter("1")
			return []any{ts.ID, ts.Kind, ts.Title, ts.Text(), ts.Publications(), ts.Sources(), a, fmtErr(aerr), c, fmtErr(cerr)}, nil
		})
	})
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
