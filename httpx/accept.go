package httpx

import (
	"strconv"
	"strings"
)

// PrefersJSON tells whether an Accept header ranks application/json above
// text/html: an app asks for JSON alone; a browser's Accept lists
// text/html first. An empty Accept prefers neither.
func PrefersJSON(accept string) bool {
	jsonQ, htmlQ := acceptRanks(accept)
	return jsonQ > 0 && jsonQ > htmlQ
}

// PrefersHTML tells whether an Accept header ranks text/html (or XHTML)
// above application/json, as a browser navigating to a page does; fetch()
// and curl (*/*), EventSource (text/event-stream) and apps asking for
// JSON do not.
func PrefersHTML(accept string) bool {
	jsonQ, htmlQ := acceptRanks(accept)
	return htmlQ > 0 && htmlQ > jsonQ
}

// acceptRanks returns the quality an Accept header gives JSON and HTML,
// -1 for a type it does not name (wildcards name neither).
func acceptRanks(accept string) (jsonQ, htmlQ float64) {
	jsonQ, htmlQ = -1, -1
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		for p := range strings.SplitSeq(params, ";") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(p), "q="); ok {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
		}
		switch strings.ToLower(strings.TrimSpace(mt)) {
		case "application/json":
			jsonQ = max(jsonQ, q)
		case "text/html", "application/xhtml+xml":
			htmlQ = max(htmlQ, q)
		}
	}
	return jsonQ, htmlQ
}
