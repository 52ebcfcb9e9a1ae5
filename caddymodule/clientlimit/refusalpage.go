package clientlimit

import (
	"bytes"
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/besluitbron/besluitbron/inbound"
)

// A browser that navigates into a limit (a search page's form sent too
// often, with or without JavaScript) gets a page rather than JSON: Dutch
// first, since BesluitBron's visitors are Dutch, then English. It says how
// long to wait and links to the same address to try again; it does not
// reload by itself (WCAG 2.2.1: the visitor controls the timing).
var refusalPage = template.Must(template.New("429").Parse(`<!doctype html>
<html lang="nl">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Te veel verzoeken</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a;background:#fff}a{color:#0b4f9c}</style>
</head>
<body>
<main>
<h1>Te veel verzoeken</h1>
<p>Er kwamen in korte tijd te veel verzoeken van {{.NL}}. Probeer het over {{.Secs}} {{if eq .Secs 1}}seconde{{else}}seconden{{end}} opnieuw.</p>
<p><a href="{{.Again}}">Opnieuw proberen</a></p>
<div lang="en">
<h2>Too many requests</h2>
<p>Too many requests came from {{.EN}} in a short time. Please try again in {{.Secs}} {{if eq .Secs 1}}second{{else}}seconds{{end}}.</p>
<p><a href="{{.Again}}">Try again</a></p>
</div>
</main>
</body>
</html>
`))

var layerWordsNL = [...]string{
	inbound.LayerSession:   "deze sessie",
	inbound.LayerAddress:   "dit adres",
	inbound.LayerConnector: "alle bezoekers samen",
	inbound.LayerProcess:   "alle bezoekers van deze server",
}

var layerWordsEN = [...]string{
	inbound.LayerSession:   "this session",
	inbound.LayerAddress:   "this address",
	inbound.LayerConnector: "all visitors together",
	inbound.LayerProcess:   "all visitors of this server",
}

// writeRefusalPage writes the 429 as the page above; Retry-After is set.
func writeRefusalPage(w http.ResponseWriter, r *http.Request, layer inbound.Layer, secs int64) {
	var b bytes.Buffer
	_ = refusalPage.Execute(&b, struct {
		NL, EN, Again string
		Secs          int64
	}{layerWordsNL[layer], layerWordsEN[layer], tryAgainLink(r), secs})
	hdr := w.Header()
	hdr["Content-Type"] = []string{"text/html; charset=utf-8"}
	hdr["Content-Length"] = []string{strconv.Itoa(b.Len())}
	hdr["Cache-Control"] = []string{"no-store"}
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = w.Write(b.Bytes())
}

// tryAgainLink is the address the client asked for, as it asked (before a
// handle_path or uri directive rewrote it), for the page's link. It always
// stays on this site: leading slashes are folded into one, so a request
// for //elsewhere.example/ cannot make it a link to another host. The
// template escapes what remains.
func tryAgainLink(r *http.Request) string {
	u := r.URL
	if orig, ok := r.Context().Value(caddyhttp.OriginalRequestCtxKey).(http.Request); ok && orig.URL != nil {
		u = orig.URL
	}
	return "/" + strings.TrimLeft(u.RequestURI(), "/\\")
}
