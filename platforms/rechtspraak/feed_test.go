package rechtspraak

import (
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fixture"
)

func TestFeedRequest(t *testing.T) {
	since := time.Date(2024, 3, 1, 10, 15, 30, 999, time.FixedZone("CET", 3600))
	until := time.Date(2024, 3, 2, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		p    FeedParams
		want string
	}{
		{"first page", FeedParams{Max: 1000},
			"/uitspraken/zoeken?from=0&max=1000&return=DOC&sort=ASC"},
		// Sent in UTC, cut to the second: 10:15:30 CET is 09:15:30Z.
		{"since", FeedParams{ModifiedSince: since, From: 3000, Max: 1000},
			"/uitspraken/zoeken?from=3000&max=1000&modified=2024-03-01T09%3A15%3A30&return=DOC&sort=ASC"},
		{"range", FeedParams{ModifiedSince: since, ModifiedUntil: until, Max: 10},
			"/uitspraken/zoeken?from=0&max=10&modified=2024-03-01T09%3A15%3A30&modified=2024-03-02T00%3A00%3A00&return=DOC&sort=ASC"},
		{"until alone", FeedParams{ModifiedUntil: until, Max: 10},
			"/uitspraken/zoeken?from=0&max=10&modified=1900-01-01T00%3A00%3A00&modified=2024-03-02T00%3A00%3A00&return=DOC&sort=ASC"},
		{"decision dates and type", FeedParams{DateFrom: "2020-01-01", DateTo: "2026-12-01", Type: "Conclusie", Max: 500},
			"/uitspraken/zoeken?date=2020-01-01&date=2026-12-01&from=0&max=500&return=DOC&sort=ASC&type=Conclusie"},
		{"all ECLIs", FeedParams{Max: 1, AllECLIs: true},
			"/uitspraken/zoeken?from=0&max=1&sort=ASC"},
	} {
		r, err := FeedRequest(c.p)
		if err != nil || r.Method != "GET" || r.Path != c.want {
			t.Errorf("%s: %+v %v\nwant %s", c.name, r, err, c.want)
		}
	}
	for _, c := range []struct {
		name string
		p    FeedParams
		says string
	}{
		{"max 0", FeedParams{}, "1 to 1000"},
		{"max 1001", FeedParams{Max: 1001}, "1 to 1000"},
		{"negative from", FeedParams{Max: 10, From: -1}, "0 or more"},
		{"bad type", FeedParams{Max: 10, Type: "Arrest"}, "Uitspraak or Conclusie"},
		{"inverted modified", FeedParams{Max: 10, ModifiedSince: until, ModifiedUntil: since}, "swap"},
		{"modified before 1900", FeedParams{Max: 10, ModifiedSince: time.Date(1899, 1, 1, 0, 0, 0, 0, time.UTC)}, "1900"},
		{"bad date", FeedParams{Max: 10, DateFrom: "01-01-2020", DateTo: "2021-01-01"}, "YYYY-MM-DD"},
		{"inverted dates", FeedParams{Max: 10, DateFrom: "2022-01-01", DateTo: "2021-01-01"}, "swap"},
		{"date from alone", FeedParams{Max: 10, DateFrom: "2022-01-01"}, "today"},
	} {
		if _, err := FeedRequest(c.p); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.says)
		}
	}
}

