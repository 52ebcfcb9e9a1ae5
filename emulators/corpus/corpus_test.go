package corpus

import (
	"strings"
	"testing"
	"time"
)

func TestOrgsCounts(t *testing.T) {
	orgs := Orgs()
	if len(orgs) != 330 {
		t.Fatalf("len(Orgs()) = %d, want 330", len(orgs))
	}
	types := map[string]int{}
	sup := map[string]int{}
	keys := map[string]bool{}
	cbs := map[string]bool{}
	disc := 0
	for _, o := range orgs {
		types[o.Type]++
		sup[o.Supplier]++
		if keys[o.Key] {
			t.Errorf("duplicate key %q", o.Key)
		}
		keys[o.Key] = true
		if o.Key != strings.ToLower(o.Key) || strings.ContainsAny(o.Key, " '") || o.Key == "" {
			t.Errorf("bad key %q", o.Key)
		}
		if cbs[o.CBSID] {
			t.Errorf("duplicate CBS id %q", o.CBSID)
		}
		cbs[o.CBSID] = true
		if o.Discontinued {
			disc++
		}
	}
	if types[Gemeente] != 309 || types[Provincie] != 8 || types[Waterschap] != 13 {
		t.Errorf("types = %v", types)
	}
	want := map[string]int{IBabs: 166, Notubiz: 128, GemeenteOplossingen: 33, Parlaeus: 3}
	for s, n := range want {
		if sup[s] != n {
			t.Errorf("supplier %s: %d, want %d", s, sup[s], n)
		}
	}
	if disc != 10 {
		t.Errorf("discontinued = %d, want 10", disc)
	}
	for _, o := range orgs {
		if o.Discontinued {
			s, ok := OrgByKey(o.SucceededBy)
			if !ok || s.Discontinued {
				t.Errorf("%s succeeded by %q: not a current org", o.Key, o.SucceededBy)
			}
		}
	}
	for _, k := range []string{"soest", "noord-holland", "hhnk", "s-hertogenbosch", "sudwest-fryslan", "weesp", "den-haag"} {
		if !keys[k] {
			t.Errorf("missing key %q", k)
		}
	}
	if o, _ := OrgByKey("soest"); o.Supplier != Notubiz || o.CBSID != "GM0342" {
		t.Errorf("soest = %+v", o)
	}
}

func TestRandStable(t *testing.T) {
	a := Rand(1, "doc", 7).Uint64()
	b := Rand(1, "doc", 7).Uint64()
	c := Rand(1, "doc7").Uint64()
	d := Rand(2, "doc", 7).Uint64()
	if a != b || a == c || a == d {
		t.Fatalf("a=%d b=%d c=%d d=%d", a, b, c, d)
	}
	if Paragraphs(Rand(5, 1), 3) != Paragraphs(Rand(5, 1), 3) {
		t.Fatal("Paragraphs not deterministic")
	}
}

func TestText(t *testing.T) {
	r := Rand(1)
	if n := len(strings.Fields(Words(r, 12))); n != 12 {
		t.Errorf("Words: %d words", n)
	}
	s := Sentence(r)
	if !strings.HasSuffix(s, ".") || strings.ToUpper(s[:1]) != s[:1] {
		t.Errorf("Sentence %q", s)
	}
	if p := Paragraphs(r, 40); len(p) < 10000 {
		t.Errorf("40 paragraphs only %d bytes", len(p))
	}
	if PersonName(r) == "" || Title(r) == "" {
		t.Error("empty name or title")
	}
	from := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 100; i++ {
		d := Date(r, from, to)
		if d.Before(from) || !d.Before(to) {
			t.Fatalf("Date %v outside range", d)
		}
	}
	if got := DutchDate(time.Date(2024, 11, 7, 0, 0, 0, 0, time.UTC)); got != "7 november 2024" {
		t.Errorf("DutchDate = %q", got)
	}
	if Slug("'s-Hertogenbosch") != "s-hertogenbosch" || Slug("Súdwest-Fryslân") != "sudwest-fryslan" || Slug("Aa en Hunze") != "aa-en-hunze" {
		t.Error("Slug")
	}
}
