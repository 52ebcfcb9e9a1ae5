package upstream

import (
	"fmt"
	"net/url"
	"strings"
)

// CheckURL checks a URL that came from outside the proxy's configuration,
// a tool argument or a link in a platform's answer (e.g. an Officiële
// Bekendmakingen itemUrl), against the platform's base URLs, which the
// caller passes: those of its own config (the besluitbron app's
// LinkBaseURLs), never a process-wide list, so a config that failed to
// load or was replaced decides nothing. It accepts the URL only if it
// points into one of bases (same host and port, an http→https upgrade
// allowed on default ports, path below the base URL's prefix after
// resolving "." and ".."; no user info) and returns the path and query
// below that base URL: fetch it as /platforms/<platform><rest> so it goes
// through the route's cache, budget and proxy. Anything else is an error:
// the proxy is no open proxy. platform only names the platform in errors.
func CheckURL(platform string, bases []string, rawURL string) (rest string, err error) {
	if len(bases) == 0 {
		return "", fmt.Errorf("URL %q: platform %s has no base URL", rawURL, platform)
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
