package shape

import (
	"strings"
	"testing"
)

func TestNoExtraJSON(t *testing.T) {
	want := []byte(`{"error":"x","hint":"h","results":[{"id":"a"},{"id":"b","opt":1}],"meta":null,"list":[]}`)
	cases := []struct {
		name string
		got  string
		opts []Option
		errs []string
	}{
		{"same keys", `{"error":"y","hint":"z","results":[{"id":"c"}],"meta":null,"list":[]}`, nil, nil},
		// An optional key shown on any element of want's array is known.
		{"optional key from a later element", `{"error":"y","hint":"z","results":[{"id":"c","opt":2}],"meta":null,"list":[]}`, nil, nil},
		{"invented top-level key", `{"error":"y","hint":"z","code":"bad_sort","results":[],"meta":null,"list":[]}`, []Option{AllowEmpty()}, []string{"code: not in want (extra string)"}},
		// Every element of got is judged, not only the first.
		{"invented key in a later element", `{"error":"y","hint":"z","results":[{"id":"c"},{"id":"d","titel":"t"}],"meta":null,"list":[]}`, nil, []string{"results[].titel: not in want (extra string)"}},
		{"reported once for many elements", `{"error":"y","hint":"z","results":[{"id":"c","u":1},{"id":"d","u":2}],"meta":null,"list":[]}`, nil, []string{"results[].u: not in want (extra number)"}},
		{"topmost only", `{"error":"y","hint":"z","results":[{"id":"c"}],"meta":null,"list":[],"x":{"a":{"b":1}}}`, nil, []string{"x: not in want (extra object)"}},
		// null and [] in want do not show a shape, so nothing below them is extra.
		{"below null and empty array", `{"error":"y","hint":"z","results":[{"id":"c"}],"meta":{"k":1},"list":[{"k":1}]}`, nil, nil},
		{"allowed", `{"error":"y","hint":"z","code":"c","results":[{"id":"c","vote_summary":{"voor":1}}],"meta":null,"list":[]}`, []Option{Allow("code", "results[].vote_summary")}, nil},
		{"ignored counts as allowed", `{"error":"y","hint":"z","code":"c","results":[{"id":"c"}],"meta":null,"list":[]}`, []Option{Ignore("code")}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			probs := CompareJSON([]byte(c.got), want, append(c.opts, NoExtra())...)
			if strings.Join(probs, "|") != strings.Join(c.errs, "|") {
				t.Errorf("got %q\nwant %q", probs, c.errs)
			}
			// Without NoExtra the one-way check never reports an extra.
			for _, p := range CompareJSON([]byte(c.got), want, c.opts...) {
				if strings.Contains(p, "not in want") {
					t.Errorf("one-way check reported an extra: %s", p)
				}
			}
		})
	}
}

func TestNoExtraJSONAt(t *testing.T) {
	got := []byte(`{"results":[{"entityId":"a","date":"d","invented":true}],"totalCount":1}`)
	p := CompareJSON(got, []byte(`{"entityId":"x","date":"y"}`), At("results[]"), NoExtra())
	if strings.Join(p, "|") != "results[].invented: not in want (extra boolean)" {
		t.Errorf("%q", p)
	}
}

