package platforms

import (
	"strings"
	"testing"
)

type testProvider Platform

func (p testProvider) Platform() Platform { return Platform(p) }

// withTable runs f on a table of its own, and puts the registered one back.
func withTable(t *testing.T, f func()) {
	t.Helper()
	saved := table.Load()
	table.Store(nil)
	defer table.Store(saved)
	f()
}

func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), want) {
			t.Errorf("panic %v, want one that says %q", r, want)
		}
	}()
	f()
}

// A platform registers itself once, with a whole row; the table lists
// the platforms by Order, then key, whatever order their inits ran in.
func TestRegister(t *testing.T) {
	withTable(t, func() {
		Register(testProvider{Key: "zeta", Name: "Z", BaseURLs: []string{"https://z.example"}, Order: 5})
		Register(testProvider{Key: "beta", Name: "B", BaseURLs: []string{"https://b.example"}, Order: 5})
		Register(testProvider{Key: "alpha", Name: "A", BaseURLs: []string{"https://a.example"}, Order: 9})
		if got := strings.Join(Keys(), ","); got != "beta,zeta,alpha" {
			t.Errorf("Keys() = %s, want beta,zeta,alpha", got)
		}
		if p, ok := ProviderOf("zeta"); !ok || p.Platform().Name != "Z" {
			t.Errorf("ProviderOf(zeta) = %v, %v", p, ok)
		}
		if !Known("alpha") || Known("gamma") {
			t.Error("Known does not follow the registrations")
		}
		mustPanic(t, "registered twice", func() {
			Register(testProvider{Key: "beta", Name: "B2", BaseURLs: []string{"https://b2.example"}})
		})
		mustPanic(t, "no base URL", func() { Register(testProvider{Key: "gamma", Name: "G"}) })
		mustPanic(t, "want lower-case", func() {
			Register(testProvider{Key: "Gamma/x", Name: "G", BaseURLs: []string{"https://g.example"}})
		})
		mustPanic(t, "without a key", func() { Register(testProvider{Name: "G"}) })
		if len(Keys()) != 3 {
			t.Errorf("a refused registration changed the table: %v", Keys())
		}
	})
}

// A caller's copy of a row is its own: changing it changes no one else's.
func TestRegisteredRowsAreCopies(t *testing.T) {
	withTable(t, func() {
		row := Platform{Key: "alpha", Name: "A", BaseURLs: []string{"https://a.example"}}
		Register(testProvider(row))
		row.BaseURLs[0] = "https://elsewhere.example"
		got, _ := Get("alpha")
		if got.BaseURLs[0] != "https://a.example" {
			t.Errorf("the registered row follows the caller's slice: %v", got.BaseURLs)
		}
	})
}
