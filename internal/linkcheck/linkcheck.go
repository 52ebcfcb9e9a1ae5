// Package linkcheck holds the hostile links each platform parser's test
// puts in place of a real answer's link, and the check of what the parser
// hands on (adapters.CheckLink): only an http(s) link on a host the
// platform names, or no link and a reason.
package linkcheck

import (
	"net/url"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
)

// Hostile are links a misbehaving platform could put in an answer: other
// schemes however written, relative and protocol-relative links, a user
// before the host, control and format characters.
var Hostile = []string{
	"javascript:alert(document.domain)",
	" JaVaScRiPt:alert(1)",
	"\tjavascript:alert(1)",
	"java\tscript:alert(1)",
	"java\nscript:alert(1)",
	"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
	"vbscript:msgbox(1)",
	"file:///etc/passwd",
	"//evil.example/x",
	"uitspraak.html",
	"https://gemeente.nl@evil.example/",
	"https://evil.example/\u202efdp.exe",
	"https:evil.example",
}

// Check holds what a parser made of a hostile link: an empty link with a
// reason, or a link CheckLink keeps as it is, on one of hosts (a platform
// that reads a relative link against its own public host).
func Check(t testing.TB, what, link, dropped string, hosts ...string) {
	t.Helper()
	if link == "" {
		if dropped == "" {
			t.Errorf("%s: the link was dropped without a reason", what)
		}
		return
	}
	if kept, why := adapters.CheckLink(link); kept != link {
		t.Errorf("%s: handed on %q, which CheckLink does not keep as is (%s)", what, link, why)
		return
	}
	u, _ := url.Parse(link)
	for _, h := range hosts {
		if u.Host == h {
			return
		}
	}
	t.Errorf("%s: handed on %q, a link to a host the platform does not name (%v)", what, link, hosts)
}
