package fuzzcheck

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// Directive fuzzes a Caddyfile directive's parser, seeded with the
// directive's uses in the Caddyfiles and docs (CaddyfileBlocks). Every
// input that lexes as a Caddyfile goes to unmarshal (the module's
// UnmarshalCaddyfile, as a method expression) on a fresh module. The
// parser must return the module or a clear error, never panic; and what
// it returns must survive Caddy's JSON unchanged (JSON is what Caddy
// loads: a setting lost on the way would silently not apply) and be the
// same on a second parse.
//
// The dispenser is caddyfile.NewTestDispenser's, built from the tokens
// directly: NewTestDispenser calls log.Fatalf on input that does not lex,
// which would end the fuzzing process instead of skipping the input.
func Directive[T any](f *testing.F, directive string, unmarshal func(*T, *caddyfile.Dispenser) error) {
	f.Helper()
	for _, s := range CaddyfileBlocks(f, directive) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, input string) {
		tokens, err := caddyfile.Tokenize([]byte(input), "Testfile")
		if err != nil {
			return // the Caddyfile lexer refuses it before any directive sees it
		}
		parse := func() (*T, []byte, error) {
			v := new(T)
			if err := unmarshal(v, caddyfile.NewDispenser(tokens)); err != nil {
				return nil, nil, err
			}
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatalf("%s parsed %q into a module that is not JSON: %v", directive, input, err)
			}
			return v, b, nil
		}
		_, b, err := parse()
		Error(t, err)
		_, b2, err2 := parse()
		if (err == nil) != (err2 == nil) || !bytes.Equal(b, b2) {
			t.Fatalf("%s: two parses of %q disagree:\n%s %v\n%s %v", directive, input, b, err, b2, err2)
		}
		if err != nil {
			return
		}
		back := new(T)
		if err := json.Unmarshal(b, back); err != nil {
			t.Fatalf("%s: Caddy could not load the JSON of %q: %v\n%s", directive, input, err, b)
		}
		if b3, _ := json.Marshal(back); !bytes.Equal(b, b3) {
			t.Fatalf("%s: %q does not survive JSON:\n%s\n%s", directive, input, b, b3)
		}
	})
}
