package testcaddy

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/platforms"
)

// OfflineHouse runs the default Caddyfile (dir/Caddyfile) with the
// offline build's emulators (dir/Caddyfile.offline) in the test
// process, each emulator site on a free port and every platform's base
// URL pointed at its emulator, and returns the house's base URL and the
// emulators' base URLs by platform. edit changes the joined Caddyfile
// first (nil: as it is); unset are environment variables emptied after.
// It needs the Caddy modules of the product and the emulator module
// imported by the test binary.
func OfflineHouse(t *testing.T, dir string, edit func(caddyfile string) string, unset ...string) (string, map[string][]string) {
	t.Helper()
	ClearPlatformEnv(t)
	text, emulators := testproc.OfflineCaddyfile(t, dir)
	if edit != nil {
		text = edit(text)
		// An emulator site the edit added.
		for port, k := range testproc.EmulatorSites(text) {
			if emulators[k] == nil {
				emulators[k] = []string{"http://127.0.0.1:" + port}
			}
		}
	}
	if len(emulators) != len(platforms.All()) {
		t.Fatalf("the offline house serves emulators for %d platforms, want %d", len(emulators), len(platforms.All()))
	}

	port := testproc.FreePort(t)
	t.Setenv("BESLUITBRON_PORT", strconv.Itoa(port))
	t.Setenv("BESLUITBRON_ADMIN", "localhost:"+strconv.Itoa(testproc.FreePort(t)))
	t.Setenv("BESLUITBRON_ALLOW_PRIVATE", "127.0.0.1/8")
	// The case-law harvest has its own test (caddymodule/site/caselaw_test.go);
	// here its feed pages would join the platforms' counts.
	t.Setenv("BESLUITBRON_CASELAW", "off")
	for _, p := range platforms.All() {
		t.Setenv(testproc.BaseURLEnv(p.Key), strings.Join(emulators[p.Key], " "))
	}
	for _, v := range unset {
		t.Setenv(v, "")
	}
	Load(t, text)
	return fmt.Sprintf("http://127.0.0.1:%d", port), emulators
}

// ClearPlatformEnv unsets, for the test, the environment the default
// Caddyfile reads: a developer's own settings must not leak into it.
func ClearPlatformEnv(t *testing.T) {
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
