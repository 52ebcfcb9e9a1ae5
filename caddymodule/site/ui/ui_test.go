package ui

import (
	"html/template"
	"net/url"
	"strings"
	"testing"
)

// Every text exists in both languages, so no page shows a key or mixes
// languages.
func TestMessagesComplete(t *testing.T) {
	for _, l := range Languages {
		for k := range messages[NL] {
			if _, ok := messages[l][k]; !ok {
				t.Errorf("%s lacks %q", l, k)
			}
		}
		for k := range messages[l] {
			if _, ok := messages[NL][k]; !ok {
				t.Errorf("%s has %q, Dutch does not", l, k)
			}
		}
	}
}

func TestPick(t *testing.T) {
	offered := []string{NL, EN}
	for _, c := range []struct{ param, accept, want string }{
		{"", "", NL},
		{"en", "", EN},
		{"EN", "nl", EN},
		{"fr", "", NL},
		{"", "en-US,en;q=0.9", EN},
		{"", "de-DE, en;q=0.5, nl;q=0.8", NL},
		{"", "de, en;q=0.5", EN},
		{"", "en;q=0, nl;q=0.1", NL},
		{"", "fr", NL},
		{"", "en;q=bogus", NL},
	} {
		if got := Pick(c.param, c.accept, offered); got != c.want {
			t.Errorf("Pick(%q, %q) = %s, want %s", c.param, c.accept, got, c.want)
		}
	}
	if got := Pick("", "nl", []string{EN}); got != EN {
		t.Errorf("only English offered: got %s", got)
	}
}

func TestLinksKeepTheLanguage(t *testing.T) {
	p := Page{Lang: EN, DefaultLang: NL, Path: "/search", Query: url.Values{"q": {"stikstof"}, "lang": {"en"}}}
	if got := p.Link("/status"); got != "/status?lang=en" {
		t.Errorf("Link = %s", got)
	}
	if got := p.SwitchURL(); got != "/search?q=stikstof" {
		t.Errorf("SwitchURL = %s", got)
	}
	p.Lang = NL
	if got := p.SwitchURL(); got != "/search?lang=en&q=stikstof" {
		t.Errorf("SwitchURL = %s", got)
	}
}

