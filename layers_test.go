package besluitbron

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The house's layers, lowest first (docs/architecture.md, "Layers"). A
// package imports only packages of a lower layer: the folders show the
// layers, and no mechanism learns of the modules built on it. Each entry
// is a package path below the module, or a prefix ending in "/..." for a
// folder and everything below it; the longest match decides. A package
// this table does not place fails the test: a new package says where it
// stands.
var layers = [][]string{
	// 0: vocabulary, contracts and registries: the platforms' table, the
	// adapter contract, the emulators' registry. They import nothing of ours.
	{"clock", "cachestatus", "httpx", "sharedstore", "platforms", "adapters", "emulators"},
	// 1-3: Caddy-free mechanisms, none of which knows another bar these:
	// the cache keys on canonical requests, the global budget serves the
	// fair queue, a replica's bleve index fails with the replica's errors.
	{"canonical"},
	{"cache", "fairqueue", "inbound", "upstream", "adapters/koopsru", "replica", "subcall"},
	{"globalbudget", "replica/bleveindex"},
	// The replica KOOP's SRU platforms share: its harvest by date windows
	// and its index on the replica's bleve index.
	{"adapters/koopsru/datereplica"},
	// What a platform gives the MCP connectors and may ask of them.
	{"mcpkit"},
	// 4: the platforms, each in its folder with its index and emulator,
	// and the emulators' shared pieces.
	{"platforms/...", "emulators/..."},
	// 5: the surfaces of every platform, by key.
	{"adapters/registry"},
	// 6-10: the parts the Caddy modules share, and the app's shared state.
	{"caddymodule/version", "caddymodule/site/reader", "caddymodule/site/rolling", "caddymodule/site/ui"},
	{"caddymodule/session"},
	{"caddymodule/subrequest"},
	{"fanout"},
	{"caddymodule/app"},
	// 11: the Caddy modules.
	{"caddymodule/...", "mcp"},
	// 12: the product's import list and the commands.
	{"", "cmd/...", "docker/..."},
}

// sideways are the imports within one layer that are allowed: a platform
// may read another platform's identifiers (a ruling cites laws, OpenTK
// serves the House's documents by their numbers), an emulator uses the
// emulators' shared pieces, and the emulators' list names each.
func sideways(from, to string) bool {
	return strings.HasPrefix(from, "platforms/") && strings.HasPrefix(to, "platforms/") ||
		strings.HasPrefix(from, "emulators/") && strings.HasPrefix(to, "emulators/") ||
		strings.HasPrefix(from, "platforms/") && strings.HasPrefix(to, "emulators/") ||
		from == "emulators/standard" && strings.HasPrefix(to, "platforms/")
}

// layerOf returns the layer of package rel (path below the module) by
// the longest matching entry, or -1.
func layerOf(rel string) int {
	best, bestLen := -1, -1
	for i, entries := range layers {
		for _, e := range entries {
			prefix, folder := strings.CutSuffix(e, "/...")
			match := rel == prefix || folder && strings.HasPrefix(rel, prefix+"/")
			if match && len(prefix) > bestLen {
				best, bestLen = i, len(prefix)
			}
		}
	}
	return best
}

// Imports point down: no package imports one of its own layer (bar the
// platforms' sideways reads) or of a layer above. Test files are not
// held to it: a test may drive a package from above.
func TestImportsPointDown(t *testing.T) {
	t.Parallel()
	ctx := build.Default
	err := filepath.WalkDir(".", func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if dir != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") || dir == "internal" {
			// internal/ is test support and the live check's driver: it
			// may import anything, and the product imports none of it
			// (product_test.go).
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && dir != "." {
			return filepath.SkipDir // its own module (bench/upstream)
		}
		pkg, err := ctx.ImportDir(dir, 0)
		if err != nil {
			return nil // no Go files, or only tests
		}
		rel := filepath.ToSlash(dir)
		if rel == "." {
			rel = ""
		}
		from := layerOf(rel)
		if from < 0 {
			t.Errorf("package %q has no layer in layers_test.go", rel)
			return nil
		}
		for _, imp := range pkg.Imports {
			to, ok := strings.CutPrefix(imp, ourModule+"/")
			if !ok {
				continue
			}
			l := layerOf(to)
			if l < from || l == from && sideways(rel, to) {
				continue
			}
			t.Errorf("%s (layer %d) imports %s (layer %d): imports point down", rel, from, to, l)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The table names no package twice.
func TestLayersNameEachPackageOnce(t *testing.T) {
	var seen []string
	for _, entries := range layers {
		for _, e := range entries {
			if slices.Contains(seen, e) {
				t.Errorf("%q is in two layers", e)
			}
			seen = append(seen, e)
		}
	}
}
