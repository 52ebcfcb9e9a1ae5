package platformlimit

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/fairqueue"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
)

func parse(t *testing.T, input string) (*Handler, error) {
	t.Helper()
	var h Handler
	err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(input))
	return &h, err
}

func TestCaddyfile(t *testing.T) {
	h, err := parse(t, `platform_limit obv {
		capacity 60
		window 1m
		@pdf path /api/entities/*/pdf/page/*
		@export {
			path /api/export/*
			method GET
		}
		cost /api/search ceil(limit/24) default 24 max 100
		cost @pdf 1/8
		cost @export 2
		cost * 1
		max_queue 500
		max_wait 90s
		session_key {http.request.header.X-User}
		trusted_sources 10.0.0.0/8 2001:db8::/32
		trusted_sources 192.0.2.7
		reject_status 429
	}`)
	if err != nil {
		t.Fatal(err)
	}
	if h.Platform != "obv" || h.Capacity != 60 || time.Duration(h.Window) != time.Minute ||
		h.MaxQueue != 500 || time.Duration(h.MaxWait) != 90*time.Second ||
		h.SessionKey != "{http.request.header.X-User}" || h.RejectStatus != 429 ||
		strings.Join(h.TrustedSources, " ") != "10.0.0.0/8 2001:db8::/32 192.0.2.7" {
		t.Fatalf("parsed %+v", h)
	}
	if len(h.Costs) != 4 {
		t.Fatalf("%d cost rules", len(h.Costs))
	}
	js, _ := json.Marshal(h.Costs)
	for _, want := range []string{
		`{"match":[{"path":["/api/search"]}],"units":1,"param":"limit","per":24,"param_default":24,"param_max":100}`,
		`{"match":[{"path":["/api/entities/*/pdf/page/*"]}],"units":0.125}`,
		`"method":["GET"]`,
		`{"units":1}`,
	} {
		if !strings.Contains(string(js), want) {
			t.Errorf("costs JSON %s lacks %s", js, want)
		}
	}
	// The bare directive takes the platform's built-ins at Provision.
	h, err = parse(t, `platform_limit rechtspraak`)
	if err != nil || h.Platform != "rechtspraak" || h.Capacity != 0 {
		t.Fatalf("bare directive: %+v %v", h, err)
	}
}

func TestCaddyfileBadInput(t *testing.T) {
	bad := map[string]string{
		"no platform":         `platform_limit`,
		"two platforms":       `platform_limit obv ob`,
		"zero capacity":       "platform_limit obv {\ncapacity 0\n}",
		"word capacity":       "platform_limit obv {\ncapacity lots\n}",
		"bad window":          "platform_limit obv {\nwindow soon\n}",
		"window two args":     "platform_limit obv {\nwindow 1m 2m\n}",
		"max_queue 0":         "platform_limit obv {\nmax_queue 0\n}",
		"reject_status word":  "platform_limit obv {\nreject_status nope\n}",
		"cost without units":  "platform_limit obv {\ncost /api/search\n}",
		"cost bad matcher":    "platform_limit obv {\ncost api/search 1\n}",
		"cost bad units":      "platform_limit obv {\ncost * -1\n}",
		"cost bad fraction":   "platform_limit obv {\ncost * 1/0\n}",
		"cost bad ceil":       "platform_limit obv {\ncost * ceil(limit)\n}",
		"cost ceil zero":      "platform_limit obv {\ncost * ceil(limit/0)\n}",
		"default w/o param":   "platform_limit obv {\ncost * 1 default 24\n}",
		"unknown cost option": "platform_limit obv {\ncost * ceil(limit/24) min 3\n}",
		"undefined matcher":   "platform_limit obv {\ncost @nope 1\n}",
		"matcher twice":       "platform_limit obv {\n@a path /a\n@a path /b\n}",
		"unknown option":      "platform_limit obv {\nburst 5\n}",
		"session_key no arg":  "platform_limit obv {\nsession_key\n}",
		"trusted no arg":      "platform_limit obv {\ntrusted_sources\n}",
		"trusted bad cidr":    "platform_limit obv {\ntrusted_sources 10.0.0.0/33\n}",
		"trusted hostname":    "platform_limit obv {\ntrusted_sources proxy.example\n}",
	}
	for name, in := range bad {
		t.Run(name, func(t *testing.T) {
			if _, err := parse(t, in); err == nil {
				t.Fatalf("accepted:\n%s", in)
			}
		})
	}
}

