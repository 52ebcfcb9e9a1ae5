package replica

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// One scope is spelt one way whatever the operator wrote, and reads back
// as it was; a bad year or part says what to give.
func TestYearScopeIsCanonical(t *testing.T) {
	known := func(p string) error {
		if p != "soest" && p != "utrecht" {
			return errors.New("part " + p + ": give soest or utrecht")
		}
		return nil
	}
	since, parts, err := ReadYearScope(ScopeConfig{Since: "2024", Sources: []string{" Utrecht", "soest", "SOEST"}}, "2024", known)
	if err != nil || since != 2024 || !slices.Equal(parts, []string{"soest", "utrecht"}) {
		t.Fatalf("read %d %v %v", since, parts, err)
	}
	canonical := FormatYearScope(since, "sources", parts)
	if canonical != "since=2024 sources=soest,utrecht" {
		t.Fatalf("canonical %q", canonical)
	}
	if y, p, err := ParseYearScope(canonical, "sources"); err != nil || y != since || !slices.Equal(p, parts) {
		t.Fatalf("read back %d %v %v", y, p, err)
	}
	if all := FormatYearScope(0, "sources", nil); all != "since=all sources=all" {
		t.Fatalf("every year and part: %q", all)
	}
	if y, p, err := ParseYearScope("", "sources"); err != nil || y != 0 || p != nil {
		t.Fatalf("the empty scope: %d %v %v", y, p, err)
	}

	for _, bad := range []struct {
		s    ScopeConfig
		want string
	}{
		{ScopeConfig{Since: "24"}, "give a year such as 2024"},
		{ScopeConfig{Since: "soon"}, "give a year such as 2024"},
		{ScopeConfig{Sources: []string{"amsterdam"}}, "give soest or utrecht"},
	} {
		if _, _, err := ReadYearScope(bad.s, "2024", known); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v, want %q", bad.s, err, bad.want)
		}
	}
	for _, bad := range []string{"since=x sources=all", "since=2024 categories=all", "when=now"} {
		if _, _, err := ParseYearScope(bad, "sources"); err == nil {
			t.Errorf("%q read as a scope", bad)
		}
	}
}
