package adapters

import (
	"testing"
	"unicode/utf8"

	"github.com/yosida95/uritemplate/v3"
)

// The templates the platform packages declare (adapters/*/surface.go),
// then forms the fast expansion must expand as the library does or leave
// to it.
var expandTemplates = []string{
	"besluitbron://obv/{id}{?page}", "besluitbron://tk/document/{nummer}{?page}",
	"besluitbron://rechtspraak/{ecli}{?page}", "besluitbron://cvdr/{id}{?page}",
	"besluitbron://opentk/{category}/{id}{?page}", "besluitbron://bwb/{id}{?date,article,page}",
	"besluitbron://tk/entiteit/{guid}{?page}",
	// platformTemplates ends here.
	"besluitbron://x/{a,b}", "besluitbron://x/{+a}", "besluitbron://x/{a:3}", "besluitbron://x/{/a}",
	"besluitbron://x/{?a*}", "besluitbron://x/{&a}", "besluitbron://x/{", "besluitbron://x/}",
}

const platformTemplates = 7

// libraryExpand is the library's expansion, as ExpandURI did it alone.
func libraryExpand(t testing.TB, template string, vars map[string]string) (string, bool) {
	tp, err := uritemplate.New(template)
	if err != nil {
		return "", false
	}
	vs := uritemplate.Values{}
	for k, v := range vars {
		if v != "" {
			vs.Set(k, uritemplate.String(v))
		}
	}
	u, err := tp.Expand(vs)
	return u, err == nil
}

// On values of printable ASCII the expansion is the library's, byte for
// byte; on any value, the library's Match reads each value back from it.
func FuzzExpandURI(f *testing.F) {
	for i := range expandTemplates {
		f.Add(i, "document:notubiz:gemeente:soest:12345", "2", "")
		f.Add(i, "café ☕ a/b?c#d", "", "x y")
		f.Add(i, "a\u202eb\x00", "%41", "&=+")
	}
	f.Fuzz(func(t *testing.T, i int, a, b, c string) {
		n := int(uint(i) % uint(len(expandTemplates)))
		template := expandTemplates[n]
		if !utf8.ValidString(a) || !utf8.ValidString(b) || !utf8.ValidString(c) {
			return // the platforms' ids and dates are text
		}
		vars := map[string]string{}
		for k, v := range map[string]string{"id": a, "nummer": a, "ecli": a, "guid": a, "category": b, "a": a, "b": b, "page": b, "date": c, "article": c} {
			vars[k] = v
		}
		got, ok := expandSimple(template, vars)
		want, libOK := libraryExpand(t, template, vars)
		if !ok {
			return // left to the library
		}
		if !libOK {
			t.Fatalf("%s: expanded %q where the library refuses the template", template, got)
		}
		if ascii(a) && ascii(b) && ascii(c) && got != want {
			t.Fatalf("%s %q: %q, the library %q", template, vars, got, want)
		}
		if n >= platformTemplates {
			return // two variables in one expression do not read back apart
		}
		tp := uritemplate.MustNew(template)
		m := tp.Match(got)
		if m == nil {
			t.Fatalf("%s: the library does not match %q", template, got)
		}
		for _, name := range tp.Varnames() {
			if v := vars[name]; m.Get(name).String() != v {
				t.Fatalf("%s: %s=%q reads back as %q from %q", template, name, v, m.Get(name).String(), got)
			}
		}
	})
}

// The library's bug the fast expansion exists for: a character outside
// ASCII is encoded by its UTF-8 bytes, and reads back as itself.
func TestExpandURIEncodesUTF8(t *testing.T) {
	u, err := ExpandURI("besluitbron://obv/{id}{?page}", map[string]string{"id": "document:ibabs:gemeente:súdwest-fryslân:é1", "page": "2"})
	if err != nil || u != "besluitbron://obv/document%3Aibabs%3Agemeente%3As%C3%BAdwest-frysl%C3%A2n%3A%C3%A91?page=2" {
		t.Fatalf("%q, %v", u, err)
	}
	if lib, _ := libraryExpand(t, "besluitbron://obv/{id}", map[string]string{"id": "é"}); lib == "besluitbron://obv/%C3%A9" {
		t.Log("the library now encodes UTF-8: expandSimple may go (adapters/expand.go)")
	}
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
