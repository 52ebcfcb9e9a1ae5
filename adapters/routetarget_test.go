package adapters

import (
	"errors"
	"net/url"
	"path"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/refcheck"
)

// The paths the platform packages build reach their own route as they
// are.
func TestRouteTargetTakesPlatformPaths(t *testing.T) {
	for _, tc := range []struct{ platform, path string }{
		{"obv", "/api/entities/document%3Anotubiz%3Agemeente%3Asoest%3A12345"},
		{"obv", "/api/search?query=a%2F..%2Fb&limit=3"}, // the query is a parameter, not a path
		{"bwb", "/BWBR0005537/manifest.xml"},
		{"cvdr", "/cvdr/CVDR100394/2/xml/CVDR100394_2.xml"},
		{"tk", "/OData/v5/Document?$filter=Nummer%20eq%20%272023D41173%27"},
		{"ori", "/ori_*,osi_*,owi_*/_search?q=_id:1"},
		{"rechtspraak", "/"},
	} {
		got, err := RouteTarget(tc.platform, Request{Path: tc.path})
		if err != nil || got != "/platforms/"+tc.platform+tc.path {
			t.Errorf("%s %s: %q, %v", tc.platform, tc.path, got, err)
		}
	}
}

// Whatever an id check let through, a path that would leave its route,
// as Caddy's matcher or the platform's server would read it, is refused.
func TestRouteTargetRefusesWhatLeavesTheRoute(t *testing.T) {
	paths := []string{
		"api/entities/x", // no leading slash
		"/api/entities/document:a:b:c:../../../../../tk/OData/v5/Fractie",
		"/api/entities/document%3Aa%3Ab%3Ac%3A..%2F..%2F..%2F..%2F..%2Ftk%2FOData%2Fv5%2FFractie",
		"/api/entities/..%2f..%2f..%2fstatus.json",
		"/api/entities/%2e%2e/%2e%2e/tk",
		"/api/entities/%252e%252e%252ftk",
		"/api/entities/x%5c..%5c..%5ctk",
		`/api/entities/x\..\..\tk`,
		"/api/entities/..;/..;/tk",
		"/api/entities/x%00",
		"/api/entities/x\u202e",
		"/api/entities/\uff0e\uff0e/\uff0e\uff0e/tk",
		"/api/entities/x\uff0ftk",
		"/api/entities/x#/../../tk",
		"/..",
		"/./x",
	}
	for _, p := range paths {
		got, err := RouteTarget("obv", Request{Path: p})
		if !errors.Is(err, ErrOutsidePlatform) {
			t.Errorf("%q: %q, %v; want ErrOutsidePlatform", p, got, err)
		}
	}
	// Every id of the shared corpus, put where OpenBesluitvorming's
	// entity id goes, with only its colons escaped, as the platform
	// package did before its check refused these ids.
	for _, id := range refcheck.Hostile("document:a:b:c:1") {
		p := "/api/entities/" + strings.ReplaceAll(url.PathEscape(id), ":", "%3A")
		got, err := RouteTarget("obv", Request{Path: p})
		if err == nil && !below(got, "obv") {
			t.Errorf("%q: %q leaves the route", id, got)
		}
	}
}

// below reports whether target, decoded once and cleaned, lies below
// the platform's route: the property RouteTarget keeps.
func below(target, platform string) bool {
	u, err := url.ParseRequestURI(target)
	if err != nil {
		return false
	}
	return strings.HasPrefix(path.Clean(u.Path)+"/", "/platforms/"+platform+"/")
}

func FuzzRouteTarget(f *testing.F) {
	f.Add("/api/entities/document%3Aa%3Ab%3Ac%3A..%2F..%2Ftk")
	f.Add("/BWBR0005537/manifest.xml")
	f.Add("/x/%2e%2e/%252e")
	f.Add("/\uff0e\uff0e/x")
	f.Fuzz(func(t *testing.T, p string) {
		got, err := RouteTarget("obv", Request{Path: p})
		if err != nil {
			if !errors.Is(err, ErrOutsidePlatform) {
				t.Fatalf("%q: an error that is not ErrOutsidePlatform: %v", p, err)
			}
			return
		}
		if !below(got, "obv") {
			t.Fatalf("%q: %q leaves the route", p, got)
		}
		// Decoded a second time (a platform's server may), it still does
		// not climb out.
		if u, err := url.ParseRequestURI(got); err == nil {
			if twice, err := url.PathUnescape(u.Path); err == nil && !strings.HasPrefix(path.Clean(twice)+"/", "/platforms/obv/") {
				t.Fatalf("%q: decoded twice, %q leaves the route", p, twice)
			}
		}
	})
}
