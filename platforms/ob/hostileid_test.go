package ob

import (
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/refcheck"
)

// Every id that tries to steer the request built from it out of the
// platform's route is refused by the id check and by each request
// builder that takes an id, with an error that names it.
func TestHostileIDsAreRefused(t *testing.T) {
	refcheck.Refuses(t, func(id string) error { _, err := ValidID(id); return err }, "kst-26100-1")
	refcheck.Refuses(t, func(id string) error { _, err := ValidID(id); return err }, "h-tk-20232024-12-3")
}

// Whatever id ValidID takes, the lookup it makes stays on the platform's
// route.
func FuzzIDRequestStaysOnRoute(f *testing.F) {
	f.Add("kst-26100-1")
	for _, id := range refcheck.Hostile("kst-26100-1") {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		req, err := LookupRequest(id)
		if err != nil {
			return
		}
		if _, err := adapters.RouteTarget("ob", req); err != nil {
			t.Fatalf("%q is taken, but its request is not: %v", id, err)
		}
	})
}
