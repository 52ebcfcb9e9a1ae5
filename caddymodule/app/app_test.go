package app

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/oa"
	"github.com/besluitbron/besluitbron/platforms/tk"
	"github.com/besluitbron/besluitbron/replica/bleveindex"
	up "github.com/besluitbron/besluitbron/upstream"
)

func parse(t *testing.T, input string) (*App, error) {
	t.Helper()
	a := new(App)
	err := a.UnmarshalCaddyfile(caddyfile.NewTestDispenser(input))
	return a, err
}

func provision(t *testing.T, a *App) error {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	return a.Provision(ctx)
}

func TestUnmarshalCaddyfile(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		want        App
	}{
		{"empty", `besluitbron`, App{}},
		{"unset placeholders keep the defaults", `besluitbron {
			contact
			allow_private
			trusted_sources
			platform obv {
				base_url
			}
		}`, App{}},
		{"full", `besluitbron {
			contact ops@example.org
			allow_private 127.0.0.1/8 10.0.0.0/8
			trusted_sources 192.0.2.0/24
			cache_dir /var/cache/bb
			process_limit 500/s 1000
			store local
			platform opentk {
				base_url http://127.0.0.1:9104 http://127.0.0.1:9105/tkconv
				search_paths /search /ksds
				max_searches_per_host 3
				queue_wait 5s
			}
			platform tk {
				capacity 10
				window 1s
				max_queue 50
				max_wait 10s
			}
		}`, App{
			Contact: "ops@example.org", AllowPrivate: []string{"127.0.0.1/8", "10.0.0.0/8"},
			TrustedSources: []string{"192.0.2.0/24"}, CacheDir: "/var/cache/bb",
			ProcessLimit: &Limit{Rate: "500/s", Burst: 1000}, Store: "local",
			Platforms: map[string]*PlatformConfig{
				"opentk": {BaseURLs: []string{"http://127.0.0.1:9104", "http://127.0.0.1:9105/tkconv"}, SearchPaths: []string{"/search", "/ksds"},
					MaxSearchesPerHost: 3, QueueWait: caddy.Duration(5 * time.Second)},
				"tk": {Capacity: 10, Window: caddy.Duration(time.Second), MaxQueue: 50, MaxWait: caddy.Duration(10 * time.Second)},
			},
		}},
		{"process limit off", `besluitbron {
			process_limit off
		}`, App{ProcessLimit: &Limit{Rate: "off"}}},
		{"replica memory", `besluitbron {
			replica_memory 512MiB
		}`, App{ReplicaMemory: ptr(int64(512 << 20))}},
		{"replica memory off", `besluitbron {
			replica_memory off
		}`, App{ReplicaMemory: ptr(int64(0))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parse(t, tc.input)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tc.want) {
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(tc.want)
				t.Errorf("got  %s\nwant %s", g, w)
			}
		})
	}
}

func TestUnmarshalCaddyfileRejects(t *testing.T) {
	for name, input := range map[string]string{
		"argument":            `besluitbron x`,
		"unknown option":      "besluitbron {\n nonsense 1\n}",
		"unknown platform":    "besluitbron {\n platform nope {\n base_url http://x\n }\n}",
		"platform twice":      "besluitbron {\n platform obv {\n base_url http://a\n }\n platform obv {\n base_url http://b\n }\n}",
		"two contacts":        "besluitbron {\n contact a b\n}",
		"bad capacity":        "besluitbron {\n platform obv {\n capacity -1\n }\n}",
		"bad window":          "besluitbron {\n platform obv {\n window soon\n }\n}",
		"zero max_queue":      "besluitbron {\n platform obv {\n max_queue 0\n }\n}",
		"process no burst":    "besluitbron {\n process_limit 5/s\n}",
		"process bad burst":   "besluitbron {\n process_limit 5/s many\n}",
		"search_paths empty":  "besluitbron {\n platform ori {\n search_paths\n }\n}",
		"platform option":     "besluitbron {\n platform obv {\n contact x\n }\n}",
		"odata_root off tk":   "besluitbron {\n platform obv {\n odata_root /OData/v5\n }\n}",
		"bad odata_root":      "besluitbron {\n platform tk {\n odata_root OData v5\n }\n}",
		"oa option off oa":    "besluitbron {\n platform ob {\n search_path /api/search\n }\n}",
		"oa option no value":  "besluitbron {\n platform oa {\n search_path\n }\n}",
		"replica_memory bare": "besluitbron {\n replica_memory\n}",
		"replica_memory word": "besluitbron {\n replica_memory lots\n}",
		"replica_memory two":  "besluitbron {\n replica_memory 1GiB 2GiB\n}",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := parse(t, input); err == nil {
				t.Errorf("%q accepted", input)
			}
		})
	}
}

