package ui

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestMarkdown: the subset the platforms' texts use becomes structure;
// everything else stays text, escaped.
func TestMarkdown(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"headings one below the page's h1",
			"# Raadsvoorstel begroting 2024\n\n## 1. Inleiding\n### Sub ###\n###### zes\n####### zeven",
			"<h2>Raadsvoorstel begroting 2024</h2>\n<h3>1. Inleiding</h3>\n<h4>Sub</h4>\n<h6>zes</h6>\n<p>####### zeven</p>\n"},
		{"a hash without a space is text", "#hashtag en #5\n#", "<p>#hashtag en #5<br>\n#</p>\n"},
		{"strong and emphasis", "**Utrecht**, 2 maart 2024 en *nadruk* of __sterk__ en _schuin_",
			"<p><strong>Utrecht</strong>, 2 maart 2024 en <em>nadruk</em> of <strong>sterk</strong> en <em>schuin</em></p>\n"},
		{"nested emphasis", "**vet *en schuin* vet** en *schuin **en vet** schuin* en ***beide***",
			"<p><strong>vet <em>en schuin</em> vet</strong> en <em>schuin <strong>en vet</strong> schuin</em> en <em><strong>beide</strong></em></p>\n"},
		{"unmatched marks stay as written", "**open en *nooit dicht en 2 * 3 = 6 en ** los",
			"<p>**open en *nooit dicht en 2 * 3 = 6 en ** los</p>\n"},
		{"crossing: the outer pair wins", "**a *b** c*", "<p><strong>a *b</strong> c*</p>\n"},
		{"snake_case is no emphasis", "zie file_name_here en _echt_", "<p>zie file_name_here en <em>echt</em></p>\n"},
		{"escaped marks", `\*geen nadruk\* en \# geen kop`, "<p>*geen nadruk* en # geen kop</p>\n"},
		{"unordered list", "Moties:\n- M1: aangenomen\n- M2: verworpen\n\nEinde",
			"<p>Moties:</p>\n<ul>\n<li>M1: aangenomen</li>\n<li>M2: verworpen</li>\n</ul>\n<p>Einde</p>\n"},
		{"ordered list keeps its numbers", "1. Opening\n3) Vaststelling\n",
			"<ol>\n<li value=\"1\">Opening</li>\n<li value=\"3\">Vaststelling</li>\n</ol>\n"},
		{"nested lists", "- a\n  - a1\n  - a2\n    1. diep\n- b",
			"<ul>\n<li>a\n<ul>\n<li>a1</li>\n<li>a2\n<ol>\n<li value=\"1\">diep</li>\n</ol></li>\n</ul></li>\n<li>b</li>\n</ul>\n"},
		{"another kind at the same depth is another list", "- a\n1. b",
			"<ul>\n<li>a</li>\n</ul>\n<ol>\n<li value=\"1\">b</li>\n</ol>\n"},
		{"an indented line continues its item", "- document: besluit\n  bijlage bij het besluit\nVerder",
			"<ul>\n<li>document: besluit<br>\nbijlage bij het besluit</li>\n</ul>\n<p>Verder</p>\n"},
		{"a line that merely starts with a number is text",
			"2024 was het jaar\n1 De minister\n1.5 miljoen\n2.1. De rechtbank\n3.\n-5 graden\n*nadruk* aan het begin",
			"<p>2024 was het jaar<br>\n1 De minister<br>\n1.5 miljoen<br>\n2.1. De rechtbank<br>\n3.<br>\n-5 graden<br>\n<em>nadruk</em> aan het begin</p>\n"},
		{"line per block, as laws and rulings come",
			"Inhoudsindicatie:\nEen samenvatting.\n\nUitspraak\nDe rechtbank",
			"<p>Inhoudsindicatie:<br>\nEen samenvatting.</p>\n<p>Uitspraak<br>\nDe rechtbank</p>\n"},
		{"HTML in the text is escaped everywhere",
			"# <script>alert(1)</script>\n- <img src=x onerror=alert(1)>\n**<b>\"x\" & 'y'</b>**\n[klik](javascript:alert(1))",
			"<h2>&lt;script&gt;alert(1)&lt;/script&gt;</h2>\n<ul>\n<li>&lt;img src=x onerror=alert(1)&gt;</li>\n</ul>\n" +
				"<p><strong>&lt;b&gt;&#34;x&#34; &amp; &#39;y&#39;&lt;/b&gt;</strong><br>\n[klik](javascript:alert(1))</p>\n"},
		{"CRLF and tabs", "# Kop\r\n\t- item\r\n", "<h2>Kop</h2>\n<ul>\n<li>item</li>\n</ul>\n"},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(Markdown(tc.in)); got != tc.want {
				t.Errorf("Markdown(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

// BenchmarkMarkdownLinear: inputs built to make a naive matcher
// quadratic (many openers no closer matches, deep nesting, long lines,
// many list levels), each at 5,000 and at 80,000 repeats: linear
// rendering takes about 16 times as long for the larger, quadratic about
// 256 times. A benchmark, not a test, so a busy machine cannot fail it
// (docs/benchmarks.md quotes the ratios):
//
//	go test -run '^$' -bench MarkdownLinear ./caddymodule/site/ui/
func BenchmarkMarkdownLinear(b *testing.B) {
	inputs := map[string]func(n int) string{
		"openers without closers": func(n int) string { return strings.Repeat("**a ", n) + strings.Repeat("a* ", n) },
		"deep nesting":            func(n int) string { return strings.Repeat("*a **a ", n) + strings.Repeat("a** a* ", n) },
		"one long run of marks":   func(n int) string { return strings.Repeat("*", 4*n) },
		"underscores in words":    func(n int) string { return strings.Repeat("a_b ", n) },
		"deeper and deeper lists": func(n int) string {
			var b strings.Builder
			for i := range n / 8 {
				b.WriteString(strings.Repeat(" ", i%200) + "- x\n")
			}
			return b.String()
		},
		"lines": func(n int) string { return strings.Repeat("# k\n- l\ntekst *x*\n\n", n/4) },
	}
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		for _, n := range []int{5000, 80000} {
			text := inputs[name](n)
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					Markdown(text)
				}
			})
		}
	}
}
