package app

import (
	"context"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/prometheus/client_golang/prometheus"
)

// The generic form of a replica (replica <key> {...}) and the older one
// (caselaw {...}) configure the same replica: either, not both. A
// platform that keeps none, or no platform at all, is refused.
func TestReplicaForms(t *testing.T) {
	provision := func(input string) (*App, error) {
		t.Helper()
		a := new(App)
		if err := a.UnmarshalCaddyfile(caddyfile.NewTestDispenser(input)); err != nil {
			return nil, err
		}
		ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
		t.Cleanup(cancel)
		if err := a.Provision(ctx); err != nil {
			return nil, err
		}
		t.Cleanup(func() { _ = a.Cleanup() })
		return a, nil
	}
	dir := t.TempDir()
	for input, want := range map[string]string{
		"besluitbron {\n cache_dir off\n caselaw {\n since 2020\n dir " + dir + "\n }\n}":             "caselaw|2020-01-01|" + dir,
		"besluitbron {\n cache_dir off\n replica rechtspraak {\n since 2020\n dir " + dir + "\n }\n}": "caselaw|2020-01-01|" + dir,
		"besluitbron {\n cache_dir " + dir + "\n replica rechtspraak\n}":                              "caselaw|2015-01-01|" + dir + "/caselaw",
		"besluitbron {\n cache_dir " + dir + "\n replica rechtspraak {\n since all\n }\n}":            "caselaw||" + dir + "/caselaw",
	} {
		a, err := provision(input)
		if err != nil {
			t.Fatalf("%s: %v", input, err)
		}
		if len(a.replicas) != 1 {
			t.Fatalf("%s: replicas %+v", input, a.replicas)
		}
		r := a.replicas[0]
		if got := r.spec.Name + "|" + r.scope + "|" + r.dir; got != want || r.platform != "rechtspraak" {
			t.Errorf("%s: %s of %s, want %s", input, got, r.platform, want)
		}
	}
	// A feed per source takes sources, in any order and spelling.
	a, err := provision("besluitbron {\n cache_dir " + dir + "\n replica obv {\n since 2025\n sources Utrecht soest\n sources utrecht\n }\n}")
	if err != nil || len(a.replicas) != 1 {
		t.Fatalf("replica obv: %v, %+v", err, a)
	}
	if r := a.replicas[0]; r.platform != "obv" || r.spec.Name+"|"+r.scope+"|"+r.dir != "council|since=2025 sources=soest,utrecht|"+dir+"/council" {
		t.Errorf("replica obv: %s|%s|%s of %s", r.spec.Name, r.scope, r.dir, r.platform)
	}
	if a, err := provision("besluitbron {\n cache_dir " + dir + "\n replica obv {\n max_disk 20GiB\n }\n}"); err != nil || len(a.replicas) != 1 || a.replicas[0].maxDisk != 20<<30 {
		t.Errorf("max_disk 20GiB: %v, %+v", err, a)
	}
	if a, err := provision("besluitbron {\n cache_dir " + dir + "\n replica rechtspraak off {\n since 2020\n }\n}"); err != nil || len(a.replicas) != 0 {
		t.Errorf("replica off: %v, %+v", err, a)
	}
	for input, want := range map[string]string{
		"besluitbron {\n cache_dir " + dir + "\n caselaw\n replica rechtspraak\n}":             "configure it once",
		"besluitbron {\n cache_dir " + dir + "\n replica oa\n}":                                "keeps a replica",
		"besluitbron {\n cache_dir " + dir + "\n replica tk {\n sources moties\n }\n}":         `category "moties"`,
		"besluitbron {\n cache_dir " + dir + "\n replica rechtspraak {\n sources soest\n }\n}": "has no sources to choose",
		"besluitbron {\n cache_dir " + dir + "\n replica obv {\n sources ../etc\n }\n}":        "give source keys",
		"besluitbron {\n cache_dir " + dir + "\n replica nergens\n}":                           "unknown platform",
		"besluitbron {\n cache_dir off\n replica rechtspraak\n}":                               "needs a directory",
		"besluitbron {\n cache_dir " + dir + "\n caselaw {\n since gisteren\n }\n}":            `caselaw since "gisteren": give a year`,
		"besluitbron {\n cache_dir " + dir + "\n replica rechtspraak {\n interval 10s\n }\n}":  "replica rechtspraak interval 10s",
		"besluitbron {\n cache_dir " + dir + "\n replica obv {\n max_disk veel\n }\n}":         `replica obv max_disk "veel": give a size`,
	} {
		if _, err := provision(input); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", input, err, want)
		}
	}
}

// The replicas' gauges carry the platform; the replica named caselaw
// keeps its older gauges too.
func TestReplicaMetricNames(t *testing.T) {
	reg := prometheus.NewRegistry()
	if err := registerReplicaMetrics(reg); err != nil {
		t.Fatal(err)
	}
	ch := make(chan *prometheus.Desc, 16)
	theReplicaCollector().Describe(ch)
	close(ch)
	var all []string
	for d := range ch {
		all = append(all, d.String())
	}
	joined := strings.Join(all, "\n")
	for _, want := range []string{
		`fqName: "caddy_besluitbron_replica_records", help: "Records in BesluitBron's replica of the platform's feed."`,
		`variableLabels: {platform}`,
		`fqName: "caddy_besluitbron_caselaw_decisions", help: "Decisions in BesluitBron's index of Rechtspraak's feed."`,
		`fqName: "caddy_besluitbron_caselaw_pages_left"`,
		`fqName: "caddy_besluitbron_caselaw_complete_up_to_seconds"`,
		`fqName: "caddy_besluitbron_caselaw_available"`,
		`fqName: "caddy_besluitbron_replica_memory_bytes"`,
		`fqName: "caddy_besluitbron_replica_memory_budget_bytes"`,
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("no %s in\n%s", want, joined)
		}
	}
}
