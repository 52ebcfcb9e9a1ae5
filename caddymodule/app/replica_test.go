package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/rechtspraak"
	"github.com/besluitbron/besluitbron/platforms/rechtspraak/caselaw"
	"github.com/besluitbron/besluitbron/replica"
)

// A corrupt index stops the harvest with an error the operator sees
// (the status page, the admin API and the metrics read ReplicaStatus),
// and the index answers no words: the surfaces say it is unavailable,
// never serve a part of it. The process goes on.
func TestCorruptCaseLawIndexIsReportedNotServed(t *testing.T) {
	dir := t.TempDir()
	idx, _, err := caselaw.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	// Its metadata garbled (platforms/rechtspraak/caselaw's own tests garble each
	// of its files in turn).
	if err := os.WriteFile(filepath.Join(dir, "index", "index_meta.json"), []byte("not an index"), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	a := &App{CaseLaw: &ReplicaConfig{Dir: dir, Since: "all"}, CacheDir: "off"}
	if err := a.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = a.Stop(); _ = a.Cleanup() }()

	deadline := time.Now().Add(10 * time.Second)
	var st replica.Status
	for {
		st, _ = a.ReplicaStatusNamed(LegacyReplica)
		if st.Error != "" || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond) // a poll of the keeper's state, not a wait for time to pass
	}
	if !strings.Contains(st.Error, "corrupt") {
		t.Fatalf("status of a corrupt index: %+v", st)
	}
	words, _ := a.Replicas()[platforms.Rechtspraak].(rechtspraak.WordIndex)
	_, err = words.SearchWords(context.Background(), rechtspraak.WordQuery{Words: "stikstof"})
	if !errors.Is(err, rechtspraak.ErrIndexUnavailable) || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("a corrupt index answered words: %v", err)
	}
}

// A reload that changes the scope gets a keeper of its own over the same
// directory: it opens the index once the old config let it go, and then
// harvests with the new scope; a reload that keeps the settings keeps the
// keeper.
func TestCaseLawReloadWithAnotherScope(t *testing.T) {
	dir := t.TempDir()
	load := func(since string) (*App, func()) {
		ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
		a := &App{CaseLaw: &ReplicaConfig{Dir: dir, Since: since}, CacheDir: "off"}
		if err := a.Provision(ctx); err != nil {
			t.Fatal(err)
		}
		if err := a.Start(); err != nil {
			t.Fatal(err)
		}
		return a, func() { _ = a.Stop(); _ = a.Cleanup(); cancel() }
	}
	opened := func(a *App) bool {
		_, _, err := a.replicaKeeper(platforms.Rechtspraak).state()
		return err == nil
	}
	old, unloadOld := load("2020")
	same, unloadSame := load("2020")
	if same.replicaKeeper(platforms.Rechtspraak) != old.replicaKeeper(platforms.Rechtspraak) {
		t.Fatal("a reload with the same settings made another keeper")
	}
	fresh, unloadFresh := load("2024")
	defer unloadFresh()
	if fresh.replicaKeeper(platforms.Rechtspraak) == old.replicaKeeper(platforms.Rechtspraak) {
		t.Fatal("a reload with another scope kept the old keeper")
	}
	unloadOld()
	unloadSame()
	deadline := time.Now().Add(20 * time.Second)
	for !opened(fresh) {
		if time.Now().After(deadline) {
			t.Fatalf("the new keeper never opened the index the old one let go: %+v", fresh.replicaKeeper(platforms.Rechtspraak).openErr)
		}
		time.Sleep(20 * time.Millisecond) // a poll of the keeper's state, not a wait for time to pass
	}
}
