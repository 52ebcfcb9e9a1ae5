package besluitbron

import (
	"os"
	"os/exec"
	"testing"

	"github.com/besluitbron/besluitbron/internal/testtier"
)

// An independent client speaks to the default Caddyfile's /mcp/alles
// connector, served offline: the official @modelcontextprotocol/sdk client
// (connect, list tools, call a search and a fetch tool) and the official
// conformance suite's scenarios for a tools-only server, in both protocol
// eras (test/node/run.sh). CI installs the Node packages (`npm ci` in
// test/node) before running the tests; elsewhere the test is skipped when
// they are missing.
func TestNodeClientAndConformance(t *testing.T) {
	testtier.Full(t, "Node")
	if _, err := os.Stat("test/node/node_modules/@modelcontextprotocol/sdk"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("test/node/node_modules is missing: .ci/run must run `npm ci` in test/node")
		}
		t.Skip("run `npm ci` in test/node to run the Node client and conformance tests")
	}
	proxy, _ := offlineHouse(t)
	cmd := exec.Command("bash", "test/node/run.sh")
	cmd.Env = append(os.Environ(), "BESLUITBRON_MCP_URL="+proxy+"/mcp/alles")
	out, err := cmd.CombinedOutput()
	t.Logf("test/node/run.sh:\n%s", out)
	if err != nil {
		t.Fatalf("test/node/run.sh: %v", err)
	}
}
