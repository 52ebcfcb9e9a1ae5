package version_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/testtier"
)

// The version stamp ./xcaddy.sh computes (`./xcaddy.sh version`) in a
// scratch git repository holding the script and this package's version.go:
// a clean commit, dirty trees, the build's own output, untracked files, a
// release tag, the Docker build arg, and a tree without git.

// scratchRepo copies xcaddy.sh and version.go into a fresh directory.
func scratchRepo(t *testing.T) string {
	t.Helper()
	testtier.Full(t, "git and ./xcaddy.sh as child processes")
	dir := t.TempDir()
	for src, dst := range map[string]string{"../../xcaddy.sh": "xcaddy.sh", "version.go": "caddymodule/version/version.go"} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, dst)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, dst), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// scratchEnv is the environment of the script and git: no user or system
// git config, a fixed identity, no stamp given from outside, and git never
// looking above the scratch directory.
func scratchEnv(dir string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BESLUITBRON_VERSION=") && !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	env = append(env, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org",
		"GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
	return append(env, extra...)
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestStampInGit(t *testing.T) {
	t.Parallel() // a scratch directory and an explicit environment of its own
	dir := scratchRepo(t)
	env := scratchEnv(dir)
	stamp := func() string { return run(t, dir, env, "./xcaddy.sh", "version") }
	run(t, dir, env, "git", "init", "-q")
	write(t, dir, "main.go", "package main\n")
	run(t, dir, env, "git", "add", ".")
	run(t, dir, env, "git", "commit", "-q", "-m", "one")
	commit := run(t, dir, env, "git", "rev-parse", "HEAD")[:12]

	clean := stamp()
	if want := "0.1.0-dev+g" + commit; clean != want {
		t.Fatalf("clean commit: %q, want %q", clean, want)
	}
	write(t, dir, "caddy", "the build's own output")
	write(t, dir, "caddy-offline", "the offline build's own output")
	if s := stamp(); s != clean {
		t.Fatalf("./caddy or ./caddy-offline changed the stamp: %q", s)
	}

	dirtyStamp := regexp.MustCompile(`^0\.1\.0-dev\+g` + commit + `\.dirty\.[0-9a-f]{12}$`)
	write(t, dir, "main.go", "package main\n\n// one change\n")
	dirty1 := stamp()
	if !dirtyStamp.MatchString(dirty1) {
		t.Fatalf("dirty tree: %q", dirty1)
	}
	if s := stamp(); s != dirty1 {
		t.Fatalf("the same dirty tree stamped twice: %q then %q", dirty1, s)
	}
	write(t, dir, "main.go", "package main\n\n// another change\n")
	dirty2 := stamp()
	if !dirtyStamp.MatchString(dirty2) || dirty2 == dirty1 {
		t.Fatalf("two different dirty trees: %q and %q", dirty1, dirty2)
	}
	write(t, dir, "main.go", "package main\n")
	write(t, dir, "new.go", "package main\n")
	untracked1 := stamp()
	if !dirtyStamp.MatchString(untracked1) || untracked1 == dirty1 || untracked1 == dirty2 {
		t.Fatalf("an untracked file: %q", untracked1)
	}
	write(t, dir, "new.go", "package main\n\nvar x int\n")
	if s := stamp(); s == untracked1 || !dirtyStamp.MatchString(s) {
		t.Fatalf("an untracked file's contents changed, the stamp did not: %q", s)
	}
	write(t, dir, ".gitignore", "/new.go\n/caddy\n")
	run(t, dir, env, "git", "add", ".gitignore")
	run(t, dir, env, "git", "commit", "-q", "-m", "ignore")

	run(t, dir, env, "git", "tag", "v1.2.3")
	run(t, dir, env, "git", "tag", "v1.10.0") // two release tags: the higher one
	run(t, dir, env, "git", "tag", "not-a-release")
	if s := stamp(); s != "v1.10.0" {
		t.Fatalf("tagged release: %q", s)
	}
	write(t, dir, "main.go", "package main\n\n// one change\n")
	if s := stamp(); !regexp.MustCompile(`^v1\.10\.0\+dirty\.[0-9a-f]{12}$`).MatchString(s) {
		t.Fatalf("tagged release, dirty: %q", s)
	}

	given := scratchEnv(dir, "BESLUITBRON_VERSION=v2.0.0-rc.1+docker")
	if s := run(t, dir, given, "./xcaddy.sh", "version"); s != "v2.0.0-rc.1+docker" {
		t.Fatalf("BESLUITBRON_VERSION given: %q", s)
	}
	cmd := exec.Command("./xcaddy.sh", "version")
	cmd.Dir, cmd.Env = dir, scratchEnv(dir, "BESLUITBRON_VERSION=1.0 $(reboot)")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "not [0-9A-Za-z.+_-]") {
		t.Fatalf("a stamp with spaces and shell characters was accepted: %v %s", err, out)
	}
}

// Without git (a Docker context without .git and no build arg) the stamp
// is a hash of the files: stable, and different for other source.
func TestStampWithoutGit(t *testing.T) {
	t.Parallel() // a scratch directory and an explicit environment of its own
	dir := scratchRepo(t)
	env := scratchEnv(dir)
	write(t, dir, "main.go", "package main\n")
	one := run(t, dir, env, "./xcaddy.sh", "version")
	if !regexp.MustCompile(`^0\.1\.0-dev\+src\.[0-9a-f]{12}$`).MatchString(one) {
		t.Fatalf("no git: %q", one)
	}
	write(t, dir, "caddy", "the build's own output")
	if s := run(t, dir, env, "./xcaddy.sh", "version"); s != one {
		t.Fatalf("./caddy changed the stamp: %q then %q", one, s)
	}
	write(t, dir, "main.go", "package main\n\n// a change\n")
	if s := run(t, dir, env, "./xcaddy.sh", "version"); s == one {
		t.Fatalf("other source, same stamp %q", s)
	}
}

// `./xcaddy.sh build` hands xcaddy the stamp as -ldflags -X into
// version.Override, with xcaddy's own defaults kept. A stand-in `go` on
// PATH records what xcaddy would be run with.
func TestBuildPassesStamp(t *testing.T) {
	t.Parallel() // a scratch directory and an explicit environment of its own
	dir := scratchRepo(t)
	bin := t.TempDir()
	record := filepath.Join(bin, "record")
	write(t, bin, "go", `#!/bin/sh
if [ "$1" = list ]; then echo v2.99.0; exit 0; fi
{ echo "ARGS $*"; echo "FLAGS $XCADDY_GO_BUILD_FLAGS"; } >"`+record+`"
`)
	if err := os.Chmod(filepath.Join(bin, "go"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := scratchEnv(dir, "PATH="+bin+":"+os.Getenv("PATH"), "BESLUITBRON_VERSION=v3.1.4")
	run(t, dir, env, "./xcaddy.sh", "build")
	b, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{
		"ARGS run github.com/caddyserver/xcaddy/cmd/xcaddy@v0.4.5 build v2.99.0 --output ./caddy --with github.com/besluitbron/besluitbron@v0.0.0=.",
		"FLAGS -ldflags '-w -s -X github.com/besluitbron/besluitbron/caddymodule/version.Override=v3.1.4' -trimpath -tags nobadger,nomysql,nopgx",
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("xcaddy.sh build ran\n%s\nwant a line %q", got, want)
		}
	}
}
