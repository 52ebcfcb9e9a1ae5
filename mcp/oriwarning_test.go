package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// A connector offering the ORI tools warns at start when the besluitbron
// app names no ORI base URL (its public address is switched off), read
// from the config, never from the environment: a reload that names one
// stops the warning.
func TestORIWarningReadsTheApp(t *testing.T) {
	t.Setenv("BESLUITBRON_ORI_URL", "http://from-the-environment.example") // must not count
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	port := testproc.FreePort(t)
	config := func(block string) string {
		return fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
	log {
		output file %s
		level WARN
	}
	besluitbron {
%s	}
}
http://:%d {
	handle /mcp/raad {
		mcp raad {
			platforms ori
		}
	}
}
`, logFile, block, port)
	}
	// The warning names the platform in its fields.
	const warning = `names a base URL","connector":"raad","platform":"ori"`
	read := func() string {
		b, err := os.ReadFile(logFile)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return string(b)
	}
	testcaddy.Load(t, config(""))
	if n := strings.Count(read(), warning); n != 1 {
		t.Fatalf("no ori base_url: %d warnings\n%s", n, read())
	}
	testcaddy.Reload(t, config("\t\tplatform ori {\n\t\t\tbase_url http://ori-index.example\n\t\t}\n"))
	if n := strings.Count(read(), warning); n != 1 {
		t.Fatalf("ori base_url set: warned again (%d)\n%s", n, read())
	}
}
