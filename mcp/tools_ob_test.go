package mcp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// The fake OB platform answers every SRU query with the one real record
// (gmb-2023-174296), as a word match on a related identifier could. ob_fetch
// must not pass that record off as the publication asked for.
func TestOBFetchChecksTheIdentifier(t *testing.T) {
	fixturesPresent(t)
	f := newFakePlatforms(t)
	port := testproc.FreePort(t)
	testcaddy.Load(t, fakeSite(t, f, port, `	handle /mcp/rijk {
		mcp rijk {
			platforms ob
		}
	}`))
	c := connect(t, fmt.Sprintf("http://127.0.0.1:%d/mcp/rijk", port), false, nil)
	for _, id := range []string{"gmb-2023-17429", "stb-2018-84"} {
		text, isErr := callTool(t, c, "ob_fetch", map[string]any{"id": id})
		if !isErr || !strings.Contains(text, "has no publication "+id) || strings.Contains(text, "Wij Willem-Alexander") {
			t.Errorf("%s: isError=%v\n%s", id, isErr, text)
		}
	}
	text, isErr := callTool(t, c, "ob_fetch", map[string]any{"id": "GMB-2023-174296", "max_chars": 300})
	if isErr || !strings.Contains(text, `"id":"gmb-2023-174296"`) {
		t.Fatalf("the right record: isError=%v\n%s", isErr, text)
	}
}
