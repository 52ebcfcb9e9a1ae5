package site_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"github.com/besluitbron/besluitbron/caddymodule/site/ui"
)

// grantClipboard lets pages of origin read and write the clipboard, so
// the test reads back what a copy button put there
// (navigator.clipboard.readText); headless Chromium grants it through
// Browser.setPermission.
func grantClipboard(t *testing.T, ctx context.Context, origin string) {
	t.Helper()
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		step(t, ctx, "grant "+name, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
				Permission: &cdpbrowser.PermissionDescriptor{Name: name, AllowWithoutSanitization: true},
				Setting:    cdpbrowser.PermissionSettingGranted, Origin: origin})
			return err
		}))
	}
}

// clickCopy clicks the copy button in the element sel and waits for its
// confirmation; it returns the confirmation and what the clipboard holds.
func clickCopy(t *testing.T, ctx context.Context, sel, clipboard string) (said, held string) {
	t.Helper()
	if visible := eval[bool](t, ctx, `(() => { const b = document.querySelector(`+jsString(sel+" button.copy")+`); return !!b && b.offsetParent !== null; })()`); !visible {
		t.Fatalf("no visible copy button in %s", sel)
	}
	step(t, ctx, "copy "+sel, chromedp.Click(chromedp.CSS(sel+" button.copy")),
		chromedp.Poll[chromedp.Void](`document.querySelector(`+jsString(sel+" .copied")+`).textContent !== ""`, chromedp.WithPollingTimeout(10*time.Second)))
	said = eval[string](t, ctx, `document.querySelector(`+jsString(sel+" .copied")+`).textContent`)
	held = eval[string](t, ctx, clipboard+`.readText()`)
	return said, held
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// copyDouble: the page's script copies a citation, on a results page the
// ui package renders with hits whose Citation the test sets (a double for
// the platform packages' citations, which another branch writes): the
// button puts the citation on the clipboard (read back with
// navigator.clipboard.readText, clipboard permission granted) and says
// "Gekopieerd" beside it. Without the Clipboard API (a page on plain
// http), the fallback copies through a selected text area: it either
// puts the citation on the clipboard, or says it could not and selects
// the citation for the visitor to copy.
func copyDouble(t *testing.T, ctx context.Context) {
	const ecli = "ECLI:NL:HR:2024:123"
	view := ui.SearchView{Page: ui.Page{Lang: ui.NL, DefaultLang: ui.NL, Title: "Resultaten", Nav: "search", Path: "/search"},
		Searched: true, Done: true, Words: "x", Order: "relevance",
		Outcomes: []ui.Outcome{{Platform: "rechtspraak", Name: "Rechtspraak", State: "answered", Hits: 1}, {Platform: "ob", Name: "Officiële Bekendmakingen", State: "answered", Hits: 1}},
		Hits: []ui.Hit{{Platform: "rechtspraak", PlatformName: "Rechtspraak", ID: ecli, Title: "Uitspraak", Citation: ecli, ReadURL: "/lezen"},
			{Platform: "ob", PlatformName: "Officiële Bekendmakingen", ID: "stb-2018-84", Title: "Wet", Citation: "Stb. 2018, 84", ReadURL: "/lezen"}}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a, ok := ui.AssetNamed(strings.TrimPrefix(r.URL.Path, "/assets/")); ok {
			w.Header().Set("Content-Type", a.ContentType)
			w.Write(a.Body)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'")
		if err := ui.Render(w, "search", view); err != nil {
			t.Error(err)
		}
	}))
	t.Cleanup(srv.Close)
	grantClipboard(t, ctx, srv.URL)
	step(t, ctx, "double: load", chromedp.Navigate(srv.URL+"/search"), chromedp.WaitVisible(chromedp.CSS("li.hit button.copy")))
	if label := eval[string](t, ctx, `document.querySelector('li.hit[data-platform="ob"] button.copy').getAttribute("aria-label")`); label != "Kopieer de verwijzing Stb. 2018, 84" {
		t.Errorf("the copy button's accessible name is %q", label)
	}
	said, held := clickCopy(t, ctx, `li.hit[data-platform="ob"]`, "navigator.clipboard")
	if said != "Gekopieerd" || held != "Stb. 2018, 84" {
		t.Errorf("copying OB's citation said %q and put %q on the clipboard, want Gekopieerd and Stb. 2018, 84", said, held)
	}
	// The fallback: no Clipboard API, as on plain http.
	eval[bool](t, ctx, `window.realClipboard = navigator.clipboard;
		Object.defineProperty(Navigator.prototype, "clipboard", {get() { return undefined; }, configurable: true}); true`)
	said, held = clickCopy(t, ctx, `li.hit[data-platform="rechtspraak"]`, "window.realClipboard")
	switch said {
	case "Gekopieerd":
		if held != ecli {
			t.Errorf("the fallback said it copied, but the clipboard holds %q, want %s", held, ecli)
		}
		t.Log("fallback: the copy command put the citation on the clipboard")
	default:
		if sel := eval[string](t, ctx, `getSelection().toString()`); !strings.Contains(said, "selecteer de tekst") || sel != ecli {
			t.Errorf("the fallback failed, said %q and selected %q, want the advice and %s selected", said, sel, ecli)
		}
		t.Log("fallback: the copy command was refused; the citation is selected and the page says so")
	}
}

