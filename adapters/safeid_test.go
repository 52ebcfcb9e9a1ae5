package adapters

import (
	"net/url"
	"testing"

	"github.com/besluitbron/besluitbron/internal/refcheck"
)

// The shared check refuses the whole corpus, naming each id, and takes
// the references of every platform as they are written.
func TestCheckIDCharsRefusesTheCorpus(t *testing.T) {
	for _, valid := range []string{
		"document:notubiz:gemeente:soest:12345", "kst-26100-1", "BWBR0005537", "CVDR100394_2",
		"2023D41173", "7a9b77f1-0000-4000-8000-000000000001", "ECLI:NL:HR:2014:952", "12345",
		"nl.gm0344.doc.1", "stcrt-2006-73-p10-SC74601",
	} {
		refcheck.Refuses(t, CheckIDChars, valid)
	}
	for _, ok := range []string{"a%41b", "Gemeente Utrecht", "café", "a...b", "1.2"} {
		if err := CheckIDChars(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
}

func FuzzCheckIDChars(f *testing.F) {
	for _, s := range refcheck.Hostile("document:a:b:c:1") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if CheckIDChars(id) != nil {
			return
		}
		// What the check takes, escaped into a path as the platform
		// packages do, never leaves the route.
		if _, err := RouteTarget("obv", Request{Path: "/api/entities/" + url.PathEscape(id)}); err != nil {
			t.Fatalf("%q passes the id check, but its path does not: %v", id, err)
		}
	})
}