func TestValidateBadConfig(t *testing.T) {
	bad := map[string]Handler{
		"platform without a limit": {Platform: "unlisted"}, // every listed platform has one (platforms)
		"negative capacity":        {Platform: "x", Capacity: -1, Window: caddy.Duration(time.Second)},
		"no window":                {Platform: "x", Capacity: 5},
		"negative max_queue":       {Platform: "obv", MaxQueue: -1},
		"negative max_wait":        {Platform: "obv", MaxWait: -1},
		"reject 500":               {Platform: "obv", RejectStatus: 500},
		"param without per":        {Platform: "obv", Costs: []*CostRule{{Param: "limit"}}},
		"negative units":           {Platform: "obv", Costs: []*CostRule{{Units: -2}}},
		"bad trusted source":       {Platform: "obv", TrustedSources: []string{"not-an-address"}},
	}
	for name, h := range bad {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := caddy.NewContext(caddy.Context{Context: t.Context()})
			defer cancel()
			err := h.Provision(ctx)
			if err == nil {
				_ = h.Cleanup()
				t.Fatal("provisioned")
			}
			t.Log(err)
			if budgetsHas(h.Platform) {
				t.Fatal("a failed Provision left a budget reference behind")
			}
		})
	}
}

func budgetsHas(platform string) bool {
	_, ok := budgets.References(platform)
	return ok
}

// TestDocumentedBlockAdaptsAndValidates runs docs/fair-queue.md's
// OpenBesluitvorming block through the Caddyfile adapter and Caddy's
// validation (which provisions every module).
func TestDocumentedBlockAdaptsAndValidates(t *testing.T) {
	cfgJSON := testcaddy.Adapt(t, `{
	admin off
}
http://127.0.0.1:1 {
	route /platforms/obv/* {
		uri strip_prefix /platforms/obv
		platform_limit obv {
			capacity 60
			window   1m
			@pdf path /api/entities/*/pdf/page/*
			cost /api/search ceil(limit/24) default 24 max 100
			cost @pdf 1/8
			cost * 1
			session_key {http.request.header.X-User}
		}
		reverse_proxy 127.0.0.1:2
	}
	platform_limit /platforms/oa/* oa
	route /platforms/oa2/* {
		platform_limit oa {
			capacity  120
			window    1m
			max_queue 1000
			max_wait  2m
		}
	}
	route /platforms/ob/* {
		platform_limit ob {
			capacity  2
			window    1s
			max_queue 1000
			max_wait  30s
		}
	}
	route /platforms/rechtspraak/* {
		platform_limit rechtspraak {
			capacity  5
			window    1s
			max_queue 1000
			max_wait  30s
		}
	}
}`)
	for _, want := range []string{`"handler":"platform_limit"`, `"param":"limit"`, `"units":0.125`, `"platform":"oa"`} {
		if !strings.Contains(string(cfgJSON), want) {
			t.Errorf("adapted JSON lacks %s:\n%s", want, cfgJSON)
		}
	}
	var cfg caddy.Config
	if err := json.Unmarshal(cfgJSON, &cfg); err != nil {
		t.Fatal(err)
	}
	if err := caddy.Validate(&cfg); err != nil {
		t.Fatalf("validate: %v", err)
	}
	if fairqueue.Shared != session.Shared {
		t.Fatalf("fairqueue.Shared %q differs from session.Shared %q", fairqueue.Shared, session.Shared)
	}
}
