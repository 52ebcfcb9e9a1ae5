package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/mcpkit"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// A parse is reused only for the same bytes: a changed answer (a refresh,
// another version's entry, another request) is parsed anew.
func TestParseOnceOnlyForTheSameBytes(t *testing.T) {
	calls := 0
	parse := func(b []byte) (string, error) { calls++; return strings.ToUpper(string(b)), nil }
	name := t.Name()
	a1 := []byte(`{"v":1}`)
	for i := 0; i < 3; i++ {
		v, err := parseOnce(name, bytes.Clone(a1), parse)
		if err != nil || v != `{"V":1}` {
			t.Fatalf("%q %v", v, err)
		}
	}
	if calls != 1 {
		t.Fatalf("parsed %d times, want 1", calls)
	}
	// Same length, other bytes.
	if v, _ := parseOnce(name, []byte(`{"v":2}`), parse); v != `{"V":2}` || calls != 2 {
		t.Fatalf("changed answer: %q after %d parses", v, calls)
	}
	// Another parser never sees this one's value.
	other := func(b []byte) (string, error) { return "other", nil }
	if v, _ := parseOnce(name+"/other", a1, other); v != "other" {
		t.Fatalf("other parser got %q", v)
	}
	// Failures are not kept.
	bad := func(b []byte) (string, error) { calls++; return "", fmt.Errorf("no") }
	for i := 0; i < 2; i++ {
		if _, err := parseOnce(name+"/bad", []byte("x"), bad); err == nil {
			t.Fatal("no error")
		}
	}
	if calls != 4 {
		t.Fatalf("failed parses kept: %d parses", calls)
	}
}

// The same hash and size with other bytes (a collision) is parsed anew.
func TestParseCacheComparesBytes(t *testing.T) {
	c := newParseCache(8, 1<<20)
	k := parseKey{parser: "p", hash: 42, size: 3}
	c.put(k, []byte("abc"), "abc")
	if _, ok := c.get(k, []byte("xyz")); ok {
		t.Fatal("a colliding key with other bytes was served")
	}
	if v, ok := c.get(k, []byte("abc")); !ok || v != "abc" {
		t.Fatal("the same bytes were not served")
	}
}

func TestParseCacheBounded(t *testing.T) {
	c := newParseCache(4, 100)
	for i := 0; i < 10; i++ {
		b := []byte(fmt.Sprintf("body %d", i))
		c.put(c.key("p", b), b, i)
	}
	if n := c.len(); n != 4 {
		t.Fatalf("%d entries, want 4", n)
	}
	big := bytes.Repeat([]byte("x"), 60)
	c.put(c.key("p", big), big, "big")
	if c.bytes > 100 {
		t.Fatalf("%d bytes held, limit 100", c.bytes)
	}
}

// A caller may change its page's hits without changing the cached page;
// the hits come with their resource URIs.
func TestParsePageHandsOutItsOwnHits(t *testing.T) {
	body := []byte(`{"results":[{"id":"document:a:b:c:1","title":"A"}],"totalCount":1}`)
	parse := func(b []byte) (adapters.Page, error) {
		return adapters.Page{Total: 1, Hits: []adapters.Hit{{ID: "document:a:b:c:1", Type: "Document", Title: "A"}}}, nil
	}
	p1, _ := parsePage("obv", t.Name(), body, parse)
	uri := p1.Hits[0].URI
	p1.Hits[0].Title, p1.Hits[0].URI = "changed", "changed"
	p2, _ := parsePage("obv", t.Name(), body, parse)
	if p2.Hits[0].Title != "A" || p2.Hits[0].URI != uri {
		t.Fatalf("cached page changed: %+v", p2.Hits[0])
	}
	if !strings.HasPrefix(uri, "besluitbron://obv/") {
		t.Fatalf("hit without its resource URI: %q", uri)
	}
}

// The result is encoded once: the text is the structuredContent's JSON,
// and mcp-go writes structuredContent from the same bytes.
func TestStructuredResultEncodesOnce(t *testing.T) {
	out := &mcpkit.PageOut{Meta: mcpkit.Meta{Platform: "obv", FromCache: true}, Results: []adapters.Hit{{ID: "x", Title: "<b>&</b>"}}}
	res := structuredResult(out)
	text := res.Content[0].(mcpgo.TextContent).Text
	if string(res.RawStructuredContent) != text || res.StructuredContent != any(out) {
		t.Fatalf("text %s, raw %s", text, res.RawStructuredContent)
	}
	want, _ := json.Marshal(out)
	var a, b any
	_ = json.Unmarshal(want, &a)
	_ = json.Unmarshal([]byte(text), &b)
	if fmt.Sprint(a) != fmt.Sprint(b) || strings.Contains(text, `\u003c`) {
		t.Fatalf("text %s", text)
	}
	wire, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	var sc, tx any
	_ = json.Unmarshal(wire, &got)
	_ = json.Unmarshal(got.StructuredContent, &sc)
	_ = json.Unmarshal([]byte(text), &tx)
	if fmt.Sprint(sc) != fmt.Sprint(tx) {
		t.Fatalf("wire %s", wire)
	}
}

// mcp-go gets each tool's input schema pre-encoded: the same JSON as the
// structured schema, so tools/list does not change.
func TestWireToolSameSchema(t *testing.T) {
	for _, s := range allSpecs() {
		a, err := json.Marshal(s.tool)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(s.wire)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Fatalf("%s: tools/list would change:\n%s\n%s", s.tool.Name, a, b)
		}
	}
}