// copyAndReadInTheHouse: in the offline house, the reader of a ruling
// shows its resource URI with a copy button that puts exactly that URI on
// the clipboard, and (once the platform packages set citations) a
// citation holding its ECLI, copied the same way; the search page's hits
// show their citation with a visible copy button. The reader of an
// OpenBesluitvorming document shows its headings (<h2>, <h3>) and no
// markdown "**", and has no serious axe violation.
func copyAndReadInTheHouse(t *testing.T, ctx context.Context, base string) {
	grantClipboard(t, ctx, base)
	hits := jsonHits(t, base, url.Values{"org": {"Hoge Raad"}, "platform": {"rechtspraak"}, "limit": {"5"}})
	if len(hits) == 0 {
		t.Fatal("no ruling to read")
	}
	r := hits[0]
	step(t, ctx, "reader of a ruling", chromedp.Navigate(base+"/lezen?"+url.Values{"platform": {"rechtspraak"}, "id": {r.ID}}.Encode()),
		chromedp.WaitVisible(chromedp.CSS("dd.uri button.copy")))
	if shown := eval[string](t, ctx, `document.querySelector("dd.uri .copy-value").textContent`); shown != r.URI || !strings.HasPrefix(shown, "besluitbron://rechtspraak/") {
		t.Errorf("the reader shows resource URI %q, want %q", shown, r.URI)
	}
	if said, held := clickCopy(t, ctx, "dd.uri", "navigator.clipboard"); said != "Gekopieerd" || held != r.URI {
		t.Errorf("copying the URI said %q and put %q on the clipboard, want %q", said, held, r.URI)
	}
	if r.Citation == "" {
		t.Fatalf("ruling %s has no citation", r.ID)
	}
	if said, held := clickCopy(t, ctx, "dd.cite", "navigator.clipboard"); said != "Gekopieerd" || !strings.Contains(held, r.ID) {
		t.Errorf("copying the citation said %q and put %q on the clipboard, want one holding %s", said, held, r.ID)
	}
	step(t, ctx, "results with citations", chromedp.Navigate(base+"/search?"+url.Values{"org": {"Hoge Raad"}, "platform": {"rechtspraak"}, "limit": {"5"}}.Encode()),
		chromedp.WaitReady(chromedp.CSS(`#outcomes[data-done="true"]`)))
	// Each hit's citation holds the ECLI its reader link names.
	shown := eval[[][]string](t, ctx, `[...document.querySelectorAll("li.hit")].map(li => {
		const code = li.querySelector(".cite .copy-value"), b = li.querySelector(".cite button.copy");
		const id = new URL(li.querySelector("h3 a").href).searchParams.get("id") || "";
		return [id, code && b && b.offsetParent !== null && b.dataset.copy === code.textContent ? code.textContent : ""];
	})`)
	if len(shown) == 0 {
		t.Error("the results page shows no ruling")
	}
	for _, c := range shown {
		if c[0] == "" || !strings.Contains(c[1], c[0]) {
			t.Errorf("the hit %q shows citation %q with its button, want one holding its ECLI", c[0], c[1])
		}
	}

	var doc citedHit
	for _, h := range jsonHits(t, base, url.Values{"q": {"besluit"}, "platform": {"obv"}, "limit": {"20"}}) {
		if h.Type == "Document" {
			doc = h
			break
		}
	}
	if doc.ID == "" {
		t.Fatal("no OpenBesluitvorming document to read")
	}
	step(t, ctx, "reader of a document", chromedp.Navigate(base+"/lezen?"+url.Values{"platform": {"obv"}, "id": {doc.ID}, "type": {doc.Type}}.Encode()),
		chromedp.WaitVisible(chromedp.CSS("#doctext")))
	got := eval[map[string]any](t, ctx, `({h2: document.querySelectorAll("#doctext h2").length, h3: document.querySelectorAll("#doctext h3").length,
		strong: document.querySelectorAll("#doctext strong").length, text: document.getElementById("doctext").textContent})`)
	if got["h2"].(float64) < 1 || got["h3"].(float64) < 1 || got["strong"].(float64) < 1 {
		t.Errorf("the reader of %s shows %v h2, %v h3, %v strong; want its title, sections and organisation as such", doc.ID, got["h2"], got["h3"], got["strong"])
	}
	if text := got["text"].(string); strings.Contains(text, "**") || strings.Contains(text, "## ") {
		t.Errorf("the reader of %s shows markdown marks: %.300q", doc.ID, text)
	}
	checkAxe(t, ctx, "/lezen (structured text)", true)
}

// jsonHits is GET /search as JSON, from the test (not the browser).
func jsonHits(t *testing.T, base string, q url.Values) []citedHit {
	t.Helper()
	status, body := fetch(t, base+"/search?"+q.Encode(), http.Header{"Accept": {"application/json"}})
	var res struct{ Hits []citedHit }
	if err := json.Unmarshal([]byte(body), &res); err != nil || status != http.StatusOK {
		t.Fatalf("GET /search?%s: HTTP %d, %v", q.Encode(), status, err)
	}
	return res.Hits
}
