package adapters

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// ErrOutsidePlatform is RouteTarget's error for a request whose path
// would leave the platform route it was made for: it is never sent. The
// error is an *InvalidError (the reference that built the path is at
// fault), so every surface answers it as it answers an id the platform
// refuses.
var ErrOutsidePlatform = errors.New("the request's path leaves its platform's route")

// RouteTarget is the request URI of req on platform's route,
// /platforms/<platform><req.Path>, or an error wrapping
// ErrOutsidePlatform when any reading of that path would land elsewhere.
// The one place that sends requests to the platform routes in process
// (caddymodule/subrequest) sends only what it gives.
//
// This is the second wall behind each platform's id check
// (CheckIDChars): it holds whatever a platform's pattern lets through.
// Caddy decodes a request's path once and cleans it before its path
// matchers look (caddyhttp's MatchPath, Caddy v2.11),
// so /platforms/obv/api/entities/x:..%2F..%2Ftk/... is served by the tk
// route; and what the route passes on, a platform's server may decode and
// clean again. So the path is judged decoded, by what a matcher or a
// server could make of it:
//   - decoded once, it holds no "." or ".." segment, no backslash (some
//     servers take it for a slash), no ';' (a "..;" segment passes some
//     servers' checks), no control character, and no character that
//     Unicode's compatibility form turns into a dot or a slash;
//   - decoded once more, it holds no encoded dot, slash, backslash or
//     percent sign (a second decoder would make one);
//   - cleaned, it still lies below /platforms/<platform>/.
//
// The query is not judged: no matcher routes on it, and a platform reads
// it as parameters of the path the route already chose.
func RouteTarget(platform string, req Request) (string, error) {
	if !strings.HasPrefix(req.Path, "/") {
		return "", outside("%w: %q does not start with /", ErrOutsidePlatform, Cut(req.Path, 80))
	}
	if strings.Contains(req.Path, "#") {
		// The request would be sent without what follows it.
		return "", outside("%w: %q holds a fragment", ErrOutsidePlatform, Cut(req.Path, 80))
	}
	target := "/platforms/" + platform + req.Path
	u, err := url.ParseRequestURI(target)
	if err != nil {
		return "", outside("%w: %v", ErrOutsidePlatform, err)
	}
	if why := pathEscape(u.Path); why != "" {
		return "", outside("%w: %q %s", ErrOutsidePlatform, Cut(req.Path, 80), why)
	}
	below := "/platforms/" + platform + "/"
	if clean := path.Clean(u.Path); !strings.HasPrefix(clean+"/", below) {
		return "", outside("%w: %q is not below %s", ErrOutsidePlatform, Cut(req.Path, 80), below)
	}
	return target, nil
}

// outside is RouteTarget's refusal: ErrOutsidePlatform, as an invalid
// reference.
func outside(format string, args ...any) error {
	return &InvalidError{Err: fmt.Errorf(format, args...)}
}

// pathEscape says how the decoded path p could be read as another path,
// "" when it cannot.
func pathEscape(p string) string {
	if strings.ContainsAny(p, `\;`) {
		return "holds a backslash or a semicolon"
	}
	for _, r := range p {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return "holds a control character"
		}
	}
	if lower := strings.ToLower(p); strings.Contains(lower, "%2e") || strings.Contains(lower, "%2f") ||
		strings.Contains(lower, "%5c") || strings.Contains(lower, "%25") {
		return "holds an encoded dot or separator after decoding"
	}
	// Judged as written and in its compatibility form (a fullwidth full
	// stop is a dot there).
	for _, form := range []string{p, norm.NFKC.String(p)} {
		if strings.Count(form, "/") != strings.Count(p, "/") || strings.Contains(form, `\`) {
			return "holds a look-alike of a slash"
		}
		for _, seg := range strings.Split(form, "/") {
			if seg == "." || seg == ".." {
				return "holds a dot segment"
			}
		}
	}
	return ""
}
