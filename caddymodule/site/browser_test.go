package site_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/besluitbron/besluitbron/internal/testtier"
)

// The site in a real browser: headless Chromium (Debian's chromium
// package, which .ci/run installs) driven from Go with chromedp, against
// the offline house. chromedp rather than playwright-core under Node:
// the test stays a plain go test (no second runtime between the test and
// the browser, no browser download: playwright-core would drive the same
// Debian Chromium), and it reads the house it started directly.
//
// `go test ./caddymodule/site -run Browser -screenshots` also writes the
// screenshots in docs/screenshots/ (desktop 1280 and phone 390 wide).

var screenshots = flag.Bool("screenshots", false, "write docs/screenshots/*.png from the browser test")

const chromium = "/usr/bin/chromium"

// browser starts a headless Chromium with a fresh profile; it skips the
// test when Chromium is missing, unless CI=true.
func browser(t *testing.T) context.Context {
	t.Helper()
	testtier.Full(t, "Chromium")
	path := chromium
	if _, err := os.Stat(path); err != nil {
		if p, err := exec.LookPath("chromium"); err == nil {
			path = p
		} else {
			if os.Getenv("CI") == "true" {
				t.Fatalf("Chromium is missing at %s: .ci/run must install Debian's chromium package", chromium)
			}
			t.Skipf("Chromium is missing (%s): install Debian's chromium package to run the browser tests", chromium)
		}
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		// A Dutch visitor: the page picks its language from Accept-Language.
		chromedp.Flag("lang", "nl-NL"),
		chromedp.Flag("accept-lang", "nl-NL,nl"),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first Run starts the browser; it must not carry a timeout.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	return ctx
}

// tab opens a new tab of the browser, with page scripts on or off.
func tab(t *testing.T, browserCtx context.Context, scripts bool) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browserCtx)
	t.Cleanup(cancel)
	err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		// axe is injected by the test, not by the page: let it past the
		// page's Content-Security-Policy.
		if _, err := cdp.Call(ctx, tg, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: true}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: !scripts})
		return err
	}))
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

// step runs actions with a bound, and says which step failed.
func step(t *testing.T, ctx context.Context, name string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(c, actions...); err != nil {
		html, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML.slice(0, 4000)`))
		t.Fatalf("%s: %v\npage:\n%s", name, err, html)
	}
}

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(c, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluating %.80q: %v", expr, err)
	}
	return v
}

var axeSource = func() func(t *testing.T) string {
	var src string
	return func(t *testing.T) string {
		t.Helper()
		if src != "" {
			return src
		}
		b, err := os.ReadFile(filepath.Join(repoRoot(t), "test/node/node_modules/axe-core/axe.min.js"))
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("axe-core is missing: .ci/run must run `npm ci` in test/node (%v)", err)
			}
			t.Skipf("run `npm ci` in test/node for axe-core: %v", err)
		}
		src = string(b)
		return src
	}
}()

type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any  `json:"target"`
		HTML   string `json:"html"`
	} `json:"nodes"`
}

// checkAxe runs axe-core on the page (WCAG 2.0 and 2.1, A and AA) and
// fails on every serious or critical violation. With page scripts off,
// they are switched on for axe alone (the page's own script loaded
// before, so it stays off).
func checkAxe(t *testing.T, ctx context.Context, name string, scripts bool) {
	t.Helper()
	if !scripts {
		step(t, ctx, "scripts on for axe", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: false})
			return err
		}))
		defer step(t, ctx, "scripts off again", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
			return err
		}))
	}
	if !eval[bool](t, ctx, `typeof window.axe === "object"`) {
		eval[bool](t, ctx, axeSource(t)+"\n;true")
	}
	out := eval[string](t, ctx, `axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}).then(r => JSON.stringify(r.violations))`)
	var vs []axeViolation
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		t.Fatalf("%s: axe result: %v", name, err)
	}
	for _, v := range vs {
		msg := fmt.Sprintf("%s: axe %s (%s): %s", name, v.ID, v.Impact, v.Help)
		for _, n := range v.Nodes {
			msg += fmt.Sprintf("\n\t%v %s", n.Target, n.HTML)
		}
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Error(msg)
		} else {
			t.Log(msg)
		}
	}
}

// shoot writes docs/screenshots/<name>-<width>.png at desktop and phone
// width when -screenshots is given.
func shoot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if !*screenshots {
		return
	}
	url := eval[string](t, ctx, `location.href`)
	for _, vp := range []struct {
		label  string
		w, h   int64
		mobile bool
	}{{"desktop", 1280, 900, false}, {"phone", 390, 844, true}} {
		var opts []chromedp.EmulateViewportOption
		if vp.mobile {
			opts = append(opts, chromedp.EmulateScale(2), chromedp.EmulateMobile)
		}
		step(t, ctx, "viewport "+vp.label, chromedp.EmulateViewport(vp.w, vp.h, opts...), chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("footer")))
		if strings.Contains(url, "/search?") {
			step(t, ctx, "results "+vp.label, chromedp.WaitReady(chromedp.CSS(`#outcomes[data-done="true"]`)))
		}
		c, cancel := context.WithTimeout(ctx, 60*time.Second)
		png, err := chromedp.Run(c, chromedp.CaptureScreenshot())
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(repoRoot(t), "docs", "screenshots")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+"-"+vp.label+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	step(t, ctx, "viewport back", chromedp.EmulateReset(), chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("footer")))
}

