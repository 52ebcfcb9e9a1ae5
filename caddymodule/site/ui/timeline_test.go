package ui

import (
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
)

// The timeline groups steps by year in their order (undated last, under
// its own heading), writes each kind in the page's language, escapes
// what the platforms give, and lists the missing links apart.
func TestTimelineRendersYearsKindsAndGaps(t *testing.T) {
	p := Page{Lang: NL, DefaultLang: NL, Title: "Dossier 36410"}
	v := TimelineView{Page: p, Dossier: "36410", Shown: true,
		Steps: []TimelineStepView{
			{TimelineStep: adapters.TimelineStep{Date: "2023-05-01", Kind: adapters.StepDocument, Title: "Wetsvoorstel <script>x</script>", LinkedBy: "link"}, PlatformName: "Tweede Kamer", ReadURL: "/lezen?platform=tk&id=1"},
			{TimelineStep: adapters.TimelineStep{Date: "2024-02-01", Kind: adapters.StepVote, Title: "Stemming", Result: "aangenomen", LinkedBy: "link"}, PlatformName: "Tweede Kamer"},
			{TimelineStep: adapters.TimelineStep{Date: "2024-07-01", Kind: adapters.StepLawVersion, Title: "Wet", Result: "version 1", InForce: "2024-07-01", LinkedBy: "brondata"}, PlatformName: "BWB"},
			{TimelineStep: adapters.TimelineStep{Kind: adapters.StepActivity, Title: "Debat", LinkedBy: "link"}, PlatformName: "Tweede Kamer"},
		},
		Missing: []TimelineGapView{{TimelineGap: adapters.TimelineGap{Platform: "ob", Link: "Staatsblad publication", Why: "none <b>yet</b>"}, PlatformName: "Officiële Bekendmakingen"}},
	}
	years := v.Years()
	if len(years) != 3 || years[0].Year != "2023" || len(years[1].Steps) != 2 || years[2].Year != "" {
		t.Fatalf("%+v", years)
	}
	s, err := RenderString("dossier", v)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<h3 class="tl-year" id="year-2023">2023</h3>`, `<h3 class="tl-year" id="year-none">Zonder datum</h3>`,
		`<span class="tl-kind">Stuk</span>`, `<span class="tl-kind">Stemming</span>`, `<span class="tl-kind">Wetsversie</span>`,
		`<dt>Versie</dt><dd>version 1</dd>`, `<dt>Uitslag</dt><dd>aangenomen</dd>`,
		`Wetsvoorstel &lt;script&gt;x&lt;/script&gt;`, `none &lt;b&gt;yet&lt;/b&gt;`,
		`<h2 id="missing-h">Ontbrekende schakels</h2>`, `<details class="dossier-other">`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(s, "<script>x") {
		t.Fatal("a title was not escaped")
	}
	// The form alone: no timeline, no disclosure around the form.
	s, _ = RenderString("dossier", TimelineView{Page: p})
	if strings.Contains(s, `class="timeline"`) || strings.Contains(s, "<details") || !strings.Contains(s, `<form class="dossier-form"`) {
		t.Fatalf("%.600s", s)
	}
}

// A search hit that is a kamerstuk links to its dossier's timeline.
func TestHitLinksItsDossier(t *testing.T) {
	p := Page{Lang: EN, DefaultLang: NL}
	v := SearchView{Page: p, Searched: true, Done: true, Hits: []Hit{{Platform: "tk", Title: "Motie", ReadURL: "/lezen", Dossier: "36200-VII", DossierURL: "/dossier?dossier=36200-VII&lang=en"}}}
	s, err := RenderString("search", v)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s, `<a href="/dossier?dossier=36200-VII&amp;lang=en" class="dossier-link">Timeline of dossier 36200-VII</a>`) {
		t.Fatalf("%s", s)
	}
}
