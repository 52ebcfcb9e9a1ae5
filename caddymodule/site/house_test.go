package site_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/platforms"
)

// repoRoot is the module root, two folders up.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// offlineHouse runs the default Caddyfile with every platform served by
// its emulator (Caddyfile.offline), as ./xcaddy.sh offline does, in a
// child process of the offline binary (product plus emulators), each
// emulator on a free port. It returns the site's base URL.
func offlineHouse(t *testing.T, edits ...func(string) string) string {
	t.Helper()
	return startOfflineHouse(t, edits...).base
}

// house is a running offline house: the site's base URL, its admin
// endpoint, and each platform's emulators (base URLs, with their path
// prefix), for tests that count what reached the platforms.
type house struct {
	base, admin string
	emulators   map[string][]string
}

func startOfflineHouse(t *testing.T, edits ...func(string) string) house {
	t.Helper()
	return startOfflineHouseEnv(t, nil, edits...)
}

// startOfflineHouseEnv is startOfflineHouse with more environment for the
// child (BESLUITBRON_REDIS, ...).
func startOfflineHouseEnv(t *testing.T, extraEnv []string, edits ...func(string) string) house {
	t.Helper()
	root := repoRoot(t)
	text, emulators := testproc.OfflineCaddyfile(t, root)
	for _, e := range edits {
		text = e(text)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	port := testproc.FreePort(t)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	admin := "localhost:" + strconv.Itoa(testproc.FreePort(t))
	env := []string{
		"BESLUITBRON_PORT=" + strconv.Itoa(port),
		"BESLUITBRON_ADMIN=" + admin,
		"BESLUITBRON_ALLOW_PRIVATE=127.0.0.1/8",
		"BESLUITBRON_CONTACT=test@example.org",
		// The case-law harvest has its own test (caselaw_test.go); here its
		// feed pages would join the counts of the flood tests.
		"BESLUITBRON_CASELAW=off",
	}
	for _, p := range platforms.All() {
		env = append(env, testproc.BaseURLEnv(p.Key)+"="+strings.Join(emulators[p.Key], " "))
	}
	env = append(env, extraEnv...)
	testproc.StartBinary(t, testproc.OfflineBinary(t), path, dir, base+"/status.json", env...)
	return house{base: base, admin: "http://" + admin, emulators: emulators}
}