// TestBrowser walks the site as a visitor does, with JavaScript (results
// stream in as platforms answer) and without (the server renders the whole
// answer): load /, search, see hits from at least five platforms and each
// platform's outcome, open a reader view, load /status; axe-core finds no
// serious or critical violation on any of these pages.
func TestBrowser(t *testing.T) {
	t.Parallel() // a house of its own in a child process, on ports of its own
	b := browser(t)
	axeSource(t)
	base := offlineHouse(t)
	checkHTTP(t, base)
	for _, scripts := range []bool{true, false} {
		name := "javascript"
		if !scripts {
			name = "no-javascript"
		}
		t.Run(name, func(t *testing.T) {
			ctx := tab(t, b, scripts)
			walk(t, ctx, base, scripts)
		})
	}
	t.Run("copy and read", func(t *testing.T) {
		ctx := tab(t, b, true)
		t.Run("double", func(t *testing.T) { copyDouble(t, ctx) })
		t.Run("house", func(t *testing.T) { copyAndReadInTheHouse(t, ctx, base) })
	})
	// Last, since it spends this address's searches for a while.
	t.Run("too many searches", func(t *testing.T) { overTheLimit(t, tab(t, b, false), tab(t, b, true), base) })
}

// overTheLimit: a visitor without JavaScript who sends the search form
// more often than site_search allows (20 at once per address) gets a page,
// not JSON: in Dutch, with the wait, a link to try the same search again,
// and no serious or critical axe violation.
// With JavaScript, the live search says the same in the page's words.
func overTheLimit(t *testing.T, ctx, scripted context.Context, base string) {
	var status int64
	for i := 0; i < 30 && status != http.StatusTooManyRequests; i++ {
		resp, err := chromedp.RunResponse(ctx, chromedp.Navigate(base+"/search?q=woningbouw&platforms=obv"))
		if err != nil {
			t.Fatalf("search %d: %v", i, err)
		}
		status = resp.Status
	}
	if status != http.StatusTooManyRequests {
		t.Fatal("30 searches at once from one address were all answered; want 429 from site_search")
	}
	if lang := eval[string](t, ctx, `document.documentElement.lang`); lang != "nl" {
		t.Errorf("the refusal's language is %q, want nl", lang)
	}
	text := eval[string](t, ctx, `document.body.innerText`)
	if !strings.Contains(text, "Te veel verzoeken") || !strings.Contains(text, "Probeer het over") || !strings.Contains(text, "Too many requests") {
		t.Errorf("the refusal says %q", text)
	}
	if href := eval[string](t, ctx, `document.querySelector("main a").getAttribute("href")`); href != "/search?q=woningbouw&platforms=obv" {
		t.Errorf("try again links to %q", href)
	}
	checkAxe(t, ctx, "429 from site_search", false)

	// The address's bucket refills one search every 6 s, so the page
	// itself first spends what refilled since (its own fetches until a
	// 429), then the visitor submits; should a search have refilled in
	// between, the submit is answered and the round is repeated.
	step(t, scripted, "live search: load /", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#q")),
		chromedp.SendKeys(chromedp.CSS("#q"), "woningbouw"))
	const drain = `(async () => {
		for (let i = 0; i < 40; i++) {
			const r = await fetch("/search/events?q=leeg&platforms=obv", {headers: {"Accept": "application/x-ndjson"}});
			await r.text();
			if (r.status === 429) { return true; }
		}
		return false;
	})()`
	refused := false
	for round := 0; round < 3 && !refused; round++ {
		// A previous round's finished answer must not end this round's wait.
		eval[bool](t, scripted, `document.querySelectorAll("#outcomes").forEach(e => e.removeAttribute("data-done")), true`)
		if !eval[bool](t, scripted, drain) {
			t.Fatal("40 searches from one address were all answered; want 429 from site_search")
		}
		step(t, scripted, "live search over the limit",
			chromedp.Click(chromedp.CSS(`#search-form button[type="submit"]`)),
			chromedp.Poll[chromedp.Void](`document.getElementById("announce").textContent.includes("Te veel zoekvragen") || document.querySelector('#outcomes[data-done="true"]') !== null`,
				chromedp.WithPollingTimeout(20*time.Second)))
		refused = strings.Contains(eval[string](t, scripted, `document.getElementById("announce").textContent`), "Te veel zoekvragen")
	}
	if msg := eval[string](t, scripted, `document.getElementById("announce").textContent`); !refused || !strings.Contains(msg, "Probeer het over") {
		t.Errorf("the live search over the limit says %q", msg)
	}
}

