package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func TestUnmarshalCaddyfile(t *testing.T) {
	d := caddyfile.NewTestDispenser(`mcp raad {
		platforms obv ori oa
		experimental_oa
		max_body 2MB
		max_text_chars 9000
		allowed_origins https://claude.ai
		allowed_hosts besluitbron.nl
		session_idle 2h
		status_refresh off
		oa_search_path /api/v2/search
		oa_offset_param from
	}`)
	var h Handler
	if err := h.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(h)
	want := `{"name":"raad","platforms":["obv","ori","oa"],"experimental_oa":true,"max_body_bytes":2000000,"max_text_chars":9000,"allowed_origins":["https://claude.ai"],"allowed_hosts":["besluitbron.nl"],"session_idle":7200000000000,"status_refresh":-1,"oa":{"search_path":"/api/v2/search","offset_param":"from"}}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct{ in, want string }{
		{`mcp`, "needs a connector name"},
		{`mcp a b`, "takes one name"},
		{`mcp a { colour red }`, "unknown option"},
		{`mcp a { max_body lots }`, "give a size"},
		{`mcp a { max_text_chars 5 }`, "at least 200"},
		{`mcp a { session_idle soon }`, "duration"},
		{`mcp a { max_body 1MB 2MB }`, "too many arguments"},
	} {
		var h Handler
		err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(bad.in))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: %v, want %q", bad.in, err, bad.want)
		}
	}
	for _, bad := range []struct {
		h    Handler
		want string
	}{
		{Handler{Name: "x y"}, "must be 1-64"},
		{Handler{Name: "a", Platforms: []string{"obv", "nope"}}, `unknown platform "nope"`},
		{Handler{Name: "a", Platforms: []string{"obv", "obv"}}, "listed twice"},
		{Handler{Name: "a", AllowedOrigins: []string{"claude.ai"}}, "must look like"},
		{Handler{Name: "a", ExperimentalOA: true, OA: &OAEndpoints{SearchPath: "api"}}, "must start with /"},
		// Open Archivaris' API is assumed: its tools need oa listed and
		// experimental_oa, both.
		{Handler{Name: "a", Platforms: []string{"obv", "oa"}}, "platform oa needs experimental_oa"},
		{Handler{Name: "a", Platforms: []string{"obv"}, ExperimentalOA: true}, "add oa to platforms"},
		{Handler{Name: "a", OA: &OAEndpoints{SearchPath: "/api"}}, "add experimental_oa"},
	} {
		if err := bad.h.Validate(); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v, want %q", bad.h, err, bad.want)
		}
	}
}
