// Package refcheck is the check the platform packages' tests hold their
// reference readers to (each Surface.Recognize, ob.ParseCitation): the
// references a reader takes, with the id each gives, and those it
// refuses; and, whatever the table says, the hostile inputs every reader
// refuses.
package refcheck

import (
	"maps"
	"strings"
	"testing"
)

// Check calls read on each input of cases, which must give the id the
// case names, or refuse it where the case names "" (and then give no
// id). Every reader also refuses nothing, white space, 300 characters of
// junk, and each reference it takes followed by more words.
func Check(t *testing.T, read func(s string) (id string, ok bool), cases map[string]string) {
	t.Helper()
	all := maps.Clone(cases)
	for _, hostile := range []string{"", " ", "\t\n", strings.Repeat("x", 300), strings.Repeat("9", 300), strings.Repeat("-", 300)} {
		all[hostile] = ""
	}
	for in, want := range cases {
		if want != "" {
			all[in+" "+strings.Repeat("x", 300)] = ""
		}
	}
	for in, want := range all {
		id, ok := read(in)
		if id != want || ok != (want != "") {
			t.Errorf("%q read as %q, %v; want %q", in, id, ok, want)
		}
	}
}
