package upstream

import (
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/besluitbron/besluitbron/caddymodule/platforms"
)

var (
	registryMu sync.RWMutex
	registry   = map[string][]string{} // platform key -> base URLs configured in the running config
)

// Register records the base URLs of the platforms in the running
// configuration, so CheckURL also accepts URLs into them. The besluitbron
// app calls it when its config starts (never while one is provisioned, so
// a config that fails to load changes nothing).
func Register(platform string, baseURLs []string) {
	registryMu.Lock()
	registry[platform] = append([]string(nil), baseURLs...)
	registryMu.Unlock()
}

// Bases returns the base URLs URLs of the platform are checked against:
// those of the running configuration (Register) and its public defaults.
func Bases(platform string) ([]string, error) {
	p, ok := platforms.Get(platform)
	if !ok {
		return nil, fmt.Errorf("unknown platform %q (known: %v)", platform, platforms.Keys())
	}
	registryMu.RLock()
	out := append([]string(nil), registry[platform]...)
	registryMu.RUnlock()
	out = append(out, p.BaseURLs...)
	return out, nil
}

// CheckURL checks a URL that came from outside the proxy's configuration,
// a tool argument or a link in a platform's answer (e.g. an Officiële
// Bekendmakingen itemUrl), against the platform's hosts. It accepts the URL
// only if it points into one of the platform's base URLs (same host and
// port, an http→https upgrade allowed on default ports, path below the
// base URL's prefix after resolving "." and ".."; no user info) and
// returns the path and query below that base URL: fetch it as
// /platforms/<platform><rest> so it goes through the route's cache,
// budget and proxy. Anything else is an error: the proxy is no open proxy.
func CheckURL(platform, rawURL string) (rest string, err error) {
	bases, err := Bases(platform)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return "", fmt.Errorf("URL %q: %v", rawURL, err)
	}
	if !u.IsAbs() || u.Host == "" {
		return "", fmt.Errorf("URL %q: want an absolute http(s) URL of platform %s", rawURL, platform)
	}
	if u.User != nil {
		return "", fmt.Errorf("URL %q: user info not allowed", rawURL)
	}
	for _, b := range bases {
		h, err := ParseBaseURL(b)
		if err != nil {
			continue
		}
		if rest, ok := h.below(u); ok {
			return rest, nil
		}
	}
	return "", fmt.Errorf("URL %q is not on a host of platform %s (%s)", rawURL, platform, strings.Join(dedupe(bases), ", "))
}

func dedupe(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
