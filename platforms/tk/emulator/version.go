package emulator

import "strings"

// apiVersion is one OData version the emulator serves over the same rows.
// The Kamer runs a new version since 2026-06-12 with renamed and dropped
// attributes (OpenDataPortaal issue 175); the old one was kept open until
// 2026-10-01. Serving both lets the adapter be tested against each.
type apiVersion struct {
	// prefix is the service root below the host.
	prefix string
	// maxTop is the most rows one answer holds.
	maxTop int
	// strictTop answers 400 to a $top above maxTop (v5, reported by a
	// third party); v4 serves maxTop rows and a nextLink instead.
	strictTop bool
	// reverseDefault orders rows without $orderby differently from v4: the
	// Kamer announced a new default order but not which, so the emulator
	// takes the reverse of v4's, and a client that relies on the default
	// order fails its tests.
	reverseDefault bool
	types          []*entityType
	byName         map[string]*entityType
}

func newVersion(v apiVersion) *apiVersion {
	v.byName = map[string]*entityType{}
	for _, t := range v.types {
		v.byName[t.name] = t
	}
	return &v
}

func (v *apiVersion) typeByName(name string) *entityType { return v.byName[name] }

// OData roots the emulator serves.
const (
	RootV4 = "/OData/v4/2.0"
	RootV5 = "/OData/v5"
)

// MaxTopV5 is the most rows one v5 answer holds; a larger $top answers 400.
const MaxTopV5 = 100

var (
	odataV4 = newVersion(apiVersion{prefix: RootV4, maxTop: MaxTop, types: setOrder})
	odataV5 = newVersion(apiVersion{prefix: RootV5, maxTop: MaxTopV5, strictTop: true, reverseDefault: true, types: v5Types()})
	// versions in the order ServeHTTP tries their prefixes.
	versions = []*apiVersion{odataV4, odataV5}
)

// v5Types are the v4 types with the renames a third-party client made when
// it moved to v5 in June 2026 (docs/emulators.md, Tweede Kamer):
// Document.DocumentNummer → Nummer, Document.Volgnummer → Ondernummer with
// -1 for "no value", Document.DatumRegistratie dropped. No other rename is
// known, so the other types stay as in v4.
func v5Types() []*entityType {
	out := make([]*entityType, len(setOrder))
	for i, t := range setOrder {
		if t != tDocument {
			out[i] = t
			continue
		}
		out[i] = view(t, map[string]string{"DocumentNummer": "Nummer", "Volgnummer": "Ondernummer"},
			map[string]bool{"DatumRegistratie": true},
			map[string]func(any) any{"Ondernummer": func(v any) any {
				if v == nil {
					return -1
				}
				return v
			}})
	}
	return out
}

// view derives an entity type that reads base's rows under other names:
// renamed props keep their place, dropped ones disappear, conv turns a
// stored value into the view's (by the view's name).
func view(base *entityType, rename map[string]string, drop map[string]bool, conv map[string]func(any) any) *entityType {
	t := &entityType{name: base.name, pos: map[string]int{}}
	for c, p := range base.props {
		if drop[p.name] {
			continue
		}
		name := p.name
		if n, ok := rename[name]; ok {
			name = n
		}
		t.pos[name] = len(t.props)
		t.props = append(t.props, prop{name, p.kind})
		t.col = append(t.col, c)
		t.conv = append(t.conv, conv[name])
	}
	return t
}

// versionOf finds the OData version whose root p is at or below, and the
// rest of the path after the root.
func versionOf(p string) (*apiVersion, string, bool) {
	for _, v := range versions {
		if p == v.prefix || strings.HasPrefix(p, v.prefix+"/") {
			return v, strings.TrimPrefix(strings.TrimPrefix(p, v.prefix), "/"), true
		}
	}
	return nil, "", false
}
