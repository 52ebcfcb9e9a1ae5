package bwb

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
)

// The laws' part in a dossier's timeline (issue 37, point 3;
// adapters.TimelineSource): the version of a law that took effect from the
// bill, read backwards from the law's own data. A toestand's brondata
// names, for each change, the publication that made it (oorspronkelijk)
// and the one that set it in force (inwerkingtreding, with its
// inwerkingtreding.datum); a Staatsblad publication there may carry a
// <dossierref dossier="33581">, the Kamerstuk dossier it came from (a
// public copy of BWB brondata; the platforms reference, section 12).
//
// No documented search goes forward, from a Staatsblad publication or a
// dossier to the laws it changed: KOOP's SRU for the BWB searches titles
// and regulation metadata. So the law is the caller's to name (law: a
// BWB id, e.g. from bwb_search), and its brondata is read for the
// Staatsblad publications the earlier stage found and for the dossier.
// Without a law the link is reported missing; it is never matched by
// title.

// timelineSource is the laws' part in a dossier's way (Surface.Timeline).
var timelineSource = &adapters.TimelineSource{
	Stage:    adapters.StageLaw,
	Check:    checkTimeline,
	Read:     readTimeline,
	What:     `From the laws (bwb), when law names one (a BWB id such as BWBR0045754, e.g. from bwb_search): the version that took effect from the dossier, with its in-force date, found in the law's brondata, which names the Staatsblad publication (and may name the dossier) of each change; no search goes from a publication to the laws it changed, so without law this link is reported missing, never matched by title.`,
	Requests: 3,
	Cost:     "bwb with law two (the law's manifest and its newest version), a third when the newest version no longer names the publication, through KOOP's budget of " + tableRow.Budget.Allowance() + "; versions are cached for months",
}

// checkTimeline: a law given is a BWB id.
func checkTimeline(q adapters.TimelineQuery) (bool, error) {
	if strings.TrimSpace(q.Law) == "" {
		return false, nil
	}
	if _, err := ValidID(q.Law); err != nil {
		return true, fmt.Errorf("law: %v", err)
	}
	return true, nil
}

// Source is one brondata entry: the publications of a change and the day
// it came in force.
type Source struct {
	Made    []SourcePublication // oorspronkelijk
	InForce []SourcePublication // inwerkingtreding
	Date    string              // inwerkingtreding.datum, "" when not given
}

// SourcePublication is a publication of a brondata entry and the dossiers
// its dossierref elements name.
type SourcePublication struct {
	Publication
	Dossiers []string
}

// maxSources bounds the brondata entries read from one toestand (a big
// code has one per part; a few thousand distinct ones at most).
const maxSources = 20000

// BrondataSources are the distinct brondata entries of t, historical ones
// (historische-brondata) included, in document order.
func (t *Toestand) BrondataSources() []Source {
	var out []Source
	seen := map[string]bool{}
	t.law.walk(func(n *node) bool {
		if n.name != "brondata" || len(out) >= maxSources {
			return len(out) < maxSources
		}
		s := Source{}
		var key strings.Builder
		for _, it := range n.items {
			e := it.el
			if e == nil {
				continue
			}
			var list *[]SourcePublication
			switch e.name {
			case "oorspronkelijk":
				list = &s.Made
			case "inwerkingtreding":
				list = &s.InForce
				if d := e.child("inwerkingtreding.datum"); d != nil && dateRE.MatchString(d.attr("isodatum")) {
					s.Date = d.attr("isodatum")
				}
			default:
				continue
			}
			for _, pi := range e.items {
				if pi.el == nil || pi.el.name != "publicatie" {
					continue
				}
				p, ok := publication(pi.el)
				if !ok {
					continue
				}
				sp := SourcePublication{Publication: p}
				for _, di := range pi.el.items {
					if di.el != nil && di.el.name == "dossierref" {
						ref := strings.TrimSpace(di.el.attr("dossier"))
						if ref == "" {
							ref = di.el.plain()
						}
						if ref != "" && len(ref) <= 40 {
							sp.Dossiers = append(sp.Dossiers, ref)
						}
					}
				}
				*list = append(*list, sp)
				fmt.Fprintf(&key, "%s/%s/%v;", e.name, p.key(), sp.Dossiers)
			}
		}
		key.WriteString(s.Date)
		if (len(s.Made) > 0 || len(s.InForce) > 0) && !seen[key.String()] {
			seen[key.String()] = true
			out = append(out, s)
		}
		return false
	})
	return out
}