// The pages render in both languages with the lang attribute, a skip link
// and the landmarks; user input is escaped.
func TestRenderPages(t *testing.T) {
	for _, lang := range Languages {
		page := Page{Lang: lang, DefaultLang: NL, Title: "x", Nav: "search", Version: "v1", Path: "/search"}
		sv := SearchView{Page: page, Words: `<script>alert(1)</script>`, Searched: true, Done: true,
			Platforms: []PlatformChoice{{Key: "obv", Name: "OpenBesluitvorming", Checked: true}},
			Outcomes:  []Outcome{{Platform: "obv", Name: "OpenBesluitvorming", State: "over_budget", RetryAfterSeconds: 12}},
			Hits:      []Hit{{Platform: "obv", PlatformName: "OpenBesluitvorming", Title: "Motie <b>", ReadURL: "/lezen?platform=obv&id=1", URL: "https://example.org/x", Date: "2024-01-02"}}}
		var b strings.Builder
		if err := Render(&b, "search", sv); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{`<html lang="` + lang + `">`, `href="#main"`, `<main id="main"`, `<nav aria-label=`, `role="search"`,
			`aria-live="polite"`, `&lt;script&gt;`, `Motie &lt;b&gt;`, `<label for="q">`, `<legend>`, `data-state="over_budget"`, "12 s"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s search page lacks %q", lang, want)
			}
		}
		if strings.Contains(out, "<script>alert") {
			t.Error("user input not escaped")
		}
		// A hit with a citation shows it as text, with a labelled copy
		// button that carries it; without a citation, no button.
		b.Reset()
		sv.Hits = []Hit{{Platform: "rechtspraak", PlatformName: "Rechtspraak", ID: "ECLI:NL:HR:2024:123", Citation: "ECLI:NL:HR:2024:123", ReadURL: "/lezen"},
			{Platform: "ob", PlatformName: "Officiële Bekendmakingen", ID: "x", Citation: `Stb. 2018, 84 <i>"`, ReadURL: "/lezen"},
			{Platform: "obv", PlatformName: "OpenBesluitvorming", ID: "y", ReadURL: "/lezen"}}
		if err := Render(&b, "search", sv); err != nil {
			t.Fatal(err)
		}
		out = b.String()
		label := map[string]string{NL: "Kopieer de verwijzing ", EN: "Copy the citation "}[lang]
		for _, want := range []string{`<code class="copy-value">ECLI:NL:HR:2024:123</code>`, `data-copy="ECLI:NL:HR:2024:123"`,
			`aria-label="` + label + `ECLI:NL:HR:2024:123"`, `type="button" class="copy"`, `aria-live="polite"`,
			`<code class="copy-value">Stb. 2018, 84 &lt;i&gt;&#34;</code>`} {
			if !strings.Contains(out, want) {
				t.Errorf("%s search page lacks %q", lang, want)
			}
		}
		if n := strings.Count(out, `class="copy"`); n != 2 {
			t.Errorf("%s search page: %d copy buttons for 2 citations", lang, n)
		}
		b.Reset()
		rv := ReaderView{Page: page, Platform: "obv", PlatformName: "OpenBesluitvorming", ID: "1", Title: "T", Text: "# Kop\n**vet** <b>\n- een", From: 0, To: 3, Total: 10, NextURL: "/lezen?offset=3",
			Citation: "Gmb. 2016, 146361", URI: "besluitbron://ob/gmb-2016-146361"}
		if err := Render(&b, "reader", rv); err != nil {
			t.Fatal(err)
		}
		out = b.String()
		for _, want := range []string{`rel="next"`, `<h2>Kop</h2>`, `<strong>vet</strong> &lt;b&gt;`, `<li>een</li>`,
			`data-copy="Gmb. 2016, 146361"`, `<code class="copy-value">besluitbron://ob/gmb-2016-146361</code>`, `data-copy="besluitbron://ob/gmb-2016-146361"`} {
			if !strings.Contains(out, want) {
				t.Errorf("%s reader lacks %q", lang, want)
			}
		}
		if strings.Contains(out, "**") || strings.Contains(out, "<b>") {
			t.Errorf("%s reader shows markdown marks or the text's markup:\n%s", lang, out)
		}
		b.Reset()
		st := StatusView{Page: page, RefreshSeconds: 15, Rows: []StatusRow{{Key: "obv", Name: "OpenBesluitvorming", Reachable: "yes", HasBudget: true, Capacity: 60, Available: 59, P50MS: -1, HasCache: true, HitRatio: 0.5, Lookups: 4}},
			Replicas: []ReplicaView{{PlatformName: "OpenBesluitvorming", Source: "BesluitBron's index of OpenBesluitvorming's export", Unit: "records",
				CaseLawView: CaseLawView{Decisions: 4712, CompleteUpTo: "2026-12-03T21:59:10Z", PagesLeft: -1}}}}
		if err := Render(&b, "status", st); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`<caption`, `<th scope="row">OpenBesluitvorming</th>`, "59 / 60", "50% (4)",
			map[string]string{NL: "4712 items in", EN: "4712 records in"}[lang] + " BesluitBron&#39;s index of OpenBesluitvorming&#39;s export.", "2026-12-03T21:59:10Z"} {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s status page lacks %q", lang, want)
			}
		}
	}
}

func TestAssets(t *testing.T) {
	for _, n := range []string{"site.css", "site.js"} {
		a, ok := AssetNamed(n)
		if !ok || len(a.Body) == 0 || a.ContentType == "" {
			t.Errorf("asset %s missing", n)
		}
	}
	if len(AssetVersion) != 12 {
		t.Errorf("AssetVersion %q", AssetVersion)
	}
}

