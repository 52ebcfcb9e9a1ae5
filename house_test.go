package besluitbron

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/caddymodule/platforms"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/internal/testtier"
)

var update = flag.Bool("update", false, "rewrite golden files")

// clearPlatformEnv makes adapting the Caddyfile independent of the
// developer's environment.
func clearPlatformEnv(t *testing.T) {
	t.Helper()
	vars := []string{"BESLUITBRON_ADMIN", "BESLUITBRON_PORT", "BESLUITBRON_CONTACT", "BESLUITBRON_ALLOW_PRIVATE"}
	for _, p := range platforms.All() {
		vars = append(vars, testproc.BaseURLEnv(p.Key))
	}
	for _, v := range vars {
		if old, ok := os.LookupEnv(v); ok {
			os.Unsetenv(v)
			t.Cleanup(func() { os.Setenv(v, old) })
		}
	}
}

// The default Caddyfile adapts to the reviewed JSON in
// testdata/Caddyfile.golden.json. Run `go test -run Golden -update .` after
// a deliberate change and review the diff.
func TestDefaultCaddyfileGolden(t *testing.T) {
	clearPlatformEnv(t)
	src, err := os.ReadFile("Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := json.Indent(&got, testcaddy.Adapt(t, string(src)), "", "\t"); err != nil {
		t.Fatal(err)
	}
	got.WriteByte('\n')
	const golden = "testdata/Caddyfile.golden.json"
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("the default Caddyfile adapts to other JSON than %s; run `go test -run Golden -update .` and review the diff.\ngot:\n%s", golden, got.String())
	}
}

// Every platform has a route in the default Caddyfile, with the platform's
// key and no hard-coded base URL (the environment variable or the
// platform's public address is used), and a budget on it: platform_limit
// behind the cache, so whatever skips the cache still passes the budget.
func TestDefaultCaddyfileHasEveryPlatform(t *testing.T) {
	src, err := os.ReadFile("Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range platforms.All() {
		if !strings.Contains(string(src), "handle_path /platforms/"+p.Key+"/*") {
			t.Errorf("no route for platform %s", p.Key)
		}
		if !regexp.MustCompile(`platform_proxy ` + p.Key + `\b`).Match(src) {
			t.Errorf("no platform_proxy for platform %s", p.Key)
		}
		if !regexp.MustCompile(`platform_cache ` + p.Key + `\s+platform_limit ` + p.Key + `\s+platform_proxy ` + p.Key + `\b`).Match(src) {
			t.Errorf("platform %s: no platform_limit between platform_cache and platform_proxy", p.Key)
		}
		if p.Budget == nil {
			t.Errorf("platform %s: no budget in caddymodule/platforms", p.Key)
		}
		if !strings.Contains(string(src), testproc.BaseURLEnv(p.Key)) {
			t.Errorf("the Caddyfile does not document %s", testproc.BaseURLEnv(p.Key))
		}
	}
	// The 404 for an unknown key lists exactly the table's keys, in order.
	m := regexp.MustCompile(`unknown platform: use /platforms/\{key\}/\.\.\. with key one of ([a-z, ]+)"`).FindSubmatch(src)
	if m == nil {
		t.Fatal("no 404 naming the platform keys")
	}
	if got, want := string(m[1]), strings.Join(platforms.Keys(), ", "); got != want {
		t.Errorf("the 404 names the keys %q, the table has %q", got, want)
	}
}

// The Dockerfile builds the same way as ./xcaddy.sh and runs the Caddy
// version go.mod pins.
func TestDockerfileMatchesBuild(t *testing.T) {
	t.Parallel() // child processes only: no Caddy in this process, no environment
	testtier.Full(t, "go list as a child process")
	dockerfile, err := os.ReadFile("docker/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/caddyserver/caddy/v2").Output()
	if err != nil {
		t.Fatal(err)
	}
	caddyVersion := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
	if !regexp.MustCompile(`(?m)^FROM caddy:` + regexp.QuoteMeta(caddyVersion) + `\s*$`).Match(dockerfile) {
		t.Errorf("the runtime stage is not FROM caddy:%s (go.mod's Caddy)", caddyVersion)
	}
	if !regexp.MustCompile(`(?m)^RUN \./xcaddy\.sh build\s*$`).Match(dockerfile) {
		t.Error("the builder stage does not run ./xcaddy.sh build")
	}
	if !regexp.MustCompile(`(?m)^COPY Caddyfile /etc/caddy/Caddyfile\s*$`).Match(dockerfile) {
		t.Error("the default Caddyfile is not copied to /etc/caddy/Caddyfile")
	}
	goVersion, err := exec.Command("go", "list", "-m", "-f", "{{.GoVersion}}").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(dockerfile), "FROM golang:"+strings.TrimSpace(string(goVersion))) {
		t.Errorf("the builder's Go is not go.mod's go %s", strings.TrimSpace(string(goVersion)))
	}
	script, err := os.ReadFile("xcaddy.sh")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), "go list -m -f '{{.Version}}' github.com/caddyserver/caddy/v2") {
		t.Error("xcaddy.sh does not take the Caddy version from go.mod")
	}
}
