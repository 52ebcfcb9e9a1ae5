package bwb

import (
	"fmt"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/ob"
)

// Toestand is one version of a regulation as the repository holds it:
// <toestand bwb-id inwerkingtreding> around <wetgeving soort>, its title,
// its parts (chapters, articles, appendices) and, on the regulation and
// on each part, the brondata naming the publications they came from.
type Toestand struct {
	ID      string // bwb-id
	InForce string // the version's first day in force (inwerkingtreding)
	Kind    string // wetgeving's soort: wet, AMvB, ministeriele-regeling, ...
	Title   string // the citeertitel, else the intitule
	// Citeertitel is the citeertitel, "" when the regulation has none.
	Citeertitel string
	law         *node // <wetgeving>
	pubs        []Publication
	pubsSet     bool
}

// ParseToestand parses a toestand's XML. Its root must be <toestand>
// with a <wetgeving> in it.
func ParseToestand(body []byte) (*Toestand, error) {
	root, err := parseTree(body)
	if err != nil {
		return nil, fmt.Errorf("BWB toestand is not well-formed XML: %v", err)
	}
	if root.name != "toestand" {
		return nil, fmt.Errorf("BWB toestand has root <%s>, expected <toestand>", adapters.Cut(root.name, 60))
	}
	law := root.child("wetgeving")
	if law == nil {
		return nil, fmt.Errorf("BWB toestand of %q holds no <wetgeving>", adapters.Cut(root.attr("bwb-id"), 40))
	}
	t := &Toestand{ID: strings.TrimSpace(root.attr("bwb-id")), InForce: strings.TrimSpace(root.attr("inwerkingtreding")),
		Kind: strings.TrimSpace(law.attr("soort")), law: law}
	for _, name := range []string{"citeertitel", "intitule"} {
		if c := law.child(name); c != nil && t.Title == "" {
			t.Title = adapters.Cut(c.textOnly(), 500)
		}
	}
	if c := law.child("citeertitel"); c != nil {
		t.Citeertitel = adapters.Cut(c.textOnly(), 500)
	}
	if t.Title == "" {
		t.Title = t.ID
	}
	return t, nil
}

// textOnly is n's text without its metadata, on one line.
func (n *node) textOnly() string {
	return adapters.Squash(strings.ReplaceAll(n.text(), "\n", " "))
}

// Text is the whole version's text: the title, the preamble, every
// part, the closing; the publications' metadata left out.
func (t *Toestand) Text() string { return t.law.text() }

// Publication is a Staatsblad, Staatscourant or other publication a
// toestand's brondata names.
type Publication struct {
	Label  string `json:"label" jsonschema_description:"The publication as lawyers cite it, e.g. Stb. 2018, 84 or Stcrt. 1996, 239."`
	OBID   string `json:"ob_id,omitempty" jsonschema_description:"Its identifier at Officiële Bekendmakingen, as ob_fetch takes it (stb-2018-84); absent for series it does not hold."`
	Issued string `json:"issued,omitempty" jsonschema_description:"Day it was issued, YYYY-MM-DD."`
	Effect string `json:"effect,omitempty" jsonschema_description:"What it did to the regulation: nieuwe-regeling (made it), wijziging (changed it), ..."`
	series string
	year   string
	number string
}

// obSeries are the series Officiële Bekendmakingen holds, by their
// brondata soort, with the prefix of its identifiers (stb-2018-84).
var obSeries = map[string]string{"Stb": "stb", "Stcrt": "stcrt", "Trb": "trb"}

func (p Publication) key() string { return p.series + "." + p.year + "-" + p.number }

// publication reads one <publicatie> of brondata.
func publication(n *node) (Publication, bool) {
	p := Publication{series: strings.TrimSpace(n.attr("soort")), Effect: strings.TrimSpace(n.attr("effect"))}
	if c := n.child("publicatiejaar"); c != nil {
		p.year = c.plain()
	}
	if c := n.child("publicatienr"); c != nil {
		p.number = c.plain()
	}
	if c := n.child("uitgiftedatum"); c != nil && dateRE.MatchString(c.attr("isodatum")) {
		p.Issued = c.attr("isodatum")
	}
	if p.series == "" || p.year == "" || p.number == "" || len(p.series)+len(p.year)+len(p.number) > 80 {
		return Publication{}, false
	}
	p.Label = p.series + ". " + p.year + ", " + p.number
	// The repository's own identifier of the publication where it gives
	// one (stcrt-2006-73-p10-SC74601, the form of older Staatscourant
	// issues), else the series' form.
	if u := strings.TrimSpace(n.attr("urlidentifier")); ob.IsDatedID(u) {
		p.OBID = u
	} else if prefix, ok := obSeries[p.series]; ok && isDigits(p.year) && isDigits(p.number) {
		p.OBID = prefix + "-" + p.year + "-" + p.number
	}
	return p, true
}

// Publications are the publications t's brondata names, the one that
// made the regulation first, each once, in the order they appear.
func (t *Toestand) Publications() []Publication {
	if !t.pubsSet {
		t.pubs, t.pubsSet = publications(t.law), true
	}
	return t.pubs
}

func publications(n *node) []Publication {
	var out []Publication
	seen := map[string]bool{}
	n.walk(func(e *node) bool {
		if e.name != "publicatie" {
			return true
		}
		if p, ok := publication(e); ok && !seen[p.key()] {
			seen[p.key()] = true
			out = append(out, p)
		}
		return false
	})
	return out
}

// SourcesOf are the publications n (the regulation, or one part) came
// from in the version that starts on date: those named in the bron of
// the parts that came in force on that date, else of those that came in
// force last before it (a version may start without a change of its own
// text, by a correction or an appendix elsewhere).
func sourcesOf(n *node, date string, all []Publication) []Publication {
	latest := ""
	n.walk(func(e *node) bool {
		if d := e.attr("inwerking"); dateRE.MatchString(d) && d <= date && d > latest {
			latest = d
		}
		return !silent[e.name]
	})
	var keys []string
	n.walk(func(e *node) bool {
		if e.attr("inwerking") == latest && e.attr("bron") != "" {
			keys = append(keys, strings.TrimSpace(e.attr("bron")))
		}
		return !silent[e.name]
	})
	var out []Publication
	seen := map[string]bool{}
	for _, k := range keys {
		for _, p := range all {
			if p.key() == k && !seen[k] {
				seen[k] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// Sources are the publications this version came from (see sourcesOf).
func (t *Toestand) Sources() []Publication {
	return sourcesOf(t.law, t.InForce, t.Publications())
}

// References are the publications as references an ob_fetch reads: the
// one that made the regulation, then those that changed it.
func References(pubs []Publication) []adapters.Reference {
	var out []adapters.Reference
	for _, p := range pubs {
		if p.OBID == "" {
			continue
		}
		rel := adapters.RelAmendedBy
		if p.Effect == "nieuwe-regeling" {
			rel = adapters.RelEnactedBy
		}
		out = append(out, adapters.Reference{Platform: platforms.OB, ID: p.OBID, Date: p.Issued, Relation: rel, Label: p.Label})
	}
	return out
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