// Outcome reasons and the status page's notes are said in the page's
// language from the engine's reason code; the engine's English text shows
// only for a code the page does not know.
func TestReasonsInThePagesLanguage(t *testing.T) {
	english := "Rechtspraak has no free-text search: name a court as organisation"
	outcomes := []Outcome{
		{Platform: "rechtspraak", Name: "Rechtspraak", State: "skipped", Reason: "no_word_search", Error: english},
		{Platform: "obv", Name: "OpenBesluitvorming", State: "over_budget", RetryAfterSeconds: 9, Reason: "budget", Error: "BesluitBron's request budget for OpenBesluitvorming has no room now; retry in 9 s"},
		{Platform: "tk", Name: "Tweede Kamer", State: "timeout", Reason: "deadline", Error: "no answer within the search's deadline of 8s"},
		{Platform: "ob", Name: "Officiële Bekendmakingen", State: "failed", Reason: "platform_error", Error: "Officiële Bekendmakingen answered HTTP 502"},
		{Platform: "ori", Name: "ORI", State: "failed", Reason: "a_code_from_the_future", Error: "something new"},
	}
	want := map[string][]string{
		NL: {"dit platform zoekt niet op woorden", "het verzoekbudget van BesluitBron voor dit platform heeft nu geen ruimte", "opnieuw over 9 s",
			"geen antwoord binnen de zoektijd", "het platform antwoordde met een foutmelding", "something new"},
		EN: {"this platform has no word search", "BesluitBron&#39;s request budget for this platform has no room now", "retry in 9 s",
			"no answer within the search&#39;s time", "the platform answered with an error", "something new"},
	}
	for _, lang := range Languages {
		v := SearchView{Page: Page{Lang: lang, DefaultLang: NL}, Searched: true, Done: true, Outcomes: outcomes}
		out, err := RenderString("results", v)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want[lang] {
			if !strings.Contains(out, w) {
				t.Errorf("%s: the outcomes lack %q:\n%s", lang, w, out)
			}
		}
		for _, o := range outcomes[:4] {
			if strings.Contains(out, template.HTMLEscapeString(o.Error)) {
				t.Errorf("%s: the engine's English text %q shows", lang, o.Error)
			}
		}
		st := StatusView{Page: Page{Lang: lang, DefaultLang: NL}, Rows: []StatusRow{
			{Key: "ob", Name: "Officiële Bekendmakingen", Reachable: "no", ReachNote: "Officiële Bekendmakingen answered HTTP 502", ReachReason: "platform_error", ReachWhy: "Officiële Bekendmakingen answered HTTP 502"},
			{Key: "tk", Name: "Tweede Kamer", Reachable: "no", ReachNote: "3 upstream errors in the last hour", ReachReason: ReasonUpstreamErrors, UpstreamErrors: 3},
			{Key: "obv", Name: "OpenBesluitvorming", Reachable: "yes", ReachNote: "Laadstatus: 300/310", LoadName: "Laadstatus", LoadOK: 300, LoadTotal: 310},
		}}
		out, err = RenderString("statustable", st)
		if err != nil {
			t.Fatal(err)
		}
		notes := map[string][]string{
			NL: {"het platform antwoordde met een foutmelding", "3 foutantwoorden van het platform in het laatste uur", "Laadstatus: 300/310"},
			EN: {"the platform answered with an error", "3 error answers from the platform in the last hour", "Laadstatus: 300/310"},
		}
		for _, w := range notes[lang] {
			if !strings.Contains(out, w) {
				t.Errorf("%s: the status table lacks %q:\n%s", lang, w, out)
			}
		}
		if strings.Contains(out, "answered HTTP 502") || strings.Contains(out, "upstream errors") {
			t.Errorf("%s: the status table shows the English note:\n%s", lang, out)
		}
	}
}

