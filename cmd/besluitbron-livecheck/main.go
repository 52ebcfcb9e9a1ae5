// Command besluitbron-livecheck calls each real platform once, through a
// running BesluitBron, and reports per platform: reachable, answer shape
// as expected (against the same samples and shape checks the emulator
// tests use), and the rate-limit headers seen. With -save it keeps the
// answers as new fixtures. See docs/operations.md, "Live check".
//
//	besluitbron-livecheck [-base http://localhost:8080] [-platforms obv,tk,...]
//	    [-fixtures DIR] [-save DIR] [-option tk_odata_root=/OData/v5]...
//	    [-id ob=gmb-2023-174296]...
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
	"github.com/besluitbron/besluitbron/platforms"
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
	options := platformOptions{}
	fl.Var(options, "option", "a platform's option as a connector names it, <key>_<option>=<value>, e.g. tk_odata_root=/OData/v4/2.0 (repeat for more)")
	ids := recordIDs{}
	fl.Var(ids, "id", "the record a platform's probe looks up, <key>=<id>, e.g. ob=gmb-2023-174296 (repeat for more)")
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
		Config: livecheck.Config{Options: options, IDs: ids}}
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

// platformOptions are the -option flags: platform options by key.
type platformOptions map[string]platforms.Options

func (o platformOptions) String() string { return "" }

func (o platformOptions) Set(v string) error {
	name, value, ok := strings.Cut(v, "=")
	key, opt, known := platforms.OptionOf(name)
	if !ok || !known {
		return fmt.Errorf("want <key>_<option>=<value>, one of %s", strings.Join(platforms.PrefixedOptions(), ", "))
	}
	if o[key] == nil {
		o[key] = platforms.Options{}
	}
	o[key][opt] = strings.Fields(value)
	return nil
}

// recordIDs are the -id flags: a probe's record by platform key.
type recordIDs map[string]string

func (r recordIDs) String() string { return "" }

func (r recordIDs) Set(v string) error {
	key, id, ok := strings.Cut(v, "=")
	if _, known := platforms.Get(key); !ok || !known || id == "" {
		return fmt.Errorf("want <key>=<id> for a platform key: %s", strings.Join(platforms.Keys(), ", "))
	}
	r[key] = id
	return nil
}