// dossierKey is a dossier as brondata or a user writes it, for
// comparison: "36200-VII", "36200 VII" and "36200-vii" are one.
func dossierKey(s string) string {
	return strings.ToUpper(strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '-' }), "-"))
}

// TimelineMatch is a brondata entry that names the dossier or one of the
// publications, and why.
type TimelineMatch struct {
	Source Source
	Why    []string
}

// MatchSources are the entries of sources that name one of the
// publications stb (OB identifiers, stb-2018-84) or dossier d.
func MatchSources(sources []Source, stb map[string]bool, d adapters.Dossier) []TimelineMatch {
	want := dossierKey(d.String())
	var out []TimelineMatch
	for _, s := range sources {
		var why []string
		for _, part := range []struct {
			role string
			pubs []SourcePublication
		}{{"made the change", s.Made}, {"set it in force", s.InForce}} {
			for _, p := range part.pubs {
				if p.OBID != "" && stb[strings.ToLower(p.OBID)] {
					why = append(why, p.Label+" ("+part.role+")")
				}
				for _, ref := range p.Dossiers {
					if dossierKey(ref) == want {
						why = append(why, "dossier "+ref+" (dossierref of "+p.Label+", which "+part.role+")")
					}
				}
			}
		}
		if len(why) > 0 {
			out = append(out, TimelineMatch{Source: s, Why: why})
		}
	}
	return out
}

