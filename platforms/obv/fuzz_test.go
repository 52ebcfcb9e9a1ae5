package obv

import (
	"testing"

	"github.com/besluitbron/besluitbron/internal/fuzzcheck"
)

// FuzzParse feeds every OpenBesluitvorming answer parser the same bytes,
// seeded with the real payloads (fixtures/obv: the API docs' examples and
// the server's error bodies). Whatever a platform or a man in the middle
// sends, a parser returns a result or a clear error: no panic, the same
// answer twice, valid UTF-8.
func FuzzParse(f *testing.F) {
	fuzzcheck.AddFixtures(f, "obv")
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzcheck.Parse(t, "ParseSearch", func() (any, error) { return ParseSearch(body) })
		fuzzcheck.Parse(t, "ParseEntity", func() (any, error) { return ParseEntity(body) })
		fuzzcheck.Parse(t, "ParseMotionVotes", func() (any, error) { return ParseMotionVotes("motion:a:b:c:1", body) })
		fuzzcheck.Parse(t, "ParseSources", func() (any, error) { return ParseSources(body) })
		fuzzcheck.Parse(t, "ParseStatus", func() (any, error) { return ParseStatus(body) })
		fuzzcheck.Parse(t, "ParseSourceStatus", func() (any, error) { return ParseSourceStatus(body) })
	})
}
