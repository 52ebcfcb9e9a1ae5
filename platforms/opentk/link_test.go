package opentk

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/linkcheck"
)

// The search answer of this package's tests (the shape tkconv's search.cc
// writes; no recorded answer exists in testdata/fixtures) with a hostile
// relurl: an absolute one that is no http(s) link to a host is dropped
// and the hit says so; anything else is a path on OpenTK's own host, as
// the platform's relative links are.
func TestHostileLinks(t *testing.T) {
	const real = `"relurl":"get/2023D41173"`
	if !strings.Contains(searchBody, real) {
		t.Fatal("the sample no longer holds its relurl")
	}
	for _, bad := range append(linkcheck.Hostile, "https://evil.example\t/x", "http://") {
		v, _ := json.Marshal(bad)
		pg, err := ParseSearch([]byte(strings.Replace(searchBody, real, `"relurl":`+string(v), 1)), 0, 10)
		if err != nil || len(pg.Hits) == 0 {
			t.Fatalf("%q: %+v %v", bad, pg, err)
		}
		linkcheck.Check(t, bad, pg.Hits[0].URL, pg.Hits[0].URLDropped, "berthub.eu")
	}
}
