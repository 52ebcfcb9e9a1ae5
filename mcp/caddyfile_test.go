package mcp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/platforms"
	"github.com/caddyserver/caddy/v2"
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
		search_deadline 20s
		oa_search_path /api/v2/search
		oa_offset_param from
	}`)
	var h Handler
	if err := h.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(h)
	want := `{"name":"raad","platforms":["obv","ori","oa"],"experimental":["oa"],"max_body_bytes":2000000,"max_text_chars":9000,"allowed_origins":["https://claude.ai"],"allowed_hosts":["besluitbron.nl"],"session_idle":7200000000000,"status_refresh":-1,"search_deadline":20000000000,"platform_options":{"oa":{"offset_param":["from"],"search_path":["/api/v2/search"]}}}`
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
		{`mcp a { search_deadline 0s }`, "give a duration"},
		{`mcp a { search_deadline 5s 6s }`, "wrong argument count"},
		{`mcp a { max_body 1MB 2MB }`, "too many arguments"},
		{"mcp a {\n tk_odata_root\n}", "wrong argument count"},
		{`mcp a { tk_nosuch /x }`, "tk_odata_root"},
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
		{Handler{Name: "a", SearchDeadline: caddy.Duration(3 * time.Minute)}, "search_deadline must be from 1s to 2m0s"},
		{Handler{Name: "a", SearchDeadline: caddy.Duration(time.Millisecond)}, "search_deadline must be from 1s"},
		{Handler{Name: "a", Platforms: []string{"obv", "nope"}}, `unknown platform "nope"`},
		{Handler{Name: "a", Platforms: []string{"obv", "obv"}}, "listed twice"},
		{Handler{Name: "a", AllowedOrigins: []string{"claude.ai"}}, "must look like"},
		{Handler{Name: "a", Experimental: []string{"oa"}, PlatformOptions: map[string]platforms.Options{"oa": {"search_path": {"api"}}}}, "must start with /"},
		{Handler{Name: "a", PlatformOptions: map[string]platforms.Options{"tk": {"odata_root": {"OData/"}}}}, "tk options: odata_root"},
		{Handler{Name: "a", PlatformOptions: map[string]platforms.Options{"obv": {"odata_root": {"/OData/v5"}}}}, "takes no option"},
		{Handler{Name: "a", Experimental: []string{"tk"}}, "no experimental platform"},
		// Open Archivaris' API is assumed: its tools need oa listed and
		// experimental_oa, both.
		{Handler{Name: "a", Platforms: []string{"obv", "oa"}}, "platform oa needs experimental_oa"},
		{Handler{Name: "a", Platforms: []string{"obv"}, Experimental: []string{"oa"}}, "add oa to platforms"},
		{Handler{Name: "a", PlatformOptions: map[string]platforms.Options{"oa": {"search_path": {"/api"}}}}, "add experimental_oa"},
	} {
		if err := bad.h.Validate(); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v, want %q", bad.h, err, bad.want)
		}
	}
}
