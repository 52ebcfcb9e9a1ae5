package mcp

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// The Laadstatus refresh interval is shared by every connector: a config
// that fails to load leaves the running one's interval, and a reload that
// starts applies its own.
func TestFailedReloadKeepsRefreshInterval(t *testing.T) {
	port := testproc.FreePort(t)
	config := func(refresh, extra string) string {
		return fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
}
http://:%d {
	handle /mcp/raad {
		mcp raad {
			platforms obv
			status_refresh %s
		}
%s	}
}
`, port, refresh, extra)
	}
	interval := func() time.Duration {
		t.Helper()
		m := pooled(t, "raad").settings().loadStatus["obv"]
		if m == nil {
			t.Fatal("no load status keeper for a connector offering obv")
		}
		return m.Interval()
	}
	testcaddy.Load(t, config("1h", ""))
	if got := interval(); got != time.Hour {
		t.Fatalf("interval %v, want 1h", got)
	}

	// Another connector's bad option fails the config after raad's
	// connector provisioned with a new interval.
	bad := config("2h", "\t\tmcp broken {\n\t\t\tplatforms nosuch\n\t\t}\n")
	if err := caddy.Load(testcaddy.WithoutPersistence(t, testcaddy.Adapt(t, bad)), true); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Fatalf("the broken config loaded: %v", err)
	}
	if got := interval(); got != time.Hour {
		t.Fatalf("a config that failed to load changed the interval to %v", got)
	}

	testcaddy.Reload(t, config("2h", ""))
	if got := interval(); got != 2*time.Hour {
		t.Fatalf("after the reload: interval %v, want 2h", got)
	}
}
