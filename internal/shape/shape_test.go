package shape

import (
	"path"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/fixture"
)

func TestCompareJSON(t *testing.T) {
	want := []byte(`{"results":[{"id":"x","n":1,"tags":["a"]}],"total":3,"more":true,"empty":[]}`)
	cases := []struct {
		name string
		got  string
		opts []Option
		errs []string
	}{
		{"same shape other values", `{"results":[{"id":"y","n":2.5,"tags":["b","c"],"extra":{"q":1}},{"x":1}],"total":0,"more":false,"empty":[1],"new":1}`, nil, nil},
		{"missing key", `{"results":[{"id":"y","n":2,"tags":[]}],"total":0,"more":false,"empty":[]}`, nil, []string{"results[].tags: got an empty array, want elements"}},
		{"wrong type", `{"results":[{"id":1,"n":"2","tags":["a"]}],"total":0,"more":"no","empty":[]}`, nil, []string{"more: got string, want boolean", "results[].id: got number, want string", "results[].n: got string, want number"}},
		{"missing", `{"results":[{"n":1,"tags":["a"]}],"more":true,"empty":[]}`, nil, []string{"results[].id: missing (want string)", "total: missing (want number)"}},
		{"ignored", `{"results":[{"n":1,"tags":["a"]}],"more":true,"empty":[]}`, []Option{Ignore("results[].id", "total")}, nil},
		{"null not ok", `{"results":[{"id":null,"n":1,"tags":["a"]}],"total":1,"more":true,"empty":[]}`, nil, []string{"results[].id: got null, want string"}},
		{"null ok", `{"results":[{"id":null,"n":1,"tags":["a"]}],"total":1,"more":true,"empty":[]}`, []Option{NullOK()}, nil},
		{"root type", `[]`, nil, []string{"(root): got array, want object"}},
		{"not json", `{`, nil, []string{"got is not JSON: unexpected EOF"}},
	}
	nullWant := []byte(`{"extra":null}`)
	if p := CompareJSON([]byte(`{"extra":[1]}`), nullWant); len(p) != 0 {
		t.Errorf("null in want accepts any type: %q", p)
	}
	if p := CompareJSON([]byte(`{}`), nullWant); len(p) != 1 {
		t.Errorf("null in want still needs the key: %q", p)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			probs := CompareJSON([]byte(c.got), want, c.opts...)
			if strings.Join(probs, "|") != strings.Join(c.errs, "|") {
				t.Errorf("got %q\nwant %q", probs, c.errs)
			}
		})
	}
}

func TestCompareJSONAt(t *testing.T) {
	got := []byte(`{"results":[{"entityId":"a","date":"1 mei 2024"}]}`)
	if p := CompareJSON(got, []byte(`{"entityId":"x","date":"y"}`), At("results[]")); len(p) != 0 {
		t.Error(p)
	}
	if p := CompareJSON(got, []byte(`{"summary":"x"}`), At("results[]")); len(p) != 1 || !strings.HasPrefix(p[0], "results[].summary: missing") {
		t.Error(p)
	}
	if p := CompareJSON([]byte(`{"results":[]}`), []byte(`{}`), At("results[]")); len(p) != 1 {
		t.Error(p)
	}
}

func TestCompareXML(t *testing.T) {
	want := []byte(`<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" xmlns:x="urn:x"><entry><link rel="alternate" href="h"/><x:n/></entry></feed>`)
	good := []byte(`<a:feed xmlns:a="http://www.w3.org/2005/Atom"><a:title>t</a:title><a:entry><a:link href="z" rel="self"/><n xmlns="urn:x">1</n></a:entry></a:feed>`)
	if p := CompareXML(good, want); len(p) != 0 {
		t.Errorf("prefixes differ, same namespaces: %q", p)
	}
	bad := []byte(`<feed xmlns="urn:other"><entry><link href="z"/></entry></feed>`)
	if p := CompareXML(bad, want); len(p) != 6 {
		t.Errorf("wrong namespace: %q", p)
	}
	if p := CompareXML(bad, want, IgnoreNamespaces()); len(p) != 2 {
		t.Errorf("ignoring namespaces: %q", p)
	}
	if p := CompareXML(bad, want, IgnoreNamespaces(), Ignore("feed/entry/link/@rel", "feed/entry/n")); len(p) != 0 {
		t.Errorf("ignored: %q", p)
	}
	frag := []byte(`<entry><link rel="r"/></entry>`)
	if p := CompareXML(good, frag, IgnoreNamespaces(), Anywhere()); len(p) != 0 {
		t.Errorf("anywhere: %q", p)
	}
	if p := CompareXML(good, frag, IgnoreNamespaces()); len(p) != 3 {
		t.Errorf("not anywhere: %q", p)
	}
	if p := CompareXML([]byte("<a>"), want); len(p) != 1 {
		t.Errorf("broken: %q", p)
	}
}

func TestFixturesParse(t *testing.T) {
	// Every shared fixture must be readable by these helpers (BOM, CRLF,
	// processing instructions).
	for _, f := range []string{"ob/op-stb-2018-84.xml", "ob/op-stcrt-2015-47076.xml", "rechtspraak/content.xml", "rechtspraak/zoeken.atom.xml"} {
		b := fixture.Read(t, path.Dir(f), path.Base(f))
		if p := CompareXML(b, b); len(p) != 0 {
			t.Errorf("%s against itself: %q", f, p)
		}
	}
	for _, f := range []string{"obv/search.json", "obv/entity-meeting.json", "tk/odata-besluit-expand.json"} {
		b := fixture.Read(t, path.Dir(f), path.Base(f))
		if p := CompareJSON(b, b); len(p) != 0 {
			t.Errorf("%s against itself: %q", f, p)
		}
	}
}