func TestNoExtraXML(t *testing.T) {
	want := []byte(`<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><entry><id>1</id><link rel="alternate" href="h"/></entry></feed>`)
	good := []byte(`<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><entry><id>2</id><link href="z" rel="x"/></entry><entry><id>3</id><link rel="a" href="b"/></entry></feed>`)
	if p := CompareXML(good, want, NoExtra()); len(p) != 0 {
		t.Errorf("same paths: %q", p)
	}
	bad := []byte(`<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><entry kind="conclusie"><id>2</id><link href="z" rel="x" type="text/html"/><invented><deep/></invented></entry></feed>`)
	p := CompareXML(bad, want, NoExtra(), IgnoreNamespaces())
	wantProbs := []string{"feed/entry/@kind: not in want (extra)", "feed/entry/link/@type: not in want (extra)", "feed/entry/invented: not in want (extra)"}
	if strings.Join(p, "|") != strings.Join(wantProbs, "|") {
		t.Errorf("got %q\nwant %q", p, wantProbs)
	}
	if p := CompareXML(bad, want, NoExtra(), IgnoreNamespaces(), Allow("feed/entry/@kind", "feed/entry/link/@type", "feed/entry/invented")); len(p) != 0 {
		t.Errorf("allowed: %q", p)
	}
	// A fragment judges only what lies below its root.
	frag := []byte(`<entry><id>1</id></entry>`)
	p = CompareXML(bad, frag, NoExtra(), IgnoreNamespaces(), Anywhere())
	wantProbs = []string{"entry/@kind: not in want (extra)", "entry/link: not in want (extra)", "entry/invented: not in want (extra)"}
	if strings.Join(p, "|") != strings.Join(wantProbs, "|") {
		t.Errorf("fragment: got %q\nwant %q", p, wantProbs)
	}
}

func TestExact(t *testing.T) {
	ft := &fakeT{TB: t}
	Exact(ft, []byte(` {"a":1,"b":2}`), []byte(`{"a":0}`))
	if len(ft.errs) != 1 || ft.errs[0] != "b: not in want (extra number)" {
		t.Errorf("json: %q", ft.errs)
	}
	ft = &fakeT{TB: t}
	Exact(ft, []byte("\xef\xbb\xbf<a><b/></a>"), []byte(`<a/>`))
	if len(ft.errs) != 1 || ft.errs[0] != "a/b: not in want (extra)" {
		t.Errorf("xml: %q", ft.errs)
	}
	if p := CompareExact([]byte(`{"a":1}`), []byte(`{"a":0}`)); len(p) != 0 {
		t.Errorf("equal: %q", p)
	}
	if !IsJSON([]byte("\n [1]")) || IsJSON([]byte("<x/>")) || IsJSON(nil) {
		t.Error("IsJSON")
	}
}

// fakeT records Error calls so the test can check what Exact reports.
type fakeT struct {
	testing.TB
	errs []string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Error(args ...any) {
	for _, a := range args {
		f.errs = append(f.errs, a.(string))
	}
}

// A fragment compared with its namespaces is found by its root's full
// name, though a namespace URI holds slashes, and an element it lacks is
// reported once, at the topmost.
func TestNoExtraXMLFragmentWithNamespaces(t *testing.T) {
	want := []byte(`<meta xmlns="http://standaarden.overheid.nl/cvdr/terms/" xmlns:dcterms="http://purl.org/dc/terms/"><owmskern><dcterms:title>t</dcterms:title></owmskern></meta>`)
	got := []byte(`<r xmlns:g="http://standaarden.overheid.nl/sru"><g:data><meta xmlns="http://standaarden.overheid.nl/cvdr/terms/" xmlns:dcterms="http://purl.org/dc/terms/"><owmskern><dcterms:title>t</dcterms:title><dcterms:extra><dcterms:inner/></dcterms:extra></owmskern></meta></g:data></r>`)
	probs := CompareExact(got, want, Anywhere())
	if len(probs) != 1 || !strings.HasSuffix(probs[0], "{http://purl.org/dc/terms/}extra: not in want (extra)") {
		t.Fatalf("%q", probs)
	}
	if probs := CompareExact(got, want, Anywhere(), Allow("{http://standaarden.overheid.nl/cvdr/terms/}meta/{http://standaarden.overheid.nl/cvdr/terms/}owmskern/{http://purl.org/dc/terms/}extra")); len(probs) != 0 {
		t.Fatalf("allowed: %q", probs)
	}
	if probs := CompareXML(got[:0:0], want, Anywhere()); len(probs) == 0 {
		t.Fatal("an empty answer matched")
	}
}
