package adapters

import (
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/refcheck"
)

func TestDutchDate(t *testing.T) {
	for in, want := range map[string]string{
		"2024-01-12": "12 januari 2024", "2023-10-03": "3 oktober 2023", "1998-12-07": "7 december 1998",
		" 2016-05-31 ": "31 mei 2016",
		"":             "", "2024-13-01": "", "2024-02-30": "", "12-01-2024": "", "2024-01-12T10:00:00": "", "7 november 2024": "", "2024-1-2": "",
	} {
		if got := DutchDate(in); got != want {
			t.Errorf("DutchDate(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestVergaderjaar(t *testing.T) {
	for in, want := range map[string]string{
		"2023-2024": "2023/24", "2022-2023": "2022/23", "2023/2024": "2023/24", "20232024": "2023/24", "2023/24": "2023/24",
		"1999-2000": "1999/00", "1999/00": "1999/00", " 2019 - 2020 ": "2019/20",
		"": "", "2023": "", "2023-2025": "", "2024-2023": "", "2023/25": "", "abcd-efgh": "", "2023-2024-2025": "", "0999-1000": "",
	} {
		if got := Vergaderjaar(in); got != want {
			t.Errorf("Vergaderjaar(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPublicationCitation(t *testing.T) {
	for in, want := range map[string]string{
		"stb-2018-84": "Stb. 2018, 84", "stcrt-2015-47076": "Stcrt. 2015, 47076", "gmb-2016-146361": "Gmb. 2016, 146361",
		"GMB-2023-174296": "Gmb. 2023, 174296", "prb-2020-1234": "Prb. 2020, 1234", "wsb-2021-99": "Wsb. 2021, 99",
		"bgr-2022-7": "Bgr. 2022, 7", "trb-2019-120": "Trb. 2019, 120",
		"": "", "stb-": "", "stb-2018": "", "stb-2018-": "", "stb-2018-084": "", "stb-2018-84-n1": "", "kst-36410-5": "",
		"xyz-2018-84": "", "stb-18-84": "", "stb-2018-8a": "", "stb-2018-84 ": "Stb. 2018, 84", "stb-2018-" + strings.Repeat("9", 40): "",
	} {
		if got := PublicationCitation(in); got != want {
			t.Errorf("PublicationCitation(%q) = %q, want %q", in, got, want)
		}
		// Every citation written reads back to its identifier.
		if id, ok := ParsePublicationCitation(want); want != "" && (!ok || id != strings.ToLower(strings.TrimSpace(in))) {
			t.Errorf("ParsePublicationCitation(%q) = %q, %v; want %q", want, id, ok, in)
		}
	}
}

// Citations of the numbered series as people write them.
func TestParsePublicationCitation(t *testing.T) {
	refcheck.Check(t, ParsePublicationCitation, map[string]string{
		"Stb. 2018, 84": "stb-2018-84", "Gmb. 2016, 146361": "gmb-2016-146361", "Stcrt. 2006, nr. 73": "stcrt-2006-73",
		"Stcrt. 2006, nr 73": "stcrt-2006-73", "stb 2018 84": "stb-2018-84", "STB. 2018, 84": "stb-2018-84", "Trb.2019,120": "trb-2019-120",
		" Bgr. 2023, 77 ": "bgr-2023-77", "wsb. 2022, 12": "wsb-2022-12", "Prb. 2021, 5678": "prb-2021-5678",
		// Not a numbered series, not a number, a leading zero (no identifier has one), or more.
		"": "", " ": "", "\t\n": "", "Kst. 2018, 84": "", "Xyz. 2018, 84": "", "Stb. 2018": "", "Stb. 2018, 084": "", "Stb. 2018, 0": "",
		"Stb. 18, 84": "", "Stb. 2018, 84a": "", "Stb. 2018, 84, 85": "", "stb-2018-84": "", "Stb. 2018, 84 en Stb. 2019, 1": "",
		"Stb. 2018, " + strings.Repeat("9", 300): "", strings.Repeat("Stb. ", 60): "",
	})
}

func TestKamerstuk(t *testing.T) {
	for _, c := range []struct{ id, chamber, vj, want string }{
		{"kst-36410-5", "II", "2023-2024", "Kamerstukken II 2023/24, 36410, nr. 5"},
		{"kst-36200-VII-12", "II", "2023-2024", "Kamerstukken II 2023/24, 36200 VII, nr. 12"},
		{"kst-36200-vii-12", "II", "2023-2024", "Kamerstukken II 2023/24, 36200 VII, nr. 12"},
		{"kst-21501-20-1234", "II", "2019-2020", "Kamerstukken II 2019/20, 21501-20, nr. 1234"},
		{"kst-36128-R2166-3", "II", "2022-2023", "Kamerstukken II 2022/23, 36128 (R2166), nr. 3"},
		{"kst-35979-H", "I", "2022-2023", "Kamerstukken I 2022/23, 35979, H"},
		{"kst-36200-A-5", "II", "", "Kamerstukken II, 36200 A, nr. 5"},
		{"kst-26100-1", "", "", "Kamerstukken, 26100, nr. 1"},
		{"kst-26100-1", "II", "2023", "Kamerstukken II, 26100, nr. 1"},
		{"kst-26100-1-n1", "II", "2023-2024", ""},
		{"kst-", "II", "2023-2024", ""},
		{"kst--", "II", "2023-2024", ""},
		{"kst---", "II", "2023-2024", ""},
		{"kst-36410-0", "II", "", ""},
		{"kst-36410-05", "II", "", ""},
		{"kst-36410", "II", "", ""},
		{"stb-2018-84", "II", "", ""},
		{"kst-" + strings.Repeat("1", 60) + "-1", "II", "", ""},
		{"kst-36410-5-" + strings.Repeat("x", 60), "II", "", ""},
		{"", "", "", ""},
	} {
		k, ok := ParseKamerstuk(c.id)
		got := ""
		if ok {
			got = KamerstukCitation(c.chamber, c.vj, k)
		}
		if got != c.want {
			t.Errorf("%s (%s, %s): %q, want %q", c.id, c.chamber, c.vj, got, c.want)
		}
		if !ok {
			continue
		}
		if k.ID() != strings.TrimSpace(c.id) {
			t.Errorf("ParseKamerstuk(%q).ID() = %q", c.id, k.ID())
		}
		// Every citation written reads back to its kamerstuk, in the
		// case the citation writes.
		up := Kamerstuk{Dossier: k.Dossier, Addition: strings.ToUpper(k.Addition), Number: strings.ToUpper(k.Number)}
		if back, ok := ParseKamerstukCitation(got); got != "" && (!ok || back != up) {
			t.Errorf("ParseKamerstukCitation(%q) = %+v, %v; want %+v", got, back, ok, up)
		}
	}
	if got := KamerstukCitation("II", "2023-2024", Kamerstuk{}); got != "" {
		t.Errorf("empty kamerstuk cited as %q", got)
	}
	for org, want := range map[string]string{"Tweede Kamer der Staten-Generaal": "II", "Eerste Kamer der Staten-Generaal": "I", "Tweede Kamer": "II", "Bergeijk": "", "": ""} {
		if got := Chamber(org); got != want {
			t.Errorf("Chamber(%q) = %q", org, got)
		}
	}
}

// Kamerstukken as people cite them, to their identifiers.
func TestParseKamerstukCitation(t *testing.T) {
	id := func(s string) (string, bool) {
		k, ok := ParseKamerstukCitation(s)
		if !ok {
			if k != (Kamerstuk{}) {
				t.Errorf("%q refused, yet read as %+v", s, k)
			}
			return "", false
		}
		return k.ID(), true
	}
	refcheck.Check(t, id, map[string]string{
		"Kamerstukken II 2023/24, 36410, nr. 5":         "kst-36410-5",
		"Kamerstukken II 2023/24, 36200 VII, nr. 12":    "kst-36200-VII-12",
		"kamerstukken ii 2023/24, 36200 vii, nr. 12":    "kst-36200-VII-12",
		"KAMERSTUKKEN II 2023/2024, 36200-VII, NR 12":   "kst-36200-VII-12",
		"Kamerstukken II 2023-2024, 36410, nr. 5":       "kst-36410-5",
		"Kamerstukken II 2023, 36410, nr. 5":            "kst-36410-5",
		"Kamerstuken II 2023/24, 36410, nr. 5":          "kst-36410-5",
		"Kamerstukken I 2022/23, 35979, H":              "kst-35979-H",
		"Kamerstukken II 2019/20, 21501-20, nr. 1234":   "kst-21501-20-1234",
		"Kamerstukken II 2022/23, 36128 (R2166), nr. 3": "kst-36128-R2166-3",
		"Kamerstukken II, 36410, nr. 5":                 "kst-36410-5",
		"Kamerstukken, 26100, nr. 1":                    "kst-26100-1",
		"  Kamerstukken II 2023/24 , 36410 , nr.5  ":    "kst-36410-5",
		// Not a kamerstuk: no dossier or number, a leading zero, a word.
		"": "", " ": "", "\t": "", "Kamerstukken": "", "Kamerstukken II 2023/24, 36410": "", "Kamerstukken II 2023/24, nr. 5": "",
		"Kamerstukken II 2023/24, 36410, nr. 0": "", "Kamerstukken II 2023/24, 36410, nr. 05": "", "Kamerstukken II 2023/24, 06410, nr. 5": "",
		"Kamerstukken II 2023/24, 36410, nr": "", "Kamerstukken III 2023/24, 36410, nr. 5": "", "Handelingen II 2023/24, 36410, nr. 5": "",
		"Kamerstukken II 2023/24, 36410, nr. 5, p. 3": "", "kst-36410-5": "", "Stb. 2018, 84": "",
		"Kamerstukken II 2023/24, 36410, nr. " + strings.Repeat("5", 300): "", strings.Repeat("Kamerstukken ", 25): "",
	})
}

func TestCouncilCitation(t *testing.T) {
	for _, c := range []struct{ org, title, day, want string }{
		{"Soest", "Raadsvoorstel begroting 2024", "2024-11-07", "Soest, Raadsvoorstel begroting 2024, 7 november 2024"},
		{"Soest", "Raadsvoorstel begroting 2024", "", "Soest, Raadsvoorstel begroting 2024"},
		{"", "Raadsvoorstel begroting 2024", "2024-11-07", "Raadsvoorstel begroting 2024, 7 november 2024"},
		{"Soest", "Soest: raadsvoorstel", "2024-11-07", "Soest: raadsvoorstel, 7 november 2024"},
		{"Soest", "Gemeente Soest, begroting", "2024-11-07", "Gemeente Soest, begroting, 7 november 2024"},
		{"Soest", "Soesterberg centrum", "2024-11-07", "Soest, Soesterberg centrum, 7 november 2024"},
		{" Soest ", "  Raadsvoorstel \n begroting ", "7 november 2024", "Soest, Raadsvoorstel begroting"},
		{"", "Raadsvoorstel", "", ""},
		{"Soest", "", "2024-11-07", ""},
		{"", "", "", ""},
	} {
		if got := CouncilCitation(c.org, c.title, c.day); got != c.want {
			t.Errorf("CouncilCitation(%q, %q, %q) = %q, want %q", c.org, c.title, c.day, got, c.want)
		}
	}
}

// TestFindKamerstuk: the kamerstuk an id or a link names, read as
// ParseKamerstuk reads it; a longer identifier, junk or nothing names none.
func TestFindKamerstuk(t *testing.T) {
	for in, want := range map[string]string{
		"kst-36200-VII-12": "kst-36200-VII-12",
		"https://zoek.officielebekendmakingen.nl/kst-36200-VII-12.html": "kst-36200-VII-12",
		"https://berthub.eu/tkconv/op/KST-36410-5?x=1":                  "kst-36410-5",
		"Kst-35979-H":                          "kst-35979-H",
		"zie kst-21501-20-1234 en kst-36410-5": "kst-21501-20-1234",
		"kst-26100-1-n1 then kst-26100-2":      "kst-26100-2",
		"kst-26100-1-n1":                       "",
		"https://zoek.officielebekendmakingen.nl/kst-26100-1-n1.html": "",
		"xkst-36410-5":                          "",
		"kst-06410-5":                           "",
		"kst-36410-05":                          "",
		"kst-":                                  "",
		"":                                      "",
		"kst-" + strings.Repeat("1", 300):       "",
		"kst-36410-" + strings.Repeat("5", 300): "",
		strings.Repeat("kst-", 100):             "",
		"stb-2018-84":                           "",
	} {
		k, ok := FindKamerstuk(in)
		if got := k.ID(); ok != (want != "") || ok && got != want {
			t.Errorf("FindKamerstuk(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