// A refused question is said in the page's language from the engine's
// codes and parameters; the engine's English text shows only for a code
// the page does not know, or when the engine named no problem.
func TestRefusalInThePagesLanguage(t *testing.T) {
	problems := []QueryProblem{
		{Code: "dates_swapped", Field: "from", Value: "2024-05-01", Other: "2024-01-01", Error: "from 2024-05-01 is after to 2024-01-01: swap them"},
		{Code: "bad_date", Field: "to", Value: "1-1-2024", Error: `to "1-1-2024" is not a date: write it as YYYY-MM-DD, e.g. 2024-03-01`},
		{Code: "limit_out_of_range", Field: "limit", Value: "99", Limit: 50, Error: "limit 99 is out of range: use 1 to 50 hits per platform (or omit it for 10)"},
		{Code: "a_code_from_the_future", Error: "something new"},
	}
	want := map[string]string{
		NL: "Deze vraag klopt niet: de datum vanaf (2024-05-01) ligt na de datum tot en met (2024-01-01): verwissel ze; " +
			"de datum tot en met „1-1-2024” is geen datum: schrijf hem als JJJJ-MM-DD, bijvoorbeeld 2024-03-01; " +
			"het aantal resultaten per platform (99) moet van 1 tot en met 50 zijn; something new",
		EN: "This question is not right: the date from (2024-05-01) is after the date up to (2024-01-01): swap them; " +
			"the date up to “1-1-2024” is not a date: write it as YYYY-MM-DD, e.g. 2024-03-01; " +
			"the number of results per platform (99) must be 1 to 50; something new",
	}
	for _, lang := range Languages {
		pg := Page{Lang: lang, DefaultLang: NL}
		if got := pg.RefusalText(problems, "the English"); got != want[lang] {
			t.Errorf("%s:\n got %q\nwant %q", lang, got, want[lang])
		}
		if got := pg.RefusalText(nil, "the English"); got != pg.F("error.bad", "the English") {
			t.Errorf("%s: no problems named: %q", lang, got)
		}
		// A hostile value is text, not markup, on the page.
		v := SearchView{Page: pg, Searched: true, Done: true,
			Error: pg.RefusalText([]QueryProblem{{Code: "unknown_platform", Field: "platforms", Value: "<script>x</script>"}}, "")}
		out, err := RenderString("results", v)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(out, "<script>") || !strings.Contains(out, `role="alert"`) || !strings.Contains(out, "&lt;script&gt;") {
			t.Errorf("%s: the refusal is not shown as text:\n%s", lang, out)
		}
	}
}

// The results say which order the hits are in, in the page's language,
// and link the other order; the form keeps the visitor's choice. A
// refused question shows no order.
func TestOrderShown(t *testing.T) {
	want := map[string][2]string{
		NL: {"Op relevantie: wat meer platforms hoger plaatsen, staat eerst.", "Sorteer op datum"},
		EN: {"By relevance: what more platforms rank higher comes first.", "Sort by date"},
	}
	for _, lang := range Languages {
		pg := Page{Lang: lang, DefaultLang: NL, Path: "/search"}
		v := SearchView{Page: pg, Searched: true, Done: true, Order: "relevance", OtherOrderURL: "/search?q=stikstof&sort=date"}
		out, err := RenderString("results", v)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, `data-order="relevance">`+want[lang][0]+` <a href="/search?q=stikstof&amp;sort=date" id="order-switch">`+want[lang][1]+`</a>`) {
			t.Errorf("%s: the order line is missing or wrong:\n%s", lang, out)
		}
		v.Order, v.Sort = "date", "date"
		if out, _ := RenderString("results", v); !strings.Contains(out, `data-order="date">`+v.T("order.date")) || !strings.Contains(out, v.T("order.to.relevance")) {
			t.Errorf("%s: by date: %s", lang, out)
		}
		var b strings.Builder
		if err := Render(&b, "search", v); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), `<option value="date" selected>`) || strings.Contains(b.String(), `<option value="" selected>`) {
			t.Errorf("%s: the form lost the chosen order", lang)
		}
		v.Error = "Deze vraag klopt niet"
		if out, _ := RenderString("results", v); strings.Contains(out, `id="order"`) {
			t.Errorf("%s: a refused question shows an order", lang)
		}
	}
}
