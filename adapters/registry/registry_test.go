package registry

import (
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
)

// Every platform of the table is registered with every piece the
// surfaces dispatch to, and nothing is registered that the table lacks:
// a new platform cannot be left out of the fan-out, the reader or the
// live check by accident.
func TestEveryPlatformHasItsSurface(t *testing.T) {
	surfaces := Surfaces(Settings{Offered: []string{platforms.OpenTK}})
	for _, k := range platforms.Keys() {
		s, ok := surfaces[k]
		if !ok {
			t.Errorf("platform %s is not registered in registry.go", k)
			continue
		}
		if s.Unfit == nil || s.Search == nil {
			t.Errorf("platform %s: its surface has no Unfit or Search: the fan-out cannot ask it", k)
		}
		if (s.Fetch == nil) == (s.Unreadable == "") {
			t.Errorf("platform %s: its surface needs a Fetch or, instead, the reason it is Unreadable", k)
		}
		if s.Probe == nil {
			t.Errorf("platform %s: its surface has no Probe for the live check", k)
			continue
		}
		p, err := s.Probe(adapters.ProbeConfig{})
		if err != nil || p.Name == "" || p.Request.Path == "" || p.Ext == "" {
			t.Errorf("platform %s: its probe %+v is incomplete (%v)", k, p, err)
		}
		if len(p.Samples) == 0 && p.Documented == nil && p.DocSource == "" {
			t.Errorf("platform %s: its probe says nothing of what its answer is held against", k)
		}
	}
	for k := range surfaces {
		if _, ok := platforms.Get(k); !ok {
			t.Errorf("surface registered for %q, which is not in the table", k)
		}
	}
}

// Each platform recognizes its own references and no other's, so a
// prompt may ask them in any order: a reference is the one platform's
// that takes it, or nobody's.
func TestRecognizersAreDisjoint(t *testing.T) {
	owners := map[string]string{
		"ECLI:NL:HR:2014:952": platforms.Rechtspraak, "ecli:nl:hr:2014:952": platforms.Rechtspraak,
		"BWBR0005537": platforms.BWB, "bwbv0001000": platforms.BWB,
		"CVDR100394_2": platforms.CVDR, "112779_1": platforms.CVDR, "CVDR100394/2": platforms.CVDR,
		"stb-2018-84": platforms.OB, "kst-36200-VII-12": platforms.OB, "h-tk-20232024-12-3": platforms.OB, "blg-1054321": platforms.OB,
		"Stb. 2018, 84": platforms.OB, "Kamerstukken II 2023/24, 36410, nr. 5": platforms.OB, "Handelingen II 2023/24, nr. 12, item 3": platforms.OB,
		"2023D41173": platforms.TK, "2023d41173": platforms.TK,
		"document:notubiz:gemeente:soest:12345": platforms.OBV, "meeting:notubiz:gemeente:putten:1423776": platforms.OBV,
		// Nobody's: a GUID, an ORI or OA id, a citation of a form no one
		// knows, words, nothing.
		"7a9b77f1-0000-4000-8000-000000000001": "", "1234567": "", "obv-gm0363-5a8f1e2c": "", "artikel 149 Gemeentewet": "",
		"Verordening, Soest (CVDR101010/2)": "", "de begroting 2024": "", "": "", " ": "", strings.Repeat("x", 300): "",
	}
	surfaces := Surfaces(Settings{Offered: []string{platforms.OpenTK}})
	for ref, want := range owners {
		var takers []string
		for _, k := range platforms.Keys() {
			if r := surfaces[k].Recognize; r != nil {
				if id, ok := r(ref); ok {
					takers = append(takers, k+" ("+id+")")
				} else if id != "" {
					t.Errorf("%s refuses %q, yet gives the id %q", k, ref, id)
				}
			}
		}
		switch {
		case want == "" && len(takers) > 0:
			t.Errorf("%q is taken by %v: it is nobody's", ref, takers)
		case want != "" && (len(takers) != 1 || !strings.HasPrefix(takers[0], want+" ")):
			t.Errorf("%q is taken by %v, want %s alone", ref, takers, want)
		}
	}
}