// readTimeline reads the law q names for the version that took effect from
// q's dossier.
func readTimeline(ctx context.Context, env adapters.Env, q adapters.TimelineQuery) (adapters.TimelinePart, error) {
	part := adapters.TimelinePart{Provenance: "asked the Basiswettenbestand through the cache"}
	d := q.Dossier
	stb := map[string]bool{}
	var stbIDs []string
	earliest := ""
	for _, s := range q.Steps {
		if s.Platform == platforms.OB && s.Kind == adapters.StepPublication && s.ID != "" {
			stb[strings.ToLower(s.ID)] = true
			stbIDs = append(stbIDs, s.ID)
			if s.Date != "" && (earliest == "" || s.Date < earliest) {
				earliest = s.Date
			}
		}
	}
	named := "dossier " + d.String()
	if len(stbIDs) > 0 {
		named = strings.Join(stbIDs, ", ") + " or " + named
	}
	missing := func(why string) (adapters.TimelinePart, error) {
		part.Missing = append(part.Missing, adapters.TimelineGap{Platform: platforms.BWB, Link: "law version in force", Why: why})
		return part, nil
	}
	if strings.TrimSpace(q.Law) == "" {
		return missing("no search finds a law by the publication or dossier that changed it (the laws' search reads titles); give law (the BWB id of the law the bill changes or makes, e.g. from bwb_search) and its brondata is read for " + named)
	}
	id, err := ValidID(q.Law)
	if err != nil { // checkTimeline refused it before any request
		return part, &adapters.InvalidError{Err: err}
	}
	get := env.Bind(ctx, platforms.BWB)
	counted := func(r adapters.Request) ([]byte, error) {
		part.Requests++
		return get(r)
	}
	failed := func(what string, err error) (adapters.TimelinePart, error) {
		var pe *adapters.ParseError
		if errors.As(err, &pe) {
			return missing(fmt.Sprintf("%s of %s did not read: %s; nothing of it is used", what, id, adapters.Cut(err.Error(), 300)))
		}
		return missing(fmt.Sprintf("%s of %s could not be read: %s", what, id, q.Why(platforms.BWB, err)))
	}
	mr, _ := ManifestRequest(id)
	body, err := counted(mr)
	if adapters.KindOf(err) == adapters.KindNotFound {
		return missing("the Basiswettenbestand holds no regulation " + id + ": take the id from bwb_search")
	}
	if err != nil {
		return failed("the manifest", err)
	}
	m, err := adapters.Parsed(ParseManifest(body, id))
	if err != nil {
		return failed("the manifest", err)
	}
	// The newest version first: its brondata names every change still
	// in the text. Then, when that no longer names the publication, the
	// first version in force on or after the publication's day.
	tries := []Version{m.Versions[len(m.Versions)-1]}
	if earliest != "" {
		for _, v := range m.Versions {
			if v.From >= earliest {
				if v.Label != tries[0].Label {
					tries = append(tries, v)
				}
				break
			}
		}
	}
	var read []string
	for _, v := range tries {
		tr, err := ToestandRequest(id, v)
		if err != nil {
			return failed("version "+v.Label, &adapters.ParseError{Err: err})
		}
		b, err := counted(tr)
		if err != nil {
			return failed("version "+v.Label, err)
		}
		t, err := adapters.Parsed(ParseToestand(b))
		if err != nil {
			return failed("version "+v.Label, err)
		}
		if t.ID != id {
			return failed("version "+v.Label, &adapters.ParseError{Err: fmt.Errorf("it holds regulation %q", adapters.Cut(t.ID, 40))})
		}
		read = append(read, v.Label)
		matches := MatchSources(t.BrondataSources(), stb, d)
		if len(matches) == 0 {
			continue
		}
		seen := map[string]bool{}
		for _, mt := range matches {
			s, ok := lawStep(t, m, mt, v)
			if !ok || seen[s.InForce+"|"+s.LinkedBy] {
				continue
			}
			seen[s.InForce+"|"+s.LinkedBy] = true
			part.Steps = append(part.Steps, s)
		}
		if len(part.Steps) > 0 {
			return part, nil
		}
	}
	return missing(fmt.Sprintf("the brondata of %s (versions %s) names neither %s", id, strings.Join(read, ", "), named))
}

// lawStep is the step of the version that match mt set in force: the
// version whose first day is the entry's in-force date, else the one in
// force on that date; read is the version whose brondata was read.
func lawStep(t *Toestand, m Manifest, mt TimelineMatch, read Version) (adapters.TimelineStep, bool) {
	date := mt.Source.Date
	var v *Version
	for i := range m.Versions {
		if date != "" && m.Versions[i].From == date {
			v = &m.Versions[i]
		}
	}
	if v == nil && date != "" {
		if found, err := m.InForceOn(date); err == nil {
			v = &found
		}
	}
	why := "the brondata of " + t.ID + " (version " + read.Label + ") names " + strings.Join(mt.Why, " and ")
	if date == "" {
		why += "; it gives no in-force date"
	}
	s := adapters.TimelineStep{Kind: adapters.StepLawVersion, Platform: platforms.BWB, Title: adapters.Cut(t.Title, 300),
		ID: t.ID, InForce: date, Date: date, LinkedBy: why}
	if v == nil {
		// The change's day is known, but no version of the manifest
		// holds it: the law as a whole, without a version.
		s.Citation = Citation(t.name(), "", "", "")
		s.URI, s.SourceURL = ResourceURI(t.ID, "", ""), PageURL(t.ID, "")
		if date != "" {
			s.LinkedBy += "; no version of the manifest is in force on " + date
		}
		return s, true
	}
	s.Citation = Citation(t.name(), "", "", v.From)
	s.URI, s.SourceURL = ResourceURI(t.ID, v.From, ""), PageURL(t.ID, v.From)
	s.Result = "version " + v.Label + ", in force from " + v.From
	if v.Until != OpenEnd {
		s.Result += " to " + v.Until
	} else {
		s.Result += " until further notice"
	}
	return s, true
}
