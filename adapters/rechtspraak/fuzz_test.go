package rechtspraak

import (
	"testing"

	"github.com/besluitbron/besluitbron/internal/fuzzcheck"
)

// FuzzParse feeds every Rechtspraak answer parser the same bytes, seeded
// with the real payloads (fixtures/rechtspraak: Atom search feeds, a
// content document, two Waardelijsten): no panic, a clear error or the
// same result twice, valid UTF-8.
func FuzzParse(f *testing.F) {
	fuzzcheck.AddFixtures(f, "rechtspraak")
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, p := range []SearchParams{{Limit: 10}, {Type: "Conclusie", Limit: 100, Offset: 990}} {
			fuzzcheck.Parse(t, "ParseSearch", func() (any, error) { return ParseSearch(body, p) })
		}
		fuzzcheck.Parse(t, "ParseContent", func() (any, error) { return ParseContent(body) })
		fuzzcheck.Parse(t, "ParseList", func() (any, error) { return ParseList(body) })
	})
}