func TestDescriptorsLayConfigOverTheTable(t *testing.T) {
	a := &App{Platforms: map[string]*PlatformConfig{
		"obv":    {BaseURLs: []string{"http://127.0.0.1:9102"}, Capacity: 30},
		"tk":     {Capacity: 10, Window: caddy.Duration(time.Second)},
		"opentk": {SearchPaths: []string{"off"}, MaxSearchesPerHost: 4},
	}}
	if err := provision(t, a); err != nil {
		t.Fatal(err)
	}
	obv, _ := a.Platform(platforms.OBV)
	if !reflect.DeepEqual(obv.BaseURLs, []string{"http://127.0.0.1:9102"}) || obv.Budget.Capacity != 30 || obv.Budget.Window != time.Minute {
		t.Errorf("obv: %+v %+v", obv.BaseURLs, obv.Budget)
	}
	if len(obv.Budget.Costs) != 2 || obv.Budget.Costs[0].Per != 24 {
		t.Errorf("obv keeps its prices: %+v", obv.Budget.Costs)
	}
	if tk, _ := a.Platform(platforms.TK); tk.Budget == nil || tk.Budget.Capacity != 10 {
		t.Errorf("tk budget: %+v", tk.Budget)
	}
	if o, _ := a.Platform(platforms.OpenTK); o.Search.Paths != nil || o.Search.MaxPerHost != 4 || o.Search.QueueWait != 20*time.Second {
		t.Errorf("opentk search: %+v", o.Search)
	}
	if ob, _ := a.Platform(platforms.OB); !reflect.DeepEqual(ob.BaseURLs, []string{"https://repository.overheid.nl"}) {
		t.Errorf("ob keeps its default: %v", ob.BaseURLs)
	}
	if !a.BaseURLSet(platforms.OBV) || a.BaseURLSet(platforms.ORI) {
		t.Error("BaseURLSet")
	}
	if a.ContactAddress() != platforms.DefaultContact {
		t.Errorf("contact %q", a.ContactAddress())
	}
	// A descriptor is a copy: changing it changes neither app nor table.
	obv.Budget.Costs[0].Per = 1
	obv.BaseURLs[0] = "x"
	if again, _ := a.Platform(platforms.OBV); again.Budget.Costs[0].Per != 24 || again.BaseURLs[0] == "x" {
		t.Error("a caller changed the app's descriptor")
	}
	if def, _ := platforms.Get(platforms.OBV); def.Budget.Capacity != 60 {
		t.Error("the app changed the table")
	}
}

// Every platform has a budget in the table (issue 19: TK, OpenTK and ORI
// a polite default), so capacity alone changes it and keeps its window.
func TestCapacityAloneOverridesADefaultBudget(t *testing.T) {
	a := &App{Platforms: map[string]*PlatformConfig{"opentk": {Capacity: 1}}}
	if err := provision(t, a); err != nil {
		t.Fatal(err)
	}
	o, _ := a.Platform(platforms.OpenTK)
	def, _ := platforms.Get(platforms.OpenTK)
	if o.Budget == nil || o.Budget.Capacity != 1 || o.Budget.Window != def.Budget.Window || def.Budget.Capacity == 1 {
		t.Errorf("opentk budget %+v, table %+v", o.Budget, def.Budget)
	}
}

