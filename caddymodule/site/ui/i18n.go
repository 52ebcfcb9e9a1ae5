package ui

import (
	"sort"
	"strconv"
	"strings"
)

// The page's languages. Dutch comes first: BesluitBron's users and the
// platforms are Dutch; English is there for everyone else.
const (
	NL = "nl"
	EN = "en"
)

// Languages are the languages the page can speak.
var Languages = []string{NL, EN}

// Known tells whether lang is one of Languages.
func Known(lang string) bool {
	for _, l := range Languages {
		if l == lang {
			return true
		}
	}
	return false
}

// Pick chooses the page's language: an explicit ?lang= the site offers,
// else the best Accept-Language match among offered, else offered[0].
func Pick(param, acceptLanguage string, offered []string) string {
	if len(offered) == 0 {
		offered = Languages
	}
	for _, l := range offered {
		if strings.EqualFold(param, l) {
			return l
		}
	}
	type pref struct {
		lang string
		q    float64
		pos  int
	}
	var prefs []pref
	for i, part := range strings.Split(acceptLanguage, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		tag, q := part, 1.0
		if semi := strings.IndexByte(part, ';'); semi >= 0 {
			tag = strings.TrimSpace(part[:semi])
			for _, p := range strings.Split(part[semi+1:], ";") {
				p = strings.TrimSpace(p)
				if v, ok := strings.CutPrefix(p, "q="); ok {
					if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && f <= 1 {
						q = f
					} else {
						q = 0
					}
				}
			}
		}
		if q <= 0 {
			continue
		}
		primary, _, _ := strings.Cut(strings.ToLower(tag), "-")
		prefs = append(prefs, pref{primary, q, i})
	}
	sort.SliceStable(prefs, func(a, b int) bool { return prefs[a].q > prefs[b].q })
	for _, p := range prefs {
		for _, l := range offered {
			if p.lang == l {
				return l
			}
		}
	}
	return offered[0]
}

