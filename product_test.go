package besluitbron

import (
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/internal/testtier"

	// The house tests run Caddyfile.offline in this process, so they need
	// the emulators; the product package itself does not import them. An
	// import in a _test.go file never reaches a build of the package.
	_ "github.com/besluitbron/besluitbron/caddymodule/emulator"
)

const ourModule = "github.com/besluitbron/besluitbron"

// goListDeps returns the import paths of pkgs and everything they import,
// as the build sees them (test files left out), sorted.
func goListDeps(t *testing.T, pkgs ...string) []string {
	t.Helper()
	testtier.Full(t, "go list as a child process")
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}}"}, pkgs...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go %s: %v", strings.Join(args, " "), err)
	}
	deps := strings.Fields(string(out))
	sort.Strings(deps)
	return deps
}

// notProduct says whether a package of ours must stay out of the product:
// the emulators (caddymodule/emulator and emulators/...) and
// the test-only helpers under internal/.
func notProduct(p string) bool {
	rel, ok := strings.CutPrefix(p, ourModule+"/")
	return ok && (strings.Contains(rel, "emulator") || strings.HasPrefix(rel, "internal/"))
}

// listModules runs `caddy list-modules` of a binary.
func listModules(t *testing.T, bin string) string {
	t.Helper()
	testtier.Full(t, "a Caddy binary")
	out, err := exec.Command(bin, "list-modules").CombinedOutput()
	if err != nil {
		t.Fatalf("%s list-modules: %v\n%s", bin, err, out)
	}
	return string(out)
}

// The product (this package, which `xcaddy --with
// github.com/besluitbron/besluitbron` imports, and cmd/caddy) reaches no
// emulator and no test-only package, and its binary registers every
// module of ours but besluitbron_emulator.
func TestProductHoldsNoEmulators(t *testing.T) {
	t.Parallel() // child processes only: no Caddy in this process, no environment
	for _, p := range goListDeps(t, ".", "./cmd/caddy") {
		if notProduct(p) {
			t.Errorf("the product imports %s", p)
		}
	}
	mods := listModules(t, testproc.Binary(t))
	if strings.Contains(mods, "besluitbron_emulator") {
		t.Errorf("the product binary lists the emulator ourModule:\n%s", mods)
	}
	for _, m := range []string{"http.handlers.client_limit", "http.handlers.mcp", "http.handlers.platform_cache", "http.handlers.platform_limit", "http.handlers.platform_proxy"} {
		if !strings.Contains(mods, m+"\n") {
			t.Errorf("the product binary does not list %s", m)
		}
	}
}

// The offline build (cmd/caddy-offline) is the product plus the emulators:
// the check above would see them, and the binary lists the ourModule.
func TestOfflineBuildListsEmulator(t *testing.T) {
	t.Parallel() // child processes only: no Caddy in this process, no environment
	deps := goListDeps(t, "./cmd/caddy-offline")
	has := func(p string) bool {
		i := sort.SearchStrings(deps, p)
		return i < len(deps) && deps[i] == p
	}
	if !has(ourModule + "/caddymodule/emulator") {
		t.Errorf("cmd/caddy-offline does not import %s/caddymodule/emulator", ourModule)
	}
	if !has(ourModule) {
		t.Errorf("cmd/caddy-offline does not import the product package %s", ourModule)
	}
	mods := listModules(t, testproc.OfflineBinary(t))
	for _, m := range []string{"http.handlers.besluitbron_emulator", "http.handlers.mcp", "http.handlers.platform_proxy"} {
		if !strings.Contains(mods, m+"\n") {
			t.Errorf("the offline binary does not list %s", m)
		}
	}
}

// ourImports returns the packages of this ourModule a Go file imports.
func ourImports(t *testing.T, file string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var ours []string
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			t.Fatal(err)
		}
		if p == ourModule || strings.HasPrefix(p, ourModule+"/") {
			ours = append(ours, p)
		}
	}
	return ours
}

// ./xcaddy.sh build hands xcaddy our ourModule alone; ./xcaddy.sh offline
// hands it exactly the packages cmd/caddy-offline imports, into its own
// binary, and runs Caddyfile.offline with that binary. A stand-in `go` on
// PATH records what xcaddy would be run with, and the stand-in binary it
// "builds" records how it is run.
func TestXcaddyOfflineAddsTheEmulatorPackage(t *testing.T) {
	testtier.Full(t, "./xcaddy.sh as a child process")
	dir := t.TempDir()
	for src, dst := range map[string]string{"xcaddy.sh": "xcaddy.sh", "caddymodule/version/version.go": "caddymodule/version/version.go"} {
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
	bin := t.TempDir()
	record := filepath.Join(bin, "record")
	fakeGo := `#!/bin/sh
if [ "$1" = list ]; then echo v2.99.0; exit 0; fi
echo "GO $*" >>"` + record + `"
out=
while [ $# -gt 0 ]; do
	if [ "$1" = --output ]; then out=$2; fi
	shift
done
printf '#!/bin/sh\necho "RUN $(basename "$0") $*" >>"%s"\n' "` + record + `" >"$out"
chmod +x "$out"
`
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(fakeGo), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(arg string) string {
		t.Helper()
		if err := os.Remove(record); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		cmd := exec.Command("./xcaddy.sh", arg)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "BESLUITBRON_VERSION=v3.1.4")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("./xcaddy.sh %s: %v\n%s", arg, err, out)
		}
		b, err := os.ReadFile(record)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	xc := "GO run github.com/caddyserver/xcaddy/cmd/xcaddy@v0.4.5 build v2.99.0"
	if got, want := run("build"), xc+" --output ./caddy --with "+ourModule+"@v0.0.0=.\n"; got != want {
		t.Errorf("./xcaddy.sh build ran\n%s\nwant\n%s", got, want)
	}

	want := xc + " --output ./caddy-offline --with " + ourModule + "@v0.0.0=. --replace " + ourModule + "=."
	for _, p := range ourImports(t, "cmd/caddy-offline/main.go") {
		if p != ourModule {
			want += " --with " + p
		}
	}
	want += "\nRUN caddy-offline run --config Caddyfile.offline --adapter caddyfile\n"
	if got := run("offline"); got != want {
		t.Errorf("./xcaddy.sh offline ran\n%s\nwant (the packages cmd/caddy-offline imports)\n%s", got, want)
	}
	// A second instance on the same machine: the binary of this source is
	// there, and the emulators answer already: it joins them rather than
	// starting a second set on the same ports.
	emu := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/_emulator/stats" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte("{}"))
	}))
	defer emu.Close()
	t.Setenv("BESLUITBRON_OBV_URL", emu.URL)
	if got, want := run("offline"), "RUN caddy-offline run --config Caddyfile --adapter caddyfile\n"; got != want {
		t.Errorf("a second ./xcaddy.sh offline ran\n%s\nwant (no build, no emulators of its own)\n%s", got, want)
	}
	if !strings.Contains(want, " --with "+ourModule+"/caddymodule/emulator") {
		t.Errorf("cmd/caddy-offline does not import the emulator package")
	}
	if got := ourImports(t, "cmd/caddy/main.go"); len(got) != 1 || got[0] != ourModule {
		t.Errorf("cmd/caddy imports %v, want only %s (the product)", got, ourModule)
	}
}
