package emulator

import "testing"

func TestWildcard(t *testing.T) {
	cases := []struct {
		p, s string
		want bool
	}{
		{"ori_*", "ori_soest_2020", true}, {"ori_*", "osi_x", false}, {"*", "x", true}, {"ori_soest*", "ori_soest_1", true},
		{"o*i_*_2020*", "ori_soest_20200101", true}, {"o*i_*_2021*", "ori_soest_20200101", false}, {"abc", "abc", true},
		{"a*c", "ac", true}, {"a*b*c", "abc", true}, {"a*a", "a", false}, {"*_soest_*", "ori_soest_1", true},
	}
	for _, c := range cases {
		if got := wildcard(c.p, c.s); got != c.want {
			t.Errorf("wildcard(%q, %q) = %v", c.p, c.s, got)
		}
	}
}
