package ui

import "github.com/besluitbron/besluitbron/adapters"

// A dossier's timeline on its page (issue 37, point 4): the steps of
// adapters.BuildTimeline as an ordered list grouped by year, each with
// its date, its kind in words (a marker's shape repeats it, never colour
// alone), its title linked to the reader or the source, and the data that
// ties it to the dossier. An ordered list is its own accessible form and
// needs no script; the links the data does not give are listed apart.

// TimelineView is the dossier page: the form, and the timeline once a
// dossier was asked.
type TimelineView struct {
	Page
	// Dossier, Toevoeging and Law are as asked (the form keeps them);
	// once shown, Dossier is as read (36200-VII).
	Dossier, Toevoeging, Law string
	// Heading is the page's heading (the dossier's number), DossierTitle
	// the dossier's title where its data gives one.
	Heading, DossierTitle string
	Error                 string
	// Shown: a timeline was read (it may hold no step).
	Shown   bool
	Steps   []TimelineStepView
	Missing []TimelineGapView
	Notes   []string
	// Sources are the platforms asked, in order, with where each part
	// was read and what it cost.
	Sources []TimelineSourceView
}

// TimelineStepView is one step with the site's links.
type TimelineStepView struct {
	adapters.TimelineStep
	PlatformName string
	// ReadURL is the reader's address of the step's document; "" when
	// the reader does not hold it (SourceURL links it).
	ReadURL string
}

// TimelineGapView is a missing link with its platform's name.
type TimelineGapView struct {
	adapters.TimelineGap
	PlatformName string
}

// TimelineSourceView is one platform asked.
type TimelineSourceView struct {
	PlatformName, Provenance string
	Requests                 int
}

// TimelineYear is the steps of one year ("" for the steps without a
// date, last).
type TimelineYear struct {
	Year  string
	Steps []TimelineStepView
}

// Years are the steps grouped by year, in their (date) order.
func (v TimelineView) Years() []TimelineYear {
	var out []TimelineYear
	for _, s := range v.Steps {
		y := ""
		if len(s.Date) >= 4 {
			y = s.Date[:4]
		}
		if len(out) == 0 || out[len(out)-1].Year != y {
			out = append(out, TimelineYear{Year: y})
		}
		out[len(out)-1].Steps = append(out[len(out)-1].Steps, s)
	}
	return out
}

// KindText is a step's kind in the page's language.
func (v TimelineView) KindText(kind string) string {
	if s, ok := messages[v.Lang]["timeline.kind."+kind]; ok {
		return s
	}
	return kind
}

func init() {
	for lang, m := range timelineMessages {
		for k, s := range m {
			messages[lang][k] = s
		}
	}
}

// timelineMessages are the dossier page's texts, added to the page's
// messages.
var timelineMessages = map[string]map[string]string{
	NL: {
		"timeline.title":            "Dossier",
		"timeline.title.dossier":    "Dossier %s",
		"timeline.intro":            "De weg van een Kamerstukdossier of wetsvoorstel: de stukken, de debatten, besluiten en stemmingen, de publicatie in het Staatsblad en de wetsversie die in werking trad. Elke stap komt uit de gegevens van de platforms zelf, nooit uit titels; een schakel die de gegevens niet geven staat onder de ontbrekende schakels.",
		"timeline.form":             "Dossier zoeken",
		"timeline.form.dossier":     "Dossiernummer",
		"timeline.form.dossierhint": "Bijvoorbeeld 36410, of met toevoeging 36200-VII.",
		"timeline.form.law":         "Wet (optioneel)",
		"timeline.form.lawhint":     "Het BWB-id van de wet die het voorstel maakt of wijzigt, bijvoorbeeld BWBR0045754: dan wordt de versie gezocht die in werking trad.",
		"timeline.form.submit":      "Toon de tijdlijn",
		"timeline.form.other":       "Een ander dossier",
		"timeline.heading":          "Tijdlijn",
		"timeline.count":            "%d stappen, oudste eerst.",
		"timeline.empty":            "De gegevens geven geen stap van dit dossier.",
		"timeline.undated":          "Zonder datum",
		"timeline.kind.document":    "Stuk",
		"timeline.kind.activity":    "Activiteit",
		"timeline.kind.decision":    "Besluit",
		"timeline.kind.vote":        "Stemming",
		"timeline.kind.publication": "Publicatie",
		"timeline.kind.law_version": "Wetsversie",
		"timeline.read":             "Lezen",
		"timeline.source":           "Bij de bron",
		"timeline.citation":         "Verwijzing",
		"timeline.result":           "Uitslag",
		"timeline.version":          "Versie",
		"timeline.inforce":          "In werking vanaf",
		"timeline.linkedby":         "Gekoppeld door",
		"timeline.missing":          "Ontbrekende schakels",
		"timeline.missing.intro":    "Deze schakels geven de gegevens niet (nog niet, of niet te vinden); BesluitBron raadt ze niet.",
		"timeline.notes":            "Opmerkingen",
		"timeline.sources":          "Herkomst",
		"timeline.requests":         "%d verzoeken",
		"timeline.error":            "De tijdlijn kon niet worden gelezen: %s",
		"timeline.notoffered":       "Deze site biedt geen platform dat Kamerstukdossiers bevat.",
		"reader.dossier":            "Tijdlijn van dossier %s",
	},
	EN: {
		"timeline.title":            "Dossier",
		"timeline.title.dossier":    "Dossier %s",
		"timeline.intro":            "The way of a parliamentary dossier or bill: its papers, the debates, decisions and votes, the publication in the Staatsblad and the version of the law that took effect. Every step comes from the platforms' own data, never from titles; a link the data does not give is listed under the missing links.",
		"timeline.form":             "Find a dossier",
		"timeline.form.dossier":     "Dossier number",
		"timeline.form.dossierhint": "For example 36410, or with its addition 36200-VII.",
		"timeline.form.law":         "Law (optional)",
		"timeline.form.lawhint":     "The BWB id of the law the bill makes or changes, for example BWBR0045754: the version that took effect is then looked up.",
		"timeline.form.submit":      "Show the timeline",
		"timeline.form.other":       "Another dossier",
		"timeline.heading":          "Timeline",
		"timeline.count":            "%d steps, oldest first.",
		"timeline.empty":            "The data gives no step of this dossier.",
		"timeline.undated":          "Without a date",
		"timeline.kind.document":    "Paper",
		"timeline.kind.activity":    "Activity",
		"timeline.kind.decision":    "Decision",
		"timeline.kind.vote":        "Vote",
		"timeline.kind.publication": "Publication",
		"timeline.kind.law_version": "Law version",
		"timeline.read":             "Read",
		"timeline.source":           "At the source",
		"timeline.citation":         "Citation",
		"timeline.result":           "Result",
		"timeline.version":          "Version",
		"timeline.inforce":          "In force from",
		"timeline.linkedby":         "Linked by",
		"timeline.missing":          "Missing links",
		"timeline.missing.intro":    "The data does not give these links (not yet, or not findable); BesluitBron does not guess them.",
		"timeline.notes":            "Notes",
		"timeline.sources":          "Where it comes from",
		"timeline.requests":         "%d requests",
		"timeline.error":            "The timeline could not be read: %s",
		"timeline.notoffered":       "This site offers no platform that holds parliamentary dossiers.",
		"reader.dossier":            "Timeline of dossier %s",
	},
}