func TestProvisionRejects(t *testing.T) {
	for name, a := range map[string]*App{
		"unknown platform":    {Platforms: map[string]*PlatformConfig{"nope": {}}},
		"bad base URL":        {Platforms: map[string]*PlatformConfig{"obv": {BaseURLs: []string{"ftp://x"}}}},
		"negative":            {Platforms: map[string]*PlatformConfig{"obv": {MaxQueue: -1}}},
		"bad allow_private":   {AllowPrivate: []string{"localhost"}},
		"bad trusted_sources": {TrustedSources: []string{"10.0.0.0/33"}},
		"store not a URL":     {Store: "redis"},
		"store bad scheme":    {Store: "memcached://x:1"},
		"negative instances":  {Store: "redis://127.0.0.1:6379/0", Instances: -1},
		"negative memory":     {ReplicaMemory: ptr(int64(-1))},
	} {
		t.Run(name, func(t *testing.T) {
			if err := provision(t, a); err == nil {
				t.Error("accepted")
			}
		})
	}
}

// A config's staged changes apply when it starts, never when it is
// provisioned; a config that fails to start puts the running one's back.
func TestStagedChangesApplyAtStart(t *testing.T) {
	var inUse []string
	newApp := func(name string, urls ...string) *App {
		a := &App{Platforms: map[string]*PlatformConfig{"ob": {BaseURLs: urls}}}
		if err := provision(t, a); err != nil {
			t.Fatal(err)
		}
		a.OnStart(func() { inUse = append(inUse, name) })
		return a
	}
	// The base URLs of the config in force.
	obBases := func() string {
		inForce.Lock()
		a := inForce.app
		inForce.Unlock()
		if a == nil {
			return ""
		}
		return strings.Join(a.LinkBaseURLs(platforms.OB), " ")
	}

	running := newApp("first", "http://one.example")
	if len(inUse) != 0 {
		t.Fatal("applied in Provision")
	}
	if err := running.Start(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(inUse, ",") != "first" || !strings.Contains(obBases(), "one.example") {
		t.Fatalf("after Start: %v %s", inUse, obBases())
	}

	// A reload whose other apps fail to start: Caddy stops the new app
	// while the first still runs.
	failed := newApp("failed", "http://two.example")
	if strings.Join(inUse, ",") != "first" || strings.Contains(obBases(), "two.example") {
		t.Fatalf("a provisioned config changed the running one: %v %s", inUse, obBases())
	}
	if err := failed.Start(); err != nil {
		t.Fatal(err)
	}
	if err := failed.Stop(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(inUse, ",") != "first,failed,first" || strings.Contains(obBases(), "two.example") {
		t.Fatalf("the running config's changes were not put back: %v %s", inUse, obBases())
	}

	// A reload that succeeds: the new config starts, then the old stops;
	// stopping the old one changes nothing.
	next := newApp("next", "http://three.example")
	if err := next.Start(); err != nil {
		t.Fatal(err)
	}
	if err := running.Stop(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(inUse, ",") != "first,failed,first,next" || !strings.Contains(obBases(), "three.example") {
		t.Fatalf("after the reload: %v %s", inUse, obBases())
	}
	if next.prev != nil {
		t.Error("the app in force still holds the stopped one")
	}
	// Shutdown: nothing to put back.
	if err := next.Stop(); err != nil {
		t.Fatal(err)
	}
	if len(inUse) != 4 {
		t.Errorf("shutdown applied something: %v", inUse)
	}
}

// replica_memory is the decoded postings' budget of the config in force:
// set when it starts, the default when it gives none.
func TestReplicaMemoryAppliesAtStart(t *testing.T) {
	t.Cleanup(func() { bleveindex.SetDecodedBudget(bleveindex.DefaultDecodedBudget) })
	for _, c := range []struct {
		memory *int64
		want   int64
	}{{ptr(int64(1 << 20)), 1 << 20}, {nil, bleveindex.DefaultDecodedBudget}, {ptr(int64(0)), 0}} {
		a := &App{ReplicaMemory: c.memory}
		what := "unset"
		if c.memory != nil {
			what = fmt.Sprint(*c.memory)
		}
		if err := provision(t, a); err != nil {
			t.Fatal(err)
		}
		bleveindex.SetDecodedBudget(12345)
		if got := bleveindex.DecodedBudget(); got != 12345 {
			t.Fatalf("set in Provision: %d", got)
		}
		if err := a.Start(); err != nil {
			t.Fatal(err)
		}
		if got := bleveindex.DecodedBudget(); got != c.want {
			t.Errorf("replica_memory %s: budget %d, want %d", what, got, c.want)
		}
		if got := gauge(t, theReplicaCollector(), "caddy_besluitbron_replica_memory_budget_bytes"); got != float64(c.want) {
			t.Errorf("replica_memory %s: the budget's gauge says %v, want %d", what, got, c.want)
		}
		if err := a.Stop(); err != nil {
			t.Fatal(err)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// gauge is the value of the gauge named name that c collects now.
func gauge(t *testing.T, c prometheus.Collector, name string) float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name && len(f.GetMetric()) == 1 {
			return f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no single gauge %s", name)
	return 0
}

// Links into a platform (OB's itemUrl) are checked against the base URLs
// of the config the handler belongs to: its besluitbron block's, its
// handlers' own, and the public ones; another config's never count,
// whether it loaded or failed.
func TestLinkBaseURLs(t *testing.T) {
	running := &App{Platforms: map[string]*PlatformConfig{"ob": {BaseURLs: []string{"http://mirror.example/ob"}}}}
	if err := provision(t, running); err != nil {
		t.Fatal(err)
	}
	running.UsesBaseURLs(platforms.OB, []string{"http://proxy-own.example"})
	failed := &App{Platforms: map[string]*PlatformConfig{"ob": {BaseURLs: []string{"http://evil.example"}}}}
	if err := provision(t, failed); err != nil {
		t.Fatal(err)
	}
	failed.UsesBaseURLs(platforms.OB, []string{"http://evil2.example"})

	bases := running.LinkBaseURLs(platforms.OB)
	for _, tc := range []struct {
		url, rest string // rest "": refused
	}{
		{"http://mirror.example/ob/frbr/a.xml", "/frbr/a.xml"},
		{"http://proxy-own.example/frbr/a.xml", "/frbr/a.xml"},
		{"https://repository.overheid.nl/frbr/a.xml", "/frbr/a.xml"},
		{"http://mirror.example/frbr/a.xml", ""}, // outside the mirror's prefix
		{"http://evil.example/frbr/a.xml", ""},   // another config's base URL
		{"http://evil2.example/frbr/a.xml", ""},  // another config's handler's
	} {
		rest, err := up.CheckURL(platforms.OB, bases, tc.url)
		if tc.rest == "" && err == nil {
			t.Errorf("%s accepted as %s", tc.url, rest)
		}
		if tc.rest != "" && (err != nil || rest != tc.rest) {
			t.Errorf("%s: %q %v, want %q", tc.url, rest, err, tc.rest)
		}
	}
	if got := running.LinkBaseURLs("nosuch"); got != nil {
		t.Errorf("unknown platform: %v", got)
	}
	bases[0] = "http://changed.example"
	if running.LinkBaseURLs(platforms.OB)[0] != "http://mirror.example/ob" {
		t.Error("a caller changed the app's base URLs")
	}
}

// A handler provisioned outside any config (unit tests) still finds the
// table's defaults.
func TestLoadWithoutConfig(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	a, err := Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := a.Platform(platforms.OBV); !ok || p.Budget.Capacity != 60 {
		t.Errorf("obv: %+v", p)
	}
}

// The session registry is shared state: every config's app holds the same
// one, so sessions survive a reload (the old config's Cleanup leaves them),
// and each app releases its one reference once. Other tests' apps may hold
// the registry too, so the references are counted from where they stand.
func TestSessionsSurviveReload(t *testing.T) {
	refs := func() int { n, _ := pool.References(sessionsKey); return n }
	// Earlier tests' apps without a config release their reference when
	// their context ends, in a goroutine: let them finish first.
	standalone.cleaning.Wait()
	base := refs()
	old, next := new(App), new(App)
	if err := provision(t, old); err != nil {
		t.Fatal(err)
	}
	old.Sessions().Add("s1-reload", "raad")
	defer old.Sessions().Remove("s1-reload", "raad")
	if err := provision(t, next); err != nil {
		t.Fatal(err)
	}
	if next.Sessions() != old.Sessions() || refs() != base+2 {
		t.Fatalf("the new config's app got a registry of its own, or no reference (%d refs, want %d)", refs(), base+2)
	}
	_ = old.Cleanup() // the old config is unloaded after the new one started
	_ = old.Cleanup() // a second Cleanup releases nothing more
	if !next.Sessions().IssuedBy("s1-reload", "raad") || refs() != base+1 {
		t.Fatalf("after the reload: session kept %v, %d refs, want %d", next.Sessions().IssuedBy("s1-reload", "raad"), refs(), base+1)
	}
	// A config that fails to provision takes no reference.
	if err := provision(t, &App{Store: "redis"}); err == nil {
		t.Fatal("store redis provisioned")
	}
	if refs() != base+1 {
		t.Fatalf("a failed provision left %d refs, want %d", refs(), base+1)
	}
	_ = next.Cleanup()
	if refs() != base {
		t.Fatalf("after every cleanup: %d refs, want %d", refs(), base)
	}
}

// A platform's own settings live once, in its block, read by the
// platform: the Tweede Kamer's OData root and Open Archivaris' endpoints,
// with the platforms' defaults where the block says nothing, and a
// handler's own laid over them.
func TestPlatformSettings(t *testing.T) {
	a, err := parse(t, "besluitbron {\n platform tk {\n odata_root /OData/v4/2.0\n }\n platform oa {\n search_path /zoek\n query_param term\n }\n}")
	if err != nil {
		t.Fatal(err)
	}
	if err := provision(t, a); err != nil {
		t.Fatal(err)
	}
	s := a.AdapterSettings(nil, nil)
	if got := s.Of("tk"); got != "/OData/v4/2.0" {
		t.Errorf("tk's setting = %v", got)
	}
	e, _ := s.Of("oa").(oa.Endpoints)
	if e.SearchPath != "/zoek" || e.QueryParam != "term" || e.DocumentPath != oa.Defaults.DocumentPath {
		t.Errorf("oa's setting = %+v", e)
	}
	over, err := a.SettingsOver(map[string]platforms.Options{"oa": {"query_param": {"zoekterm"}}})
	if err != nil {
		t.Fatal(err)
	}
	if e := over["oa"].(oa.Endpoints); e.SearchPath != "/zoek" || e.QueryParam != "zoekterm" {
		t.Errorf("a handler's option over the app's: %+v", e)
	}
	if _, err := a.SettingsOver(map[string]platforms.Options{"tk": {"odata_root": {"OData"}}}); err == nil || !strings.Contains(err.Error(), "platform tk") {
		t.Errorf("a bad handler option: %v", err)
	}
	plain := new(App)
	if err := provision(t, plain); err != nil {
		t.Fatal(err)
	}
	if s := plain.AdapterSettings(nil, nil); s.Of("tk") != tk.DefaultRoot || s.Of("oa") != oa.Defaults || s.Of("obv") != nil {
		t.Errorf("defaults: %v %+v %v", s.Of("tk"), s.Of("oa"), s.Of("obv"))
	}
	// In JSON, options a platform does not take are refused at Provision.
	for _, c := range []*PlatformConfig{{Options: platforms.Options{"odata_root": {"/OData/v5"}}}, {Options: platforms.Options{"nosuch": {"x"}}}} {
		bad := &App{Platforms: map[string]*PlatformConfig{"obv": c}}
		if err := provision(t, bad); err == nil || !strings.Contains(err.Error(), "obv") {
			t.Errorf("options %v on obv: %v", c.Options, err)
		}
	}
	tkBad := &App{Platforms: map[string]*PlatformConfig{"tk": {Options: platforms.Options{"nosuch": {"x"}}}}}
	if err := provision(t, tkBad); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("an unknown tk option: %v", err)
	}
}
