package registry

import (
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/caddymodule/platforms"
)

// Every platform of the table is registered with every piece the
// surfaces dispatch to, and nothing is registered that the table lacks:
// a new platform cannot be left out of the fan-out, the reader or the
// live check by accident.
func TestEveryPlatformHasItsSurface(t *testing.T) {
	surfaces := Surfaces(Settings{OpenTKText: true})
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
