package ori

import (
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/refcheck"
)

// Every id that tries to steer the request built from it out of the
// platform's route is refused by the id check and by each request
// builder that takes an id, with an error that names it.
func TestHostileIDsAreRefused(t *testing.T) {
	refcheck.Refuses(t, func(id string) error { _, err := DocumentRequest(id); return err }, "12345")
}

// Whatever id the request builder takes, the request it builds stays on
// the platform's route (adapters.RouteTarget, the in-process guard).
func FuzzIDRequestStaysOnRoute(f *testing.F) {
	f.Add("12345")
	for _, id := range refcheck.Hostile("12345") {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		req, err := DocumentRequest(id)
		if err != nil {
			return
		}
		if _, err := adapters.RouteTarget("ori", req); err != nil {
			t.Fatalf("%q is taken, but its request is not: %v", id, err)
		}
	})
}
