package tk

import (
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fuzzcheck"
)

// FuzzParse feeds every Tweede Kamer answer parser the same bytes, seeded
// with the real payloads (fixtures/tk: OData Besluit answers with nested
// Zaak and Document, Fractie/Persoon envelopes, a SyncFeed entry) and a
// $metadata document with the real v4 Document, Fractie and Commissie
// properties. The answers are read through entities resolved from that
// $metadata, as the tools do; a fuzzed $metadata is resolved too. No
// panic, a clear error or the same result twice, valid UTF-8.
func FuzzParse(f *testing.F) {
	types := map[string][]string{"Document": v4Document, "Commissie": commissie,
		"Fractie": {"Id", "Nummer", "Afkorting", "NaamNL", "NaamEN", "AantalZetels", "AantalStemmen", "DatumActief", "DatumInactief", "Verwijderd"}}
	md := csdl(types)
	f.Add(md)
	fuzzcheck.AddFixtures(f, "tk")
	meta, err := ParseMetadata(md)
	if err != nil {
		f.Fatal(err)
	}
	schema := NewSchema(legacyRoot, meta)
	var entities []*Entity
	for set := range types {
		e, err := schema.Entity(set)
		if err != nil {
			f.Fatal(err)
		}
		entities = append(entities, e)
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte) {
		if m, err := fuzzcheck.Parse(t, "ParseMetadata", func() (*Metadata, error) { return ParseMetadata(body) }); err == nil {
			s := NewSchema(DefaultRoot, m)
			for set := range types {
				fuzzcheck.Parse(t, "Schema.Entity", func() (*Entity, error) { return s.Entity(set) })
			}
		}
		for _, e := range entities {
			if l, err := fuzzcheck.Parse(t, "ParseList", func() (List, error) { return ParseList(e, body) }); err == nil {
				fuzzcheck.ValidUTF8(t, l.Items(true, now))
				fuzzcheck.ValidUTF8(t, l.Items(false, now))
			}
			fuzzcheck.Parse(t, "ParseDocument", func() (any, error) { return ParseDocument(e, body) })
		}
		fuzzcheck.Parse(t, "ParseFeedDocument", func() (any, error) { return ParseFeedDocument(body) })
		fuzzcheck.Parse(t, "ParseDocumentID", func() (any, error) { return ParseDocumentID(string(body)) })
	})
}