// messages holds every text of the page, per language. A key missing in a
// language falls back to Dutch (TestMessagesComplete keeps both full).
var messages = map[string]map[string]string{
	NL: {
		"site.name":           "BesluitBron",
		"site.tagline":        "Eén vraag, alle platforms: raadsbesluiten, Kamerstukken, officiële publicaties en uitspraken.",
		"skip":                "Naar de inhoud",
		"nav.label":           "Hoofdmenu",
		"nav.search":          "Zoeken",
		"nav.status":          "Status",
		"lang.switch":         "English",
		"lang.switch.code":    "en",
		"search.title":        "Zoeken",
		"search.label":        "Zoekwoorden",
		"search.hint":         "Bijvoorbeeld: stikstof, woningbouw, jeugdzorg.",
		"search.button":       "Zoeken",
		"filters":             "Filters",
		"filters.platforms":   "Platforms",
		"filters.from":        "Datum vanaf",
		"filters.to":          "Datum tot en met",
		"filters.date.hint":   "Als JJJJ-MM-DD.",
		"filters.org":         "Organisatie",
		"filters.org.hint":    "Bijvoorbeeld een gemeente (utrecht) of een instantie.",
		"filters.sort":        "Volgorde",
		"filters.sort.hint":   "Vanzelf: op relevantie als u zoekwoorden geeft, anders nieuwste eerst.",
		"filters.sort.auto":   "Vanzelf",
		"sort.relevance":      "Relevantie",
		"sort.date":           "Datum, nieuwste eerst",
		"order.relevance":     "Op relevantie: wat meer platforms hoger plaatsen, staat eerst.",
		"order.date":          "Op datum: nieuwste eerst.",
		"order.to.relevance":  "Sorteer op relevantie",
		"order.to.date":       "Sorteer op datum",
		"results.title":       "Resultaten",
		"results.none":        "Geen resultaten gevonden.",
		"results.count":       "%d resultaten",
		"results.count.one":   "1 resultaat",
		"results.partial":     "Niet alle platforms antwoordden: dit is een gedeeltelijk antwoord.",
		"results.busy":        "Bezig met zoeken…",
		"results.too_many":    "Te veel zoekvragen in korte tijd. Probeer het over {s} seconden opnieuw.",
		"results.progress":    "%d van %d platforms hebben geantwoord.",
		"results.done":        "Klaar: %s van %d platforms.",
		"results.error":       "Het zoeken is mislukt: %s",
		"outcomes.title":      "Antwoord per platform",
		"outcome.answered":    "geantwoord",
		"outcome.cache":       "uit de cache",
		"outcome.timeout":     "te laat (geen antwoord binnen de tijd)",
		"outcome.over_budget": "budget op",
		"outcome.retry":       "opnieuw over %d s",
		"outcome.failed":      "mislukt",
		"outcome.skipped":     "overgeslagen",
		"outcome.waiting":     "wacht op antwoord",
		"outcome.hits":        "%d treffers",

		// Why a platform was skipped, timed out, over budget or failed:
		// the engine's reason codes (fanout.Reason*); on the status page,
		// why it may not be reachable.
		"reason.query_refused":          "de vraag is niet in orde",
		"reason.no_organisation_filter": "dit platform kan niet op organisatie filteren (het zijn stukken van het parlement); zoek zonder organisatie om het mee te nemen",
		"reason.no_word_search":         "dit platform zoekt niet op woorden: geef een gerecht als organisatie (HR, Rechtbank Den Haag) of zoek op een ECLI",
		"reason.needs_words":            "dit platform zoekt alleen met zoekwoorden",
		"reason.unknown_court":          "de organisatie noemt niet precies één gerecht; geef bijvoorbeeld HR of Rechtbank Den Haag",
		"reason.index_unavailable":      "BesluitBrons eigen index van de uitspraken is nu niet beschikbaar; zoek op een gerecht of een ECLI",
		"reason.query_unfit":            "deze vraag past niet bij dit platform",
		"reason.deadline":               "geen antwoord binnen de zoektijd; het verzoek loopt nog even door, dus straks opnieuw zoeken kan het antwoord uit de cache geven",
		"reason.cancelled":              "het zoeken werd afgebroken voordat het platform antwoordde",
		"reason.budget":                 "het verzoekbudget van BesluitBron voor dit platform heeft nu geen ruimte",
		"reason.rate_limited":           "het platform zelf vroeg om minder verzoeken (HTTP 429)",
		"reason.platform_error":         "het platform antwoordde met een foutmelding",
		"reason.unexpected_answer":      "het platform antwoordde in een onverwachte vorm",
		"reason.unreachable":            "het platform was niet te bereiken",
		"status.upstream_errors":        "%d foutantwoorden van het platform in het laatste uur",
		"status.store":                  "Cache en budgetten",
		"status.store.shared":           "gedeeld met de andere instanties van BesluitBron (via Redis)",
		"status.store.degraded":         "tijdelijk niet gedeeld: Redis is onbereikbaar, dus deze instantie werkt alleen, met haar eigen cache en een voorzichtig eigen deel van elk budget",
		"status.store.local":            "alleen van deze instantie (lokaal)",

		// Why the question was refused: the engine's codes (fanout.Code*),
		// with {field}, {value}, {other}, {limit} from the engine.
		"query.not_utf8":              "in {field} staan tekens die geen geldige tekst zijn: typ ze opnieuw",
		"query.words_too_long":        "de zoekwoorden zijn te lang ({value} bytes, hoogstens {limit}): gebruik minder of kortere woorden",
		"query.words_control":         "de zoekwoorden bevatten stuurtekens: gebruik gewone woorden",
		"query.organisation_too_long": "de organisatie is te lang ({value} bytes, hoogstens {limit}): geef een naam of sleutel zoals utrecht",
		"query.organisation_control":  "de organisatie bevat stuurtekens: geef een naam of sleutel zoals utrecht",
		"query.nothing_to_search":     "geef zoekwoorden, een organisatie of allebei",
		"query.bad_date":              "{field} „{value}” is geen datum: schrijf hem als JJJJ-MM-DD, bijvoorbeeld 2024-03-01",
		"query.dates_swapped":         "de datum vanaf ({value}) ligt na de datum tot en met ({other}): verwissel ze",
		"query.limit_out_of_range":    "het aantal resultaten per platform ({value}) moet van 1 tot en met {limit} zijn",
		"query.limit_not_number":      "het aantal resultaten per platform („{value}”) is geen getal: gebruik 1 tot en met {limit}",
		"query.too_many_platforms":    "{value} platforms genoemd, hoogstens {limit}: kies ze bij Filters",
		"query.unknown_platform":      "het platform „{value}” bestaat niet: kies de platforms bij Filters",
		"query.platform_twice":        "het platform „{value}” is twee keer genoemd: noem het één keer",
		"query.platform_not_offered":  "het platform „{value}” is hier niet te kiezen: kies de platforms bij Filters",
		"query.query_string_too_long": "de vraag is te lang ({value} bytes, hoogstens {limit})",
		"query.query_string_encoding": "het adres van de vraag is niet goed gecodeerd",
		"query.unknown_sort":          "de volgorde „{value}” bestaat niet: kies relevantie of datum",
		"field.q":                     "de zoekwoorden",
		"field.organisation":          "de organisatie",
		"field.from":                  "de datum vanaf",
		"field.to":                    "de datum tot en met",

		"hit.platform":              "Platform",
		"hit.type":                  "Soort",
		"hit.date":                  "Datum",
		"hit.org":                   "Organisatie",
		"hit.source":                "Bron",
		"hit.read":                  "Lezen",
		"hit.also":                  "Ook op",
		"hit.source.label":          "%s bij de bron",
		"reader.title":              "Document",
		"reader.back":               "Terug naar de resultaten",
		"reader.source":             "Bekijk bij de bron",
		"reader.prev":               "Vorige pagina",
		"reader.next":               "Volgende pagina",
		"reader.pages":              "Tekens %d tot %d van %d",
		"reader.pager":              "Pagina's",
		"reader.notext":             "Dit platform levert geen tekst van dit document; bekijk het bij de bron.",
		"reader.error":              "Het document kon niet worden gelezen: %s",
		"reader.details":            "Gegevens",
		"reader.citation":           "Verwijzing",
		"reader.uri":                "MCP-resource",
		"hit.citation":              "Verwijzing",
		"copy.button":               "Kopieer",
		"copy.citation.label":       "Kopieer de verwijzing %s",
		"copy.uri.label":            "Kopieer de resource-URI %s",
		"copy.done":                 "Gekopieerd",
		"copy.failed":               "Kopiëren lukte niet: selecteer de tekst en kopieer die zelf",
		"status.title":              "Status van de platforms",
		"status.intro":              "Per platform: bereikbaar, het budget dat BesluitBron aanhoudt, wachttijden en de cache. Deze pagina ververst zichzelf.",
		"status.platform":           "Platform",
		"status.reachable":          "Bereikbaar",
		"status.budget":             "Budget over",
		"status.waiting":            "Wachtend",
		"status.wait":               "Wachttijd p50 / p95",
		"status.entries":            "Cache-items",
		"status.ratio":              "Cache-treffers (laatste uur)",
		"status.yes":                "ja",
		"status.no":                 "nee",
		"status.unknown":            "onbekend",
		"status.nobudget":           "geen eigen limiet",
		"status.paused":             "gepauzeerd",
		"status.version":            "Versie",
		"status.updated":            "Bijgewerkt",
		"status.refresh":            "Nu vernieuwen",
		"status.pause":              "Automatisch vernieuwen pauzeren",
		"status.resume":             "Automatisch vernieuwen hervatten",
		"status.auto":               "Ververst elke %d seconden.",
		"status.load":               "%s %s",
		"status.caselaw":            "Index van de uitspraken (Rechtspraak)",
		"status.caselaw.decisions":  "%d uitspraken in BesluitBrons eigen index.",
		"status.caselaw.complete":   "Volledig tot %s.",
		"status.caselaw.pages":      "Nu bezig: %d pagina's gelezen, nog ongeveer %d.",
		"status.caselaw.error":      "De index is niet beschikbaar: %s",
		"status.replica":            "Eigen index van %s",
		"status.replica.records":    "%d %s in %s.",
		"status.replica.pages":      "Nu bezig: %d pagina's gelezen.",
		"status.replica.failing":    "Het bijwerken wacht: %s",
		"unit.records":              "items",
		"unit.decisions":            "uitspraken",
		"status.replica.sources":    "Per bron (%d)",
		"status.replica.source":     "Bron",
		"status.replica.held":       "In de index",
		"status.replica.lastchange": "Laatste wijziging",
		"status.replica.caughtup":   "Bijgewerkt tot",
		"status.replica.lag":        "%s geleden",
		"status.replica.notyet":     "nog niet",
		"status.load.summary":       "%d van %d bronnen in orde (gemeten %s)",
		"status.load.none":          "nog niet opgehaald",
		"status.nodata":             "geen gegevens",
		"status.caption":            "Platforms, bereikbaarheid, budget en cache",
		"footer.api":                "Voor apps: GET /search met Accept: application/json. Voor assistenten: de MCP-connectoren op /mcp/alles, /mcp/raad en /mcp/rijk.",
		"footer.privacy":            "Geen cookies, geen trackers, geen externe bestanden.",
		"error.title":               "Er ging iets mis",
		"error.bad":                 "Deze vraag klopt niet: %s",
		"error.notfound":            "Deze pagina bestaat niet.",
	},
	EN: {
		"site.name":           "BesluitBron",
		"site.tagline":        "One question, every platform: council decisions, parliamentary papers, official publications and court rulings.",
		"skip":                "Skip to content",
		"nav.label":           "Main menu",
		"nav.search":          "Search",
		"nav.status":          "Status",
		"lang.switch":         "Nederlands",
		"lang.switch.code":    "nl",
		"search.title":        "Search",
		"search.label":        "Search words",
		"search.hint":         "For example: stikstof, woningbouw, jeugdzorg.",
		"search.button":       "Search",
		"filters":             "Filters",
		"filters.platforms":   "Platforms",
		"filters.from":        "Date from",
		"filters.to":          "Date up to and including",
		"filters.date.hint":   "As YYYY-MM-DD.",
		"filters.org":         "Organisation",
		"filters.org.hint":    "For example a municipality (utrecht) or a court.",
		"filters.sort":        "Order",
		"filters.sort.hint":   "Automatic: by relevance when you give search words, else newest first.",
		"filters.sort.auto":   "Automatic",
		"sort.relevance":      "Relevance",
		"sort.date":           "Date, newest first",
		"order.relevance":     "By relevance: what more platforms rank higher comes first.",
		"order.date":          "By date: newest first.",
		"order.to.relevance":  "Sort by relevance",
		"order.to.date":       "Sort by date",
		"results.title":       "Results",
		"results.none":        "No results found.",
		"results.count":       "%d results",
		"results.count.one":   "1 result",
		"results.partial":     "Not every platform answered: this is a partial answer.",
		"results.busy":        "Searching…",
		"results.too_many":    "Too many searches in a short time. Please try again in {s} seconds.",
		"results.progress":    "%d of %d platforms have answered.",
		"results.done":        "Done: %s from %d platforms.",
		"results.error":       "The search failed: %s",
		"outcomes.title":      "Answer per platform",
		"outcome.answered":    "answered",
		"outcome.cache":       "from cache",
		"outcome.timeout":     "timed out (no answer in time)",
		"outcome.over_budget": "over budget",
		"outcome.retry":       "retry in %d s",
		"outcome.failed":      "failed",
		"outcome.skipped":     "skipped",
		"outcome.waiting":     "waiting for an answer",
		"outcome.hits":        "%d hits",

		"reason.query_refused":          "the question was refused",
		"reason.no_organisation_filter": "this platform cannot filter by organisation (its documents are parliament's); search without an organisation to include it",
		"reason.no_word_search":         "this platform has no word search: give a court as organisation (HR, Rechtbank Den Haag) or search for an ECLI",
		"reason.needs_words":            "this platform searches only with words",
		"reason.unknown_court":          "the organisation names no single court; give one such as HR or Rechtbank Den Haag",
		"reason.index_unavailable":      "BesluitBron's own index of the rulings is unavailable now; search by court or ECLI",
		"reason.query_unfit":            "this question does not fit this platform",
		"reason.deadline":               "no answer within the search's time; the request goes on a little longer, so searching again soon may give the answer from the cache",
		"reason.cancelled":              "the search was cancelled before the platform answered",
		"reason.budget":                 "BesluitBron's request budget for this platform has no room now",
		"reason.rate_limited":           "the platform itself asked for fewer requests (HTTP 429)",
		"reason.platform_error":         "the platform answered with an error",
		"reason.unexpected_answer":      "the platform answered in an unexpected form",
		"reason.unreachable":            "the platform could not be reached",
		"status.upstream_errors":        "%d error answers from the platform in the last hour",
		"status.store":                  "Cache and budgets",
		"status.store.shared":           "shared with BesluitBron's other instances (through Redis)",
		"status.store.degraded":         "not shared for now: Redis is unreachable, so this instance works alone, with its own cache and a conservative share of each budget",
		"status.store.local":            "this instance's own (local)",

		"query.not_utf8":              "{field} contain characters that are not valid text: type them again",
		"query.words_too_long":        "the search words are too long ({value} bytes, at most {limit}): use fewer or shorter words",
		"query.words_control":         "the search words hold control characters: use plain words",
		"query.organisation_too_long": "the organisation is too long ({value} bytes, at most {limit}): give a name or key such as utrecht",
		"query.organisation_control":  "the organisation holds control characters: give a name or key such as utrecht",
		"query.nothing_to_search":     "give search words, an organisation, or both",
		"query.bad_date":              "{field} “{value}” is not a date: write it as YYYY-MM-DD, e.g. 2024-03-01",
		"query.dates_swapped":         "the date from ({value}) is after the date up to ({other}): swap them",
		"query.limit_out_of_range":    "the number of results per platform ({value}) must be 1 to {limit}",
		"query.limit_not_number":      "the number of results per platform (“{value}”) is not a number: use 1 to {limit}",
		"query.too_many_platforms":    "{value} platforms named, at most {limit}: choose them under Filters",
		"query.unknown_platform":      "there is no platform “{value}”: choose the platforms under Filters",
		"query.platform_twice":        "the platform “{value}” is named twice: name it once",
		"query.platform_not_offered":  "the platform “{value}” is not offered here: choose the platforms under Filters",
		"query.query_string_too_long": "the question is too long ({value} bytes, at most {limit})",
		"query.query_string_encoding": "the question's address is not valid URL encoding",
		"query.unknown_sort":          "there is no order “{value}”: choose relevance or date",
		"field.q":                     "the search words",
		"field.organisation":          "the organisation name",
		"field.from":                  "the date from",
		"field.to":                    "the date up to",

		"hit.platform":              "Platform",
		"hit.type":                  "Type",
		"hit.date":                  "Date",
		"hit.org":                   "Organisation",
		"hit.source":                "Source",
		"hit.read":                  "Read",
		"hit.also":                  "Also on",
		"hit.source.label":          "%s at the source",
		"reader.title":              "Document",
		"reader.back":               "Back to the results",
		"reader.source":             "View at the source",
		"reader.prev":               "Previous page",
		"reader.next":               "Next page",
		"reader.pages":              "Characters %d to %d of %d",
		"reader.pager":              "Pages",
		"reader.notext":             "This platform provides no text of this document; view it at the source.",
		"reader.error":              "The document could not be read: %s",
		"reader.details":            "Details",
		"reader.citation":           "Citation",
		"reader.uri":                "MCP resource",
		"hit.citation":              "Citation",
		"copy.button":               "Copy",
		"copy.citation.label":       "Copy the citation %s",
		"copy.uri.label":            "Copy the resource URI %s",
		"copy.done":                 "Copied",
		"copy.failed":               "Could not copy: select the text and copy it yourself",
		"status.title":              "Platform status",
		"status.intro":              "Per platform: reachable, the budget BesluitBron keeps, waiting times and the cache. This page refreshes itself.",
		"status.platform":           "Platform",
		"status.reachable":          "Reachable",
		"status.budget":             "Budget left",
		"status.waiting":            "Waiting",
		"status.wait":               "Wait p50 / p95",
		"status.entries":            "Cache entries",
		"status.ratio":              "Cache hits (last hour)",
		"status.yes":                "yes",
		"status.no":                 "no",
		"status.unknown":            "unknown",
		"status.nobudget":           "no own limit",
		"status.paused":             "paused",
		"status.version":            "Version",
		"status.updated":            "Updated",
		"status.refresh":            "Refresh now",
		"status.pause":              "Pause automatic refresh",
		"status.resume":             "Resume automatic refresh",
		"status.auto":               "Refreshes every %d seconds.",
		"status.load":               "%[2]s load status (%[1]s)",
		"status.caselaw":            "Index of the rulings (Rechtspraak)",
		"status.caselaw.decisions":  "%d rulings in BesluitBron's own index.",
		"status.caselaw.complete":   "Complete up to %s.",
		"status.caselaw.pages":      "Now harvesting: %d pages read, about %d to go.",
		"status.caselaw.error":      "The index is unavailable: %s",
		"status.replica":            "Own index of %s",
		"status.replica.records":    "%d %s in %s.",
		"status.replica.pages":      "Now harvesting: %d pages read.",
		"status.replica.failing":    "Harvesting waits: %s",
		"unit.records":              "records",
		"unit.decisions":            "decisions",
		"status.replica.sources":    "Per source (%d)",
		"status.replica.source":     "Source",
		"status.replica.held":       "In the index",
		"status.replica.lastchange": "Last change",
		"status.replica.caughtup":   "Caught up at",
		"status.replica.lag":        "%s ago",
		"status.replica.notyet":     "not yet",
		"status.load.summary":       "%d of %d sources fine (measured %s)",
		"status.load.none":          "not fetched yet",
		"status.nodata":             "no data",
		"status.caption":            "Platforms, reachability, budget and cache",
		"footer.api":                "For apps: GET /search with Accept: application/json. For assistants: the MCP connectors at /mcp/alles, /mcp/raad and /mcp/rijk.",
		"footer.privacy":            "No cookies, no trackers, no external files.",
		"error.title":               "Something went wrong",
		"error.bad":                 "This question is not right: %s",
		"error.notfound":            "This page does not exist.",
	},
}

// Text returns the message key in lang (Dutch when lang lacks it, the key
// itself when no language has it, so a missing text shows, not hides).
func Text(lang, key string) string {
	if s, ok := messages[lang][key]; ok {
		return s
	}
	if s, ok := messages[NL][key]; ok {
		return s
	}
	return key
}
