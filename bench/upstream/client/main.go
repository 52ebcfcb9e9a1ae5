// client times short requests through the proxy: warm-up requests not
// counted, then n requests, each timed from sending until the body has
// been read, optionally with an idle pause before each. It prints one
// line: case, n, p50, p90, p99 (ms), and the upstream connections opened
// and requests seen during the timed part (from the upstream's /stats).
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"sort"
	"strings"
	"time"
)

func stats(url string) (int64, int64) {
	if url == "" {
		return 0, 0
	}
	resp, err := http.Get(url)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var c, r int64
	fmt.Sscan(strings.TrimSpace(string(b)), &c, &r)
	return c, r
}

func main() {
	url := flag.String("url", "http://127.0.0.1:8080/platforms/ori/ori_x/_search?q=a", "URL through the proxy")
	statsURL := flag.String("stats", "", "upstream /stats URL through the proxy (not counted)")
	n := flag.Int("n", 200, "timed requests")
	warm := flag.Int("warm", 3, "warm-up requests")
	idle := flag.Duration("idle", 0, "pause before each timed request")
	name := flag.String("case", "case", "case label")
	flag.Parse()

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Hour}}
	do := func() time.Duration {
		start := time.Now()
		resp, err := client.Get(*url)
		if err != nil {
			log.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			log.Fatalf("status %d", resp.StatusCode)
		}
		return time.Since(start)
	}
	for i := 0; i < *warm; i++ {
		do()
	}
	c0, r0 := stats(*statsURL)
	var d []float64
	for i := 0; i < *n; i++ {
		if *idle > 0 {
			time.Sleep(*idle)
		}
		d = append(d, float64(do().Microseconds())/1000)
	}
	c1, r1 := stats(*statsURL)
	sort.Float64s(d)
	q := func(p float64) float64 { return d[int(p*float64(len(d)-1)+0.5)] }
	counts := "upstream counts: n/a"
	if *statsURL != "" {
		counts = fmt.Sprintf("upstream conns=%d reqs=%d", c1-c0, r1-r0)
	}
	fmt.Printf("%-48s n=%-4d p50=%7.1f p90=%7.1f p99=%7.1f  %s\n",
		*name, *n, q(0.5), q(0.9), q(0.99), counts)
}
