package site_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/caddymodule/site/ui"
)

// TestEveryReasonHasItsText: every reason code the fan-out engine names
// (the Reason* constants of fanout, read from its source so
// that a new one is not missed) has its text in every language of the
// page; otherwise the page would fall back to the engine's English.
func TestEveryReasonHasItsText(t *testing.T) {
	codes := append(fanoutConstants(t, "result.go", "Reason"),
		// The platforms' own reasons a question does not fit them, which
		// the fan-out passes on.
		constantsOf(t, filepath.Join("adapters", "surface.go"), "Unfit")...)
	if len(codes) < 13 {
		t.Fatalf("found only %d reason codes in fanout: %v", len(codes), codes)
	}
	for _, lang := range ui.Languages {
		for _, c := range codes {
			if s := ui.Text(lang, "reason."+c); s == "reason."+c {
				t.Errorf("%s: no text for the engine's reason %q", lang, c)
			}
		}
	}
}

// TestEveryQueryErrorHasItsText: every code of a refused question the
// fan-out engine names (the Code* constants of fanout, read
// from its source) has its text in every language of the page, and each
// language's text uses the same parameters, so no language drops a value
// the visitor needs (the date, the platform, the bound).
func TestEveryQueryErrorHasItsText(t *testing.T) {
	codes := fanoutConstants(t, "queryerror.go", "Code")
	if len(codes) < 14 {
		t.Fatalf("found only %d query error codes in fanout: %v", len(codes), codes)
	}
	params := regexp.MustCompile(`\{\w+\}`)
	for _, c := range codes {
		var first string
		for i, lang := range ui.Languages {
			s := ui.Text(lang, "query."+c)
			if s == "query."+c {
				t.Errorf("%s: no text for the engine's query error %q", lang, c)
				continue
			}
			found := params.FindAllString(s, -1)
			sort.Strings(found) // a language may put them in another order
			got := strings.Join(found, " ")
			if i == 0 {
				first = got
			} else if got != first {
				t.Errorf("%s: query.%s uses %q, %s uses %q", lang, c, got, ui.Languages[0], first)
			}
		}
	}
}

// fanoutConstants reads the string constants whose names start with
// prefix from fanout's file (read from source, so that a new
// one is not missed).
func fanoutConstants(t *testing.T, file, prefix string) []string {
	t.Helper()
	return constantsOf(t, filepath.Join("fanout", file), prefix)
}

// constantsOf are the string constants named prefix... in the repository
// file path.
func constantsOf(t *testing.T, path, prefix string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(repoRoot(t), path), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			for i, name := range vs.Names {
				if strings.HasPrefix(name.Name, prefix) && i < len(vs.Values) {
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok {
						code, _ := strconv.Unquote(lit.Value)
						codes = append(codes, code)
					}
				}
			}
		}
		return true
	})
	return codes
}
