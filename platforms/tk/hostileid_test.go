package tk

import (
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/refcheck"
)

// Every id that tries to steer the request built from it out of the
// platform's route is refused by the id check and by each request
// builder that takes an id, with an error that names it.
func TestHostileIDsAreRefused(t *testing.T) {
	refcheck.Refuses(t, func(id string) error { _, err := ParseDocumentID(id); return err }, "2023D41173")
	refcheck.Refuses(t, func(id string) error { _, err := ParseDocumentID(id); return err }, "7a9b77f1-0000-4000-8000-000000000001")
}

// Whatever id ParseDocumentID takes, the SyncFeed request a GUID makes
// (the fetch's second way) stays on the platform's route, and a number
// goes only into a quoted OData literal.
func FuzzIDRequestStaysOnRoute(f *testing.F) {
	f.Add("2023D41173")
	for _, id := range refcheck.Hostile("7a9b77f1-0000-4000-8000-000000000001") {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		d, err := ParseDocumentID(id)
		if err != nil {
			return
		}
		if d.GUID != "" {
			if _, err := adapters.RouteTarget("tk", EntityRequest(d.GUID)); err != nil {
				t.Fatalf("%q is taken, but its request is not: %v", id, err)
			}
		}
		if err := adapters.CheckIDChars(d.GUID + d.Nummer); err != nil {
			t.Fatalf("%q is taken as %+v: %v", id, d, err)
		}
	})
}
