package adapters

import (
	"strings"
	"testing"
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
	}
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
