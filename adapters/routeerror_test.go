package adapters

import (
	"errors"
	"fmt"
	"testing"
)

// Classify is the one reading of a route's non-2xx answer: the kind
// decides, the platform's own message is kept (never Caddy's), and
// KindOf finds the kind through wrapping.
func TestClassify(t *testing.T) {
	obvBody := []byte(`{"error":"Too many requests","hint":"limit=100 kost 5"}`)
	for _, tc := range []struct {
		status     int
		overBudget bool
		body       []byte
		kind       Kind
		detail     string
	}{
		{503, true, []byte(`{"error":"over budget"}`), KindOverBudget, ""},
		{429, false, obvBody, KindRateLimited, "Too many requests (limit=100 kost 5)"},
		{404, false, nil, KindNotFound, ""},
		{410, false, []byte("gone"), KindNotFound, "gone"},
		{400, false, []byte(`{"error":{"code":"bad"}}`), KindRefused, `{"code":"bad"}`},
		{403, false, nil, KindRefused, ""},
		{500, false, []byte("<html>boom</html>"), KindUnavailable, "boom"},
		{302, false, nil, KindUnavailable, ""},
		{508, false, []byte("loop"), KindLoop, ""},
	} {
		t.Run(fmt.Sprint(tc.status, tc.overBudget), func(t *testing.T) {
			re := Classify("obv", tc.status, tc.overBudget, 7, true, tc.body)
			if re.Kind != tc.kind || re.Detail != tc.detail || re.Status != tc.status || re.RetryAfter != 7 || !re.RetryKnown {
				t.Fatalf("Classify = %+v, want kind %s detail %q", re, tc.kind, tc.detail)
			}
			if got := KindOf(fmt.Errorf("searching: %w", re)); got != tc.kind {
				t.Fatalf("KindOf(wrapped) = %s, want %s", got, tc.kind)
			}
		})
	}
	if KindOf(errors.New("connection refused")) != 0 || KindOf(nil) != 0 {
		t.Fatal("KindOf of an error that is no RouteError must be 0")
	}
}
