package rechtspraak

import (
	"testing"
	"time"

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
		fuzzcheck.Parse(t, "ParseFeed", func() (any, error) { return ParseFeed(body) })
		fuzzcheck.Parse(t, "ParseContent", func() (any, error) { return ParseContent(body) })
		fuzzcheck.Parse(t, "ParseList", func() (any, error) { return ParseList(body) })
	})
}

// FuzzParseFeed feeds the harvest's parser, seeded with the real feeds
// (all Rechtspraak fixtures) and with the real feed's entry turned into a
// tombstone with a summary and an odd title: no panic, a clear error or
// the same result twice, valid UTF-8, and entries an index can take as
// they are (a valid ECLI, a real date or none, never the "-" summary).
func FuzzParseFeed(f *testing.F) {
	fuzzcheck.AddFixtures(f, "rechtspraak")
	f.Add([]byte(`<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><subtitle type="text">Aantal gevonden ECLI's: 2</subtitle>` +
		`<entry deleted="doc"><id>ECLI:NL:PHR:2023:512</id><title type="text">ECLI:NL:PHR:2023:512, Parket bij de Hoge Raad, 12-05-2023, 22/01234</title>` +
		`<summary type="text">Stikstof. Vergunning voor een boerderij.</summary><updated>2023-05-29T15:58:50Z</updated></entry>` +
		`<entry deleted="ecli"><id>ecli:nl:hr:2020:1</id><title>Hoge Raad, 31-02-2020</title><updated>2020-01-02T03:04:05</updated></entry></feed>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		feed, err := fuzzcheck.Parse(t, "ParseFeed", func() (Feed, error) { return ParseFeed(body) })
		if err != nil {
			return
		}
		for _, e := range feed.Entries {
			if _, err := ValidECLI(e.ECLI); err != nil || e.Summary == "-" {
				t.Fatalf("entry %+v", e)
			}
			if _, err := time.Parse(time.DateOnly, e.Date); e.Date != "" && err != nil {
				t.Fatalf("date %q", e.Date)
			}
		}
	})
}
