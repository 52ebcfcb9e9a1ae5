package testproc

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// OfflineCaddyfile is the default Caddyfile (root/Caddyfile) joined into
// the offline build's (root/Caddyfile.offline), every emulator site on a
// free port instead of its fixed one, and the emulators' base URLs (with
// their path prefix) by platform: the offline house, in process
// (testcaddy.OfflineHouse) or as a child process.
func OfflineCaddyfile(t testing.TB, root string) (string, map[string][]string) {
	t.Helper()
	main, err := os.ReadFile(filepath.Join(root, "Caddyfile"))
	if err != nil {
		t.Fatal(err)
	}
	offline, err := os.ReadFile(filepath.Join(root, "Caddyfile.offline"))
	if err != nil {
		t.Fatal(err)
	}
	emulators := map[string][]string{}
	text := emulatorSite.ReplaceAllStringFunc(string(offline), func(block string) string {
		m := emulatorSite.FindStringSubmatch(block)
		port := strconv.Itoa(FreePort(t))
		base := "http://127.0.0.1:" + port
		if p := emulatorPrefix.FindStringSubmatch(m[2]); p != nil {
			base += p[1]
		}
		k := emulatorKey.FindStringSubmatch(m[2])[1]
		emulators[k] = append(emulators[k], base)
		return strings.Replace(block, ":"+m[1]+" {", ":"+port+" {", 1)
	})
	return strings.Replace(text, "import Caddyfile", string(main), 1), emulators
}

// EmulatorSites are the emulator sites of a Caddyfile: platform key by
// port, for a site a test added to it.
func EmulatorSites(text string) map[string]string {
	out := map[string]string{}
	for _, m := range emulatorSite.FindAllStringSubmatch(text, -1) {
		if k := emulatorKey.FindStringSubmatch(m[2]); k != nil {
			out[m[1]] = k[1]
		}
	}
	return out
}

var (
	emulatorSite   = regexp.MustCompile(`(?s)http://:(\d+) \{\n(.*?)\n\}\n`)
	emulatorKey    = regexp.MustCompile(`besluitbron_emulator (\w+)`)
	emulatorPrefix = regexp.MustCompile(`handle_path (/\w+)/\*`)
)