func TestParseFeedFixtures(t *testing.T) {
	f, err := ParseFeed(fixture.Read(t, "rechtspraak", "zoeken.atom.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Total != 3199182 || len(f.Entries) != 3 || f.Skipped != 0 {
		t.Fatalf("feed = %+v", f)
	}
	want := FeedEntry{
		ECLI:     "ECLI:NL:RBARN:1998:AA1005",
		Title:    "ECLI:NL:RBARN:1998:AA1005, Rechtbank Arnhem, 07-12-1998, 98/2137 98/2138",
		Court:    "Rechtbank Arnhem",
		Date:     "1998-12-07",
		Modified: time.Date(2013, 4, 4, 15, 31, 27, 0, time.UTC),
	}
	if f.Entries[0] != want {
		t.Fatalf("entry 0 = %+v\nwant      %+v", f.Entries[0], want)
	}
	if e := f.Entries[2]; e.ECLI != "ECLI:NL:RBLEE:1999:AA1052" || e.Court != "Rechtbank Leeuwarden" || e.Date != "1999-10-20" {
		t.Fatalf("entry 2 = %+v", e)
	}
	empty, err := ParseFeed(fixture.Read(t, "rechtspraak", "zoeken-empty.atom.xml"))
	if err != nil || empty.Total != 3199182 || len(empty.Entries) != 0 || empty.Entries == nil {
		t.Fatalf("empty = %+v, %v", empty, err)
	}
}

// The real feed's first entry, rewritten into each case.
func TestParseFeedEntries(t *testing.T) {
	real := string(fixture.Read(t, "rechtspraak", "zoeken.atom.xml"))
	const entry0 = `<entry><id>ECLI:NL:RBARN:1998:AA1005</id><title type="text">ECLI:NL:RBARN:1998:AA1005, Rechtbank Arnhem, 07-12-1998, 98/2137 98/2138</title><summary type="text">-</summary><updated>2013-04-04T15:31:27Z</updated>`
	if !strings.Contains(real, entry0) {
		t.Fatal("fixture changed; update the test")
	}
	first := func(t *testing.T, replacement string) FeedEntry {
		t.Helper()
		f, err := ParseFeed([]byte(strings.Replace(real, entry0, replacement, 1)))
		if err != nil || len(f.Entries) == 0 {
			t.Fatalf("%+v %v", f, err)
		}
		return f.Entries[0]
	}
	for _, c := range []struct {
		name, title, court, date string
	}{
		{"no case number", "ECLI:NL:RBARN:1998:AA1005, Rechtbank Arnhem, 07-12-1998", "Rechtbank Arnhem", "1998-12-07"},
		{"court only", "ECLI:NL:RBARN:1998:AA1005, Rechtbank Arnhem", "Rechtbank Arnhem", ""},
		{"ECLI only", "ECLI:NL:RBARN:1998:AA1005", "", ""},
		{"empty", "", "", ""},
		{"no ECLI", "Rechtbank Arnhem, 07-12-1998, 98/2137", "Rechtbank Arnhem", "1998-12-07"},
		{"court with commas", "ECLI:NL:OGHACMB:2021:12, Gemeenschappelijk Hof van Justitie van Aruba, Curaçao, Sint Maarten en van Bonaire, Sint Eustatius en Saba, 02-03-2021, HAR2020/1",
			"Gemeenschappelijk Hof van Justitie van Aruba, Curaçao, Sint Maarten en van Bonaire, Sint Eustatius en Saba", "2021-03-02"},
		{"impossible date", "ECLI:NL:RBARN:1998:AA1005, Rechtbank Arnhem, 31-02-1998, 98/2137", "Rechtbank Arnhem", ""},
		{"ISO date", "ECLI:NL:RBARN:1998:AA1005, Rechtbank Arnhem, 1998-12-07, 98/2137", "Rechtbank Arnhem", ""},
	} {
		e := first(t, `<entry><id>ECLI:NL:RBARN:1998:AA1005</id><title type="text">`+c.title+`</title><summary>-</summary><updated>2013-04-04T15:31:27Z</updated>`)
		if e.Court != c.court || e.Date != c.date {
			t.Errorf("%s: court %q date %q, want %q %q", c.name, e.Court, e.Date, c.court, c.date)
		}
	}
	// Tombstones, a summary, a conclusie, a lower-case ECLI, odd updated.
	e := first(t, `<entry deleted="doc"><id>ecli:nl:phr:2023:512</id><title>ECLI:NL:PHR:2023:512, Parket bij de Hoge Raad, 12-05-2023, 22/01234</title><summary type="text">
		Stikstof.   Vergunning voor een boerderij.</summary><updated>2023-05-29T15:58:50+02:00</updated>`)
	if !e.Deleted || e.ECLI != "ECLI:NL:PHR:2023:512" || e.Type != KindConclusie || e.Summary != "Stikstof. Vergunning voor een boerderij." ||
		e.Court != "Parket bij de Hoge Raad" || !e.Modified.Equal(time.Date(2023, 5, 29, 13, 58, 50, 0, time.UTC)) || e.Modified.Location() != time.UTC {
		t.Errorf("tombstone = %+v", e)
	}
	if e := first(t, `<entry deleted="ecli"><id>ECLI:NL:HR:2020:1</id><updated>2020-01-02T03:04:05</updated>`); !e.Deleted || e.Type != "" ||
		!e.Modified.Equal(time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)) || e.Title != "" {
		t.Errorf("bare tombstone = %+v", e)
	}
	if e := first(t, `<entry><id>ECLI:NL:HR:2020:1</id><updated>gisteren</updated>`); !e.Modified.IsZero() || e.Deleted {
		t.Errorf("bad updated = %+v", e)
	}
	// An id that is no ECLI is counted, not indexed.
	f, err := ParseFeed([]byte(strings.Replace(real, "<id>ECLI:NL:RBARN:1998:AA1005</id>", "<id>AA1005</id>", 1)))
	if err != nil || len(f.Entries) != 2 || f.Skipped != 1 {
		t.Errorf("bad id: %+v %v", f, err)
	}
	// Long fields are cut.
	long := strings.Repeat("stikstof ", 2000)
	if e := first(t, `<entry><id>ECLI:NL:HR:2020:1</id><title>`+long+`</title><summary>`+long+`</summary>`); len([]rune(e.Title)) > maxFeedTitle || len([]rune(e.Summary)) > maxFeedSummary {
		t.Errorf("title %d, summary %d runes", len([]rune(e.Title)), len([]rune(e.Summary)))
	}
}

func TestParseFeedRefuses(t *testing.T) {
	real := fixture.Read(t, "rechtspraak", "zoeken.atom.xml")
	for _, c := range []struct {
		name string
		body []byte
	}{
		{"html", []byte("<html><body>Server Error in '/' Application.</body></html>")},
		{"not XML", []byte("Aantal gevonden ECLI's: 12")},
		{"empty", nil},
		{"cut short", real[:len(real)/2]},
		{"too big", append(append([]byte{}, real...), make([]byte, MaxFeedBytes)...)},
	} {
		if _, err := ParseFeed(c.body); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
	// No count in the subtitle: Total is unknown, not zero.
	f, err := ParseFeed([]byte(strings.Replace(string(real), "Aantal gevonden ECLI's: 3199182", "Rechtspraak", 1)))
	if err != nil || f.Total != -1 || len(f.Entries) != 3 {
		t.Errorf("no count: %+v %v", f, err)
	}
}
