// Package refcheck is the check the platform packages' tests hold their
// reference readers to (each Surface.Recognize, ob.ParseCitation): the
// references a reader takes, with the id each gives, and those it
// refuses; and, whatever the table says, the hostile inputs every reader
// refuses.
package refcheck

import (
	"maps"
	"strconv"
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

// Hostile is the shared corpus of ids that try to steer a request built
// from them out of its platform's route (issue "No request leaves its
// platform"): valid, a reference the platform takes, with a traversal, an
// encoded or look-alike separator, a parameter, a fragment or a control
// character added, and the same tricks on their own. No platform takes
// any of them; each entry point (fetch tool, reader, resource, prompt,
// completion) refuses them, and no platform route sees a request for one.
func Hostile(valid string) []string {
	escape := "/../../../../../tk/OData/v5/Fractie"
	var out []string
	for _, tail := range []string{
		escape,
		":" + escape[1:],
		"/..",
		"%2F..%2F..%2F..%2Ftk%2FOData",
		"%2f%2e%2e%2f%2e%2e",
		"%2e%2e",
		"%252e%252e%252f",
		"%5c..%5c..",
		`\..\..\tk`,
		"?x=1",
		"#fragment",
		";..;/tk",
		"\x00x",
		"\nGET /x",
		"\u202e1",
		"\uff0e\uff0e\u2215tk",
		"\u2024\u2024x",
		"\ufe52\ufe52x",
		"\u3002\u3002x",
		"\uff0ftk",
		"\u2044tk",
		"\u2215tk",
		"\u29f8tk",
		"\uff3ctk",
	} {
		out = append(out, valid+tail)
	}
	return append(out,
		".", "..", "../..", "..%2f..", "%2e%2e", "..;", `..\..`,
		"../../../../../tk/OData/v5/Fractie",
		"\uff0e\uff0e", "\u2025", "x/../../y",
	)
}

// Refuses checks that check refuses every id of Hostile(valid), with an
// error that names the id as given (its first 40 characters, quoted as
// Go quotes them), and that it takes valid itself.
func Refuses(t *testing.T, check func(id string) error, valid string) {
	t.Helper()
	if err := check(valid); err != nil {
		t.Fatalf("the valid id %q is refused: %v", valid, err)
	}
	for _, id := range Hostile(valid) {
		err := check(id)
		if err == nil {
			t.Errorf("%q is taken", id)
			continue
		}
		if !NamesID(err.Error(), id) {
			t.Errorf("the refusal of %q does not name it: %v", id, err)
		}
	}
}

// NamesID reports whether msg names id: its first 40 characters, as
// they are or quoted as Go quotes them (a refusal prints the id with %q,
// so control characters show as escapes).
func NamesID(msg, id string) bool {
	head := id
	if r := []rune(head); len(r) > 40 {
		head = string(r[:40])
	}
	q := strconv.Quote(head)
	q = q[1 : len(q)-1]
	return strings.Contains(msg, head) || strings.Contains(msg, q)
}
