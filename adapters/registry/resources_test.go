package registry

import (
	"strings"
	"testing"

	"github.com/yosida95/uritemplate/v3"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
)

// Every platform whose documents are read offers them as resources: its
// templates parse, live under besluitbron://<key>/, offer paging, have
// unique names, and the URI a hit gets matches one of them and gives
// back the hit's own reference, as a client reading it would send it.
func TestEveryReadablePlatformOffersItsDocumentsAsResources(t *testing.T) {
	names := map[string]string{}
	refs := map[string][2]string{ // a real reference of each platform: id, kind
		platforms.OBV: {"obv-gm0363-5a8f1e2c", ""}, platforms.TK: {"2023D41173", ""},
		platforms.OpenTK: {"2023D41173", "Document"}, platforms.OB: {"stb-2018-84", ""},
		platforms.Rechtspraak: {"ECLI:NL:HR:2014:952", ""}, platforms.ORI: {"1234567", ""},
		platforms.BWB: {"BWBR0005537", ""}, platforms.CVDR: {"CVDR101010/2", ""},
	}
	for key, s := range Surfaces(Settings{Offered: []string{platforms.OpenTK}}) {
		if s.Fetch == nil {
			if len(s.Resources) > 0 || s.URI != nil {
				t.Errorf("%s: unreadable, yet offers resources", key)
			}
			continue
		}
		if len(s.Resources) == 0 || s.URI == nil {
			t.Errorf("%s: readable, but offers no resource template or URI", key)
			continue
		}
		var tpls []*uritemplate.Template
		for _, k := range s.Resources {
			tpl, err := uritemplate.New(k.Template)
			switch {
			case err != nil:
				t.Errorf("%s: template %q: %v", key, k.Template, err)
				continue
			case !strings.HasPrefix(k.Template, adapters.Scheme+"://"+key+"/"):
				t.Errorf("%s: template %q is not under %s://%s/", key, k.Template, adapters.Scheme, key)
			case !strings.Contains(k.Template, adapters.PageVar):
				t.Errorf("%s: template %q offers no %s variable", key, k.Template, adapters.PageVar)
			case k.Read == nil || k.Name == "" || k.Title == "" || k.Description == "":
				t.Errorf("%s: kind %q lacks Read, Name, Title or Description", key, k.Template)
			}
			if other, dup := names[k.Name]; dup {
				t.Errorf("%s: kind name %q also used by %s", key, k.Name, other)
			}
			names[k.Name] = key
			tpls = append(tpls, tpl)
		}
		ref, ok := refs[key]
		if !ok {
			t.Errorf("%s: add a real reference of this platform to the test", key)
			continue
		}
		uri := s.URI(ref[0], ref[1])
		matched := false
		for _, tpl := range tpls {
			vals := tpl.Match(uri)
			if vals == nil {
				continue
			}
			matched = true
			found := false
			for _, name := range tpl.Varnames() {
				if vals.Get(name).String() == ref[0] {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: URI %q does not give back the reference %q (%v)", key, uri, ref[0], vals)
			}
		}
		if !matched {
			t.Errorf("%s: URI %q matches none of its templates", key, uri)
		}
	}
}
