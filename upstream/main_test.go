package upstream

import (
	"flag"
	"os"
	"strconv"
	"testing"
)

// netnsParallel is how many parallel tests run at once here unless
// -parallel says otherwise. The only parallel tests of this package are
// the network-namespace ones (deadconn_netns_linux_test.go): each waits
// about 25 s for the kernel's TCP user timeout and probes, using almost
// no CPU, so with go test's default of GOMAXPROCS (2 on CI) the four of
// them took two rounds of that wait.
const netnsParallel = 4

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if p := flag.Lookup("test.parallel"); p != nil && !given {
		if n, err := strconv.Atoi(p.Value.String()); err == nil && n < netnsParallel {
			_ = flag.Set("test.parallel", strconv.Itoa(netnsParallel))
		}
	}
	os.Exit(m.Run())
}
