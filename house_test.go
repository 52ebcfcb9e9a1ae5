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

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/internal/testtier"
	"github.com/besluitbron/besluitbron/platforms"
)

var update = flag.Bool("update", false, "rewrite golden files")

// The default Caddyfile adapts to the reviewed JSON in
// testdata/Caddyfile.golden.json. Run `go test -run Golden -update .` after
// a deliberate change and review the diff.
func TestDefaultCaddyfileGolden(t *testing.T) {
	testcaddy.ClearPlatformEnv(t)
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
			t.Errorf("platform %s: no budget in platforms", p.Key)
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

// The Dockerfile is one recipe with two ways in (docs/docker.md): its
// builder stage runs ./xcaddy.sh build (Caddy's version from go.mod) and
// docker/rootfs.sh on go.mod's Go, while ./xcaddy.sh image runs the same
// two on the host and hands the files in as the prebuilt stage. Either
// way the image is the last stage, on an empty base. docker/check.sh
// builds and runs it (in .ci/run); this checks that the two ways still
// meet in the one file.
func TestDockerfileMatchesBuild(t *testing.T) {
	t.Parallel() // child processes only: no Caddy in this process, no environment
	testtier.Full(t, "go list as a child process")
	dockerfile, err := os.ReadFile("docker/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	goVersion, err := exec.Command("go", "list", "-m", "-f", "{{.GoVersion}}").Output()
	if err != nil {
		t.Fatal(err)
	}
	has := func(pattern, problem string) {
		t.Helper()
		if !regexp.MustCompile(`(?m)` + pattern).Match(dockerfile) {
			t.Errorf("docker/Dockerfile: %s (no line matching %s)", problem, pattern)
		}
	}
	has(`^FROM golang:`+regexp.QuoteMeta(strings.TrimSpace(string(goVersion)))+`\b.* AS builder\s*$`,
		"the builder's Go is not go.mod's go "+strings.TrimSpace(string(goVersion)))
	has(`^RUN \./xcaddy\.sh build\s*$`, "the builder stage does not run ./xcaddy.sh build")
	has(`^RUN docker/rootfs\.sh \./caddy /rootfs\s*$`, "the builder stage does not lay the files out with docker/rootfs.sh")
	has(`^ARG BESLUITBRON_ROOTFS=builder\s*$`, "the builder stage is not the default source of the files")
	has(`^FROM scratch AS prebuilt\s*$`, "no prebuilt stage for ./xcaddy.sh image")
	has(`^FROM \$\{BESLUITBRON_ROOTFS\} AS rootfs\s*$`, "the files' stage is not chosen by BESLUITBRON_ROOTFS")
	has(`^USER 10001:10001\s*$`, "the image does not run as the non-root user of docker/rootfs.sh")
	has(`^VOLUME \["/data", "/config"\]\s*$`, "/data and /config are not volumes")
	has(`^ENV XDG_DATA_HOME=/data XDG_CONFIG_HOME=/config\b`, "Caddy's directories are not the volumes")
	has(`^HEALTHCHECK .*CMD \["/usr/bin/healthcheck"\]\s*$`, "no HEALTHCHECK")
	has(`^CMD \["run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"\]\s*$`,
		"the image does not run the default Caddyfile")
	has(`org\.opencontainers\.image\.version="\$\{BESLUITBRON_VERSION\}"`, "the version label is not the stamp")
	froms := regexp.MustCompile(`(?m)^FROM .*$`).FindAll(dockerfile, -1)
	if len(froms) == 0 || strings.TrimSpace(string(froms[len(froms)-1])) != "FROM scratch" {
		t.Errorf("the last stage is not FROM scratch: %q", froms)
	}
	rootfs, err := os.ReadFile("docker/rootfs.sh")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rootfs), `cp Caddyfile "$out/etc/caddy/Caddyfile"`) {
		t.Error("docker/rootfs.sh does not put the default Caddyfile at /etc/caddy/Caddyfile")
	}
	script, err := os.ReadFile("xcaddy.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"go list -m -f '{{.Version}}' github.com/caddyserver/caddy/v2", // Caddy's version from go.mod
		"docker/rootfs.sh ./caddy",
		"-f docker/Dockerfile",
		"--build-arg BESLUITBRON_ROOTFS=prebuilt",
	} {
		if !strings.Contains(string(script), want) {
			t.Errorf("xcaddy.sh does not hold %q", want)
		}
	}
}

// Every BESLUITBRON_* variable the default Caddyfile reads is one an
// operator sets on the container: docs/docker.md names each.
func TestDockerDocNamesEveryCaddyfileVariable(t *testing.T) {
	t.Parallel() // reads two files
	caddyfile, err := os.ReadFile("Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("docs/docker.md")
	if err != nil {
		t.Fatal(err)
	}
	vars := regexp.MustCompile(`\{\$(BESLUITBRON_[A-Z_]+)`).FindAllSubmatch(caddyfile, -1)
	if len(vars) < 10 {
		t.Fatalf("found only %d variables in the Caddyfile", len(vars))
	}
	for _, v := range vars {
		if !bytes.Contains(doc, []byte("`"+string(v[1])+"`")) {
			t.Errorf("docs/docker.md does not name %s, which the Caddyfile reads", v[1])
		}
	}
}
