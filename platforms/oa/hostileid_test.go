package oa

import (
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/refcheck"
)

// Every id that tries to steer the request built from it out of the
// platform's route is refused by the id check and by each request
// builder that takes an id, with an error that names it.
func TestHostileIDsAreRefused(t *testing.T) {
	refcheck.Refuses(t, func(id string) error { _, err := Endpoints{}.DocumentRequest(id); return err }, "nl.gm0344.doc.1")
	refcheck.Refuses(t, func(id string) error { _, err := Endpoints{}.TextRequest(id, 1); return err }, "nl.gm0344.doc.1")
}

// Whatever id the request builder takes, the request it builds stays on
// the platform's route (adapters.RouteTarget, the in-process guard).
func FuzzIDRequestStaysOnRoute(f *testing.F) {
	f.Add("nl.gm0344.doc.1")
	for _, id := range refcheck.Hostile("nl.gm0344.doc.1") {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		req, err := Endpoints{}.DocumentRequest(id)
		if err != nil {
			return
		}
		if _, err := adapters.RouteTarget("oa", req); err != nil {
			t.Fatalf("%q is taken, but its request is not: %v", id, err)
		}
	})
}
