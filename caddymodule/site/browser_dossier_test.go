package site_test

import (
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/besluitbron/besluitbron/platforms/tk/emulator/timelinechain"
)

// TestBrowserDossier: the dossier page (issue 37, point 4) in a real
// browser, with JavaScript and without: the form, and a bill's way from
// its papers to the law version in force as a timeline, every step's
// marker drawn, the kind written beside it, axe-core finding no serious
// or critical violation. With -screenshots it writes dossier-*.png. A
// house of its own: the emulators name this dossier in their laws.
func TestBrowserDossier(t *testing.T) {
	b := browser(t)
	axeSource(t)
	ups, bills, _ := timelinechain.Chain(t, 1)
	h := loadDossierHouse(t, ups, "tk ob bwb")
	page := h.base + dossierPath(url.Values{"dossier": {bills[0]}, "law": {"BWBR9100000"}})
	for _, scripts := range []bool{true, false} {
		name := "javascript"
		if !scripts {
			name = "no-javascript"
		}
		t.Run(name, func(t *testing.T) {
			ctx := tab(t, b, scripts)
			step(t, ctx, "the form", chromedp.Navigate(h.base+"/dossier"), chromedp.WaitVisible(chromedp.CSS("form.dossier-form")))
			checkAxe(t, ctx, "dossier form", scripts)
			step(t, ctx, "the timeline", chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS("ol.tl")))
			// Every step has its marker drawn (a box of its own left of
			// the line) and its kind in words.
			bad := eval[int](t, ctx, `Array.from(document.querySelectorAll("li.tl-step")).filter(li => {
				const m = getComputedStyle(li, "::before");
				const kind = li.querySelector(".tl-kind");
				return m.content === "none" || parseFloat(m.width) < 10 || !kind || kind.textContent.trim() === "";
			}).length`)
			steps := eval[int](t, ctx, `document.querySelectorAll("li.tl-step").length`)
			if steps < 4 || bad != 0 {
				t.Fatalf("%d steps, %d without a marker or a kind", steps, bad)
			}
			checkAxe(t, ctx, "dossier timeline", scripts)
			if scripts && *screenshots {
				// At the last year, where the bill's votes, publication
				// and law version are, so the screenshots show them.
				last := eval[string](t, ctx, `Array.from(document.querySelectorAll("h3.tl-year")).pop().id`)
				step(t, ctx, "at the last year", chromedp.Navigate(page+"#"+last), chromedp.WaitVisible(chromedp.CSS("ol.tl")))
				shoot(t, ctx, "dossier")
			}
		})
	}
}
