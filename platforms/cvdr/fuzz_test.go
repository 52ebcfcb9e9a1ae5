package cvdr

import (
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fuzzcheck"
	"github.com/besluitbron/besluitbron/platforms/bwb"
	"github.com/besluitbron/besluitbron/platforms/ob"
)

// FuzzParse feeds every parser of the local regulations the same bytes,
// seeded with the real regulations (fixtures/cvdr) and metadata in a
// search envelope: no panic, a clear error or the same result twice,
// valid UTF-8; every reference read is one its platform's fetch takes.
func FuzzParse(f *testing.F) {
	fuzzcheck.AddFixtures(f, "cvdr")
	f.Add([]byte(`<searchRetrieveResponse><numberOfRecords>1</numberOfRecords><records><record><recordData><gzd><originalData><meta><owmskern>` +
		`<identifier>CVDR1_1</identifier></owmskern><owmsmantel><source resourceIdentifier="CVDR://2_1">x</source></owmsmantel>` +
		`<cvdripm><inwerkingtredingDatum>2020-01-01</inwerkingtredingDatum></cvdripm></meta></originalData></gzd></recordData></record></records></searchRetrieveResponse>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzcheck.Parse(t, "ParseSearch", func() (any, error) { return ParseSearch(body, "2020-06-01") })
		d, err := fuzzcheck.Parse(t, "ParseRegulation", func() (adapters.Document, error) { return ParseRegulation(body) })
		if err != nil {
			return
		}
		for _, r := range d.References {
			var err error
			switch r.Platform {
			case "bwb":
				_, err = bwb.ValidID(r.ID)
			case "cvdr":
				_, err = DocumentRequest(r.ID)
			case "ob":
				if !ob.IsDatedID(r.ID) {
					t.Fatalf("publication reference %q", r.ID)
				}
			default:
				t.Fatalf("reference to platform %q", r.Platform)
			}
			if err != nil {
				t.Fatalf("reference %+v is not one a fetch takes: %v", r, err)
			}
		}
	})
}
