// Command besluitbron-livecheck calls each real platform once, through a
// running BesluitBron, and reports per platform: reachable, answer shape
// as expected (against the same samples and shape checks the emulator
// tests use), and the rate-limit headers seen. With -save it keeps the
// answers as new fixtures. See docs/operations.md, "Live check".
//
//	besluitbron-livecheck [-base http://localhost:8080] [-platforms obv,tk,...]
//	    [-fixtures DIR] [-save DIR] [-tk-root /OData/v5] [-ob-id gmb-2023-174296]
//	    [-timeout 60s] [-json]
//
// Exit status: 0 when every platform passed (or is switched off in
// BesluitBron), 1 when one did not, 2 for a usage error. It is meant for an
// operator's machine with internet access, never for CI.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/internal/livecheck"
	// The product's platforms, each of which registers itself.
	_ "github.com/besluitbron/besluitbron/platforms/standard"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("besluitbron-livecheck", flag.ContinueOnError)
	fl.SetOutput(stderr)
	base := fl.String("base", "http://localhost:8080", "address of the running BesluitBron; probes go to <base>/platforms/<key>/...")
	plats := fl.String("platforms", strings.Join(livecheck.Platforms(), ","), "comma-separated platform keys to check")
	fixtures := fl.String("fixtures", "", "directory of the real samples (default: testdata/fixtures of the checkout)")
	save := fl.String("save", "", "also write each answer to DIR/<platform>/ as a new fixture, with its origin in DIR/<platform>/ORIGIN.md")
	tkRoot := fl.String("tk-root", livecheck.DefaultTKRoot, "Tweede Kamer OData root below the platform's base URL")
	obID := fl.String("ob-id", livecheck.DefaultOBID, "publication the Officiële Bekendmakingen probe looks up")
	timeout := fl.Duration("timeout", 60*time.Second, "time allowed per platform (a first call may wait for the platform's budget)")
	asJSON := fl.Bool("json", false, "print the results as JSON instead of text")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "unexpected arguments: %s\n", strings.Join(fl.Args(), " "))
		return 2
	}
	var keys []string
	for _, k := range strings.Split(*plats, ",") {
		if k = strings.TrimSpace(k); k != "" {
			keys = append(keys, k)
		}
	}
	o := livecheck.Options{Base: *base, Client: &http.Client{Timeout: *timeout}, Platforms: keys,
		FixtureDir: *fixtures, UserAgent: "besluitbron-livecheck",
		Config: livecheck.Config{TKRoot: *tkRoot, OBID: *obID}}
	results, err := livecheck.Run(context.Background(), o)
	if err != nil {
		fmt.Fprintln(stderr, "livecheck:", err)
		return 2
	}
	if *save != "" {
		if err := livecheck.Save(*save, results, time.Now()); err != nil {
			fmt.Fprintln(stderr, "livecheck: saving:", err)
		}
	}
	failed := 0
	if *asJSON {
		for _, r := range results {
			if !r.OK() {
				failed++
			}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(results)
	} else {
		failed = livecheck.WriteText(stdout, results)
	}
	if failed > 0 {
		return 1
	}
	return 0
}
