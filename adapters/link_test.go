package adapters

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"unicode"
)

func TestCheckLink(t *testing.T) {
	for raw, want := range map[string]string{
		"https://zoek.officielebekendmakingen.nl/kst-26100-1.html":      "https://zoek.officielebekendmakingen.nl/kst-26100-1.html",
		"http://deeplink.rechtspraak.nl/uitspraak?id=ECLI:NL:HR:2024:1": "http://deeplink.rechtspraak.nl/uitspraak?id=ECLI:NL:HR:2024:1",
		"  https://example.nl/a  \n":                                    "https://example.nl/a",
		"HTTPS://Example.nl/A":                                          "https://Example.nl/A",
		"https://example.nl/a b":                                        "https://example.nl/a%20b",
		"https://example.nl:8443/x?y=1#z":                               "https://example.nl:8443/x?y=1#z",
	} {
		if got, why := CheckLink(raw); got != want || why != "" {
			t.Errorf("CheckLink(%q) = %q, %q; want %q", raw, got, why, want)
		}
	}
	if got, why := CheckLink(" "); got != "" || why != "" {
		t.Errorf("blank: %q %q", got, why)
	}
	for raw, want := range map[string]string{
		"javascript:alert(1)":                      LinkNotHTTP,
		" JaVaScRiPt:alert(1)":                     LinkNotHTTP,
		"JAVASCRIPT:alert(1)":                      LinkNotHTTP,
		"java\tscript:alert(1)":                    LinkHasControl,
		"java\nscript:alert(1)":                    LinkHasControl,
		"\x00javascript:alert(1)":                  LinkHasControl,
		"https://example.nl/\u202egnp.exe":         LinkHasControl,
		"https://exam\u200bple.nl/":                LinkHasControl,
		"data:text/html,<script>alert(1)</script>": LinkNotHTTP,
		"vbscript:msgbox(1)":                       LinkNotHTTP,
		"file:///etc/passwd":                       LinkNotHTTP,
		"ftp://example.nl/x":                       LinkNotHTTP,
		"/uitspraak?id=1":                          LinkNotHTTP,
		"uitspraak.html":                           LinkNotHTTP,
		"//evil.example/x":                         LinkNotHTTP,
		"https:evil.example":                       LinkNotAbsolute,
		"https:///path":                            LinkNotAbsolute,
		"https:/\\evil.example":                    LinkNotAbsolute,
		"https://gemeente.nl@evil.example/":        LinkHasUser,
		"https://evil.example\\@gemeente.nl/":      LinkNotURL,
		"https://" + strings.Repeat("a", 2100):     LinkTooLong,
		"\xff\xfehttps://x.nl":                     LinkHasControl,
	} {
		got, why := CheckLink(raw)
		if got != "" || why != want {
			t.Errorf("CheckLink(%q) = %q, %q; want dropped: %s", raw, got, why, want)
		}
	}
}

// A dropped link is named in the JSON the tools and the API write, beside
// the empty link.
func TestDroppedLinkInJSON(t *testing.T) {
	var h Hit
	h.SetURL("javascript:alert(1)")
	b, _ := json.Marshal(h)
	if !strings.Contains(string(b), `"source_url_dropped":"not an http(s) URL"`) || strings.Contains(string(b), "javascript") {
		t.Fatal(string(b))
	}
	var d Document
	d.SetURL("https://example.nl/x")
	if b, _ := json.Marshal(d); !strings.Contains(string(b), `"source_url":"https://example.nl/x"`) || strings.Contains(string(b), "dropped") {
		t.Fatal(string(b))
	}
}

// FuzzCheckLink: whatever a platform writes, CheckLink keeps an absolute
// http(s) URL with a host and no user, control or format character, which
// it keeps again as it is; or it keeps nothing and says why (nothing only
// for a blank link).
func FuzzCheckLink(f *testing.F) {
	for _, s := range []string{"https://zoek.officielebekendmakingen.nl/kst-26100-1.html", " JaVaScRiPt:alert(1)", "//x.nl/a",
		"https://a@b.nl", "https://x.nl/\u202e", "http://[::1]:80/x", "https://x.nl/a b?c=d#e", "HTTP://X.NL", "https:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		link, dropped := CheckLink(raw)
		if link == "" {
			if dropped == "" && strings.TrimSpace(raw) != "" {
				t.Fatalf("%q dropped without a reason", raw)
			}
			return
		}
		if dropped != "" {
			t.Fatalf("%q kept as %q and dropped", raw, link)
		}
		u, err := url.Parse(link)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			t.Fatalf("%q kept as %q", raw, link)
		}
		if strings.IndexFunc(link, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) }) >= 0 {
			t.Fatalf("%q kept as %q, with a control, format or space character", raw, link)
		}
		if again, _ := CheckLink(link); again != link {
			t.Fatalf("%q kept as %q, then as %q", raw, link, again)
		}
	})
}