func walk(t *testing.T, ctx context.Context, base string, scripts bool) {
	shots := scripts && *screenshots
	step(t, ctx, "load /", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#q")))
	if lang := eval[string](t, ctx, `document.documentElement.lang`); lang != "nl" {
		t.Errorf("the page's language is %q, want nl", lang)
	}
	checkAxe(t, ctx, "/", scripts)
	if shots {
		shoot(t, ctx, "home")
	}

	step(t, ctx, "search",
		chromedp.SendKeys(chromedp.CSS("#q"), "woningbouw"),
		chromedp.Click(chromedp.CSS(`#search-form button[type="submit"]`)),
		chromedp.WaitReady(chromedp.CSS(`#outcomes[data-done="true"]`)))
	if u := eval[string](t, ctx, `location.pathname + location.search`); !strings.HasPrefix(u, "/search?") || !strings.Contains(u, "q=woningbouw") {
		t.Errorf("after the search the address is %s", u)
	}
	outcomes := eval[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll("#outcomes li")].map(li => [li.dataset.platform, li.dataset.state]))`)
	if len(outcomes) < 5 {
		t.Errorf("outcomes of %d platforms, want at least 5: %v", len(outcomes), outcomes)
	}
	for p, s := range outcomes {
		switch s {
		case "answered", "cache", "skipped":
		default:
			t.Errorf("platform %s: outcome %q in the offline house", p, s)
		}
	}
	hitPlatforms := eval[[]string](t, ctx, `[...new Set([...document.querySelectorAll("li.hit")].map(li => li.dataset.platform))]`)
	if len(hitPlatforms) < 5 {
		t.Errorf("hits from %d platforms (%v), want at least 5", len(hitPlatforms), hitPlatforms)
	}
	if scripts {
		if a := eval[string](t, ctx, `document.getElementById("announce").textContent`); a == "" {
			t.Error("the live region announced nothing")
		}
	}
	checkAxe(t, ctx, "/search", scripts)
	if shots {
		shoot(t, ctx, "results")
	}

	// The results say their order (relevance, for words) and offer the
	// other one: a plain link to the same search by date, whose form then
	// holds that choice.
	if o := eval[string](t, ctx, `(document.getElementById("order") || {dataset: {}}).dataset.order || ""`); o != "relevance" {
		t.Errorf("the results of a word search say order %q, want relevance", o)
	}
	step(t, ctx, "order by date", chromedp.Click(chromedp.CSS("#order-switch")), chromedp.WaitReady(chromedp.CSS(`#order[data-order="date"]`)))
	if v := eval[string](t, ctx, `document.getElementById("sort").value`); v != "date" {
		t.Errorf("after switching to date the form's order is %q", v)
	}
	checkAxe(t, ctx, "/search (by date)", scripts)

	// The reader view of a hit that names its source, an
	// OpenBesluitvorming one if there is one (full text, paged).
	href := eval[string](t, ctx, `(() => {
		const hits = [...document.querySelectorAll("li.hit")].filter(li => li.querySelector(".links a") && li.querySelector("h3 a").href.includes("/lezen?"));
		const hit = hits.find(li => li.dataset.platform === "obv") || hits[0];
		return hit ? hit.querySelector("h3 a").href : "";
	})()`)
	if !strings.Contains(href, "/lezen?") {
		t.Fatalf("no hit with a reader link and a source link: %q", href)
	}
	step(t, ctx, "reader", chromedp.Navigate(href), chromedp.WaitVisible(chromedp.CSS("article.doc h1")))
	if n := eval[int](t, ctx, `(document.getElementById("doctext") || {textContent: ""}).textContent.length`); n == 0 {
		t.Error("the reader view shows no text")
	}
	if src := eval[string](t, ctx, `(document.querySelector(".source a") || {}).href || ""`); src == "" {
		t.Error("the reader view has no link to the source")
	}
	// Its resource URI, as text; the copy button only with the script.
	if uri := eval[string](t, ctx, `(document.querySelector("dd.uri .copy-value") || {}).textContent || ""`); !strings.HasPrefix(uri, "besluitbron://") {
		t.Errorf("the reader view shows resource URI %q", uri)
	} else if visible := eval[bool](t, ctx, `document.querySelector("dd.uri button.copy").offsetParent !== null`); visible != scripts {
		t.Errorf("with scripts %v, the copy button is visible: %v", scripts, visible)
	}
	checkAxe(t, ctx, "/lezen", scripts)
	if shots {
		shoot(t, ctx, "reader")
	}

	// A refused question (the date from after the date up to) is said in
	// Dutch in the results region, and the form keeps what was typed.
	step(t, ctx, "refused question", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#q")),
		chromedp.SendKeys(chromedp.CSS("#q"), "stikstof"))
	eval[bool](t, ctx, `document.querySelector("details.filters").open = true;
		document.getElementById("from").value = "2024-05-01"; document.getElementById("to").value = "2024-01-01"; true`)
	step(t, ctx, "refused question: submit", chromedp.Click(chromedp.CSS(`#search-form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#live p.error[role="alert"]`)))
	if msg := eval[string](t, ctx, `document.querySelector("#live p.error").textContent`); msg != "Deze vraag klopt niet: de datum vanaf (2024-05-01) ligt na de datum tot en met (2024-01-01): verwissel ze" {
		t.Errorf("a refused question says %q", msg)
	}
	if kept := eval[string](t, ctx, `["q", "from", "to"].map(id => document.getElementById(id).value).join(" ")`); kept != "stikstof 2024-05-01 2024-01-01" {
		t.Errorf("after the refusal the form holds %q", kept)
	}
	checkAxe(t, ctx, "/search (refused)", scripts)

	step(t, ctx, "status", chromedp.Navigate(base+"/status"), chromedp.WaitVisible(chromedp.CSS("table.status")))
	rows := eval[[]string](t, ctx, `[...document.querySelectorAll("table.status tbody tr")].map(tr => tr.dataset.platform)`)
	if len(rows) < 5 {
		t.Errorf("status rows %v", rows)
	}
	if v := eval[string](t, ctx, `document.querySelector("#status-updated code").textContent`); v == "" {
		t.Error("the status page shows no version")
	}
	checkAxe(t, ctx, "/status", scripts)
	if shots {
		shoot(t, ctx, "status")
	}

	// English, through the visible switch.
	step(t, ctx, "english", chromedp.Click(chromedp.CSS(`a[hreflang="en"]`)), chromedp.WaitVisible(chromedp.CSS("table.status")))
	if lang := eval[string](t, ctx, `document.documentElement.lang`); lang != "en" {
		t.Errorf("after the language switch the page's language is %q", lang)
	}
}

// checkHTTP holds the routes to what apps and the status page promise:
// /search as JSON for a client that asks for it, /status.json without any
// client address or session, the pages' security headers, GET only.
func checkHTTP(t *testing.T, base string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/search?q=woningbouw&platform=obv&platform=tk", nil)
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Hits     []struct{ Platform string } `json:"hits"`
		Outcomes []struct{ Platform, State string }
	}
	err = json.NewDecoder(resp.Body).Decode(&res)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || len(res.Outcomes) != 2 || len(res.Hits) == 0 {
		t.Errorf("GET /search as JSON: HTTP %d, %v, %+v", resp.StatusCode, err, res.Outcomes)
	}
	resp, err = http.Get(base + "/status.json")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"platforms"`) {
		t.Errorf("/status.json: HTTP %d\n%s", resp.StatusCode, body)
	}
	for _, leak := range []string{"127.0.0.1", "addr:", "mcp:", "app:", "session"} {
		if strings.Contains(string(body), leak) {
			t.Errorf("/status.json shows %q:\n%s", leak, body)
		}
	}
	resp, err = http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("the page's Content-Security-Policy is %q", csp)
	}
	resp, err = http.Post(base+"/search", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /search: HTTP %d, want 405", resp.StatusCode)
	}
}
