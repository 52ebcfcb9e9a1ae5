// Command healthcheck is the container image's HEALTHCHECK: it asks the
// BesluitBron in its own container for /status.json and exits 0 on a 200,
// 1 otherwise, saying why. The image holds no shell and no curl
// (docker/Dockerfile), so the check is this static binary next to caddy.
// It reads BESLUITBRON_PORT as the default Caddyfile does, so a container
// moved to another port is still checked on the right one.
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"
)

// timeout bounds the whole check; a container whose status page takes
// longer is not healthy. Docker's own HEALTHCHECK --timeout is longer.
const timeout = 4 * time.Second

func main() {
	url, err := statusURL(os.Getenv("BESLUITBRON_PORT"))
	if err == nil {
		err = check(&http.Client{Timeout: timeout}, url)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "healthcheck:", err)
		os.Exit(1)
	}
}

// statusURL is the status page on the port the Caddyfile listens on
// (BESLUITBRON_PORT, 8080 when unset).
func statusURL(port string) (string, error) {
	if port == "" {
		port = "8080"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("BESLUITBRON_PORT is %q, not a port number (1-65535)", port)
	}
	return "http://127.0.0.1:" + port + "/status.json", nil
}

// check asks url once and wants a 200.
func check(client *http.Client, url string) error {
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	// Read a little of the body so the connection ends cleanly; the
	// status line is the answer.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s answered %s, want 200 OK", url, resp.Status)
	}
	return nil
}
