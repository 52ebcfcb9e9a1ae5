package ob

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/koopsru"
	"github.com/besluitbron/besluitbron/platforms"
)

// Officiële Bekendmakingen' part in a dossier's timeline (issue 37,
// point 3; adapters.TimelineSource): the Staatsblad publications whose
// metadata names the dossier (overheidwetgeving:behandeldDossier, the
// CQL index w.behandeldDossier) and the Eerste Kamer's kamerstukken of
// it (w.dossiernummer, creator the Eerste Kamer), in one SRU search:
//
//	c.product-area==officielepublicaties and ((w.publicatienaam="Staatsblad" and w.behandeldDossier=="36410")
//	  or (w.publicatienaam="Kamerstuk" and w.dossiernummer=="36410" and dt.creator="Eerste Kamer"))
//	  sortBy dt.available/sort.ascending
//
// A record is taken only when its own metadata names the dossier: the
// search's answer is checked, never its titles read. A Staatsblad
// publication is the State's own record that the bill became law (the
// Staatsblad's metadata names the dossiers it came from: OVERHEIDop.
// behandeldDossier, as public crawlers of it read it); none is reported
// missing, never guessed.

// timelineRecords is the most records the search asks for: a bill has one
// Staatsblad publication (a few with corrections or an enactment decree)
// and the Eerste Kamer a few dozen papers at most.
const timelineRecords = 50

// timelineSource is Officiële Bekendmakingen' part in a dossier's way
// (Surface.Timeline).
var timelineSource = &adapters.TimelineSource{
	Stage:    adapters.StagePublication,
	Read:     readTimeline,
	What:     `From Officiële Bekendmakingen (ob): the Staatsblad publications whose metadata names the dossier (behandeldDossier), and the Eerste Kamer's kamerstukken of it; a dossier no Staatsblad publication names yet is reported missing.`,
	Requests: 1,
	Cost:     "ob one search, through KOOP's budget of " + tableRow.Budget.Allowance(),
}

// TimelineRequest is the search for the publications that name dossier d.
func TimelineRequest(d adapters.Dossier) adapters.Request {
	n := `"` + d.String() + `"`
	cql := `c.product-area==officielepublicaties and ((w.publicatienaam="Staatsblad" and w.behandeldDossier==` + n +
		`) or (w.publicatienaam="Kamerstuk" and w.dossiernummer==` + n + ` and dt.creator="Eerste Kamer")) sortBy dt.available/sort.ascending`
	q := url.Values{"operation": {"searchRetrieve"}, "version": {"2.0"}, "recordSchema": {"gzd"},
		"query": {cql}, "startRecord": {"1"}, "maximumRecords": {strconv.Itoa(timelineRecords)}}
	return adapters.Get(SRUPath, q)
}

// dateOnlyRE is a day as the metadata writes it.
var dateOnlyRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

// timelineRecord is what the timeline reads of a gzd record.
type timelineRecord struct {
	Meta struct {
		Kern struct {
			Identifier string `xml:"identifier"`
			Title      string `xml:"title"`
			Type       string `xml:"type"`
			Creator    string `xml:"creator"`
		} `xml:"owmskern"`
		Mantel struct {
			Available string `xml:"available"`
			Issued    string `xml:"issued"`
		} `xml:"owmsmantel"`
		TP struct {
			Publicatienaam string   `xml:"publicatienaam"`
			Dossiernummer  string   `xml:"dossiernummer"`
			Vergaderjaar   string   `xml:"vergaderjaar"`
			Behandeld      []string `xml:"behandeldDossier"`
		} `xml:"tpmeta"`
	} `xml:"recordData>gzd>originalData>meta"`
	PreferredURL string `xml:"recordData>gzd>enrichedData>preferredUrl"`
}

// TimelinePublication is a publication that names the dossier.
type TimelinePublication struct {
	ID, Title, Type, Creator, Date, Vergaderjaar string
	Staatsblad                                   bool // else an Eerste Kamer kamerstuk
	URL                                          string
	Named                                        string // how the metadata names the dossier
}

// ParseTimeline reads the answer to TimelineRequest(d): the publications
// whose own metadata names d, the records the search gave that name
// another dossier (left out), and the total the platform counted.
func ParseTimeline(body []byte, d adapters.Dossier) (pubs []TimelinePublication, others []string, total int, err error) {
	resp, err := koopsru.Parse[timelineRecord](body)
	if err != nil {
		return nil, nil, 0, err
	}
	want := dossierKey(d.String())
	for _, r := range resp.Records {
		m := r.Meta
		id := strings.TrimSpace(m.Kern.Identifier)
		if _, err := ValidID(id); err != nil {
			return nil, nil, 0, fmt.Errorf("SRU record has no valid identifier: %v", err)
		}
		p := TimelinePublication{ID: strings.ToLower(id), Title: adapters.Squash(m.Kern.Title), Type: adapters.Squash(m.Kern.Type),
			Creator: adapters.Squash(m.Kern.Creator), Date: strings.TrimSpace(m.Mantel.Available), Vergaderjaar: strings.TrimSpace(m.TP.Vergaderjaar),
			Staatsblad: strings.EqualFold(strings.TrimSpace(m.TP.Publicatienaam), "Staatsblad")}
		if p.Date == "" {
			p.Date = strings.TrimSpace(m.Mantel.Issued)
		}
		if !dateOnlyRE.MatchString(p.Date) {
			p.Date = ""
		}
		p.URL, _ = adapters.CheckLink(strings.TrimSpace(r.PreferredURL))
		switch {
		case p.Staatsblad:
			for _, b := range m.TP.Behandeld {
				if dossierKey(b) == want {
					p.Named = "behandeldDossier " + strings.TrimSpace(b)
				}
			}
		case adapters.Chamber(p.Creator) == "I" && dossierKey(m.TP.Dossiernummer) == want:
			p.Named = "dossiernummer " + strings.TrimSpace(m.TP.Dossiernummer)
		}
		if p.Named == "" {
			others = append(others, p.ID)
			continue
		}
		pubs = append(pubs, p)
	}
	return pubs, others, resp.Total, nil
}

// dossierKey is a dossier as metadata writes it, for comparison: 36200-VII,
// "36200 VII" and "36200-vii" are one dossier.
func dossierKey(s string) string {
	return strings.ToUpper(strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '-' }), "-"))
}

// readTimeline finds the publications that name q's dossier.
func readTimeline(ctx context.Context, env adapters.Env, q adapters.TimelineQuery) (adapters.TimelinePart, error) {
	part := adapters.TimelinePart{Provenance: "asked Officiële Bekendmakingen through the cache"}
	d := q.Dossier
	gap := func(why string) adapters.TimelinePart {
		part.Missing = append(part.Missing, adapters.TimelineGap{Platform: platforms.OB, Link: "Staatsblad publication",
			Why: why}, adapters.TimelineGap{Platform: platforms.OB, Link: "Eerste Kamer", Why: why})
		return part
	}
	part.Requests++
	body, err := env.Get(ctx, platforms.OB, TimelineRequest(d))
	if err != nil {
		return gap("the search for the publications that name dossier " + d.String() + " failed: " + q.Why(platforms.OB, err)), nil
	}
	pubs, others, total, err := ParseTimeline(body, d)
	if err != nil {
		return gap("Officiële Bekendmakingen answered the search for the publications that name dossier " + d.String() + ", but not in the expected form (" + adapters.Cut(err.Error(), 300) + "); nothing of it is used"), nil
	}
	stb, ek := 0, 0
	for _, p := range pubs {
		s := adapters.TimelineStep{Date: p.Date, Platform: platforms.OB, Title: adapters.Cut(p.Title, 300), ID: p.ID,
			Citation: Citation(p.ID, p.Creator, p.Vergaderjaar), URI: publicationURI(p.ID), SourceURL: p.URL}
		if p.Staatsblad {
			stb++
			s.Kind = adapters.StepPublication
			s.LinkedBy = "its metadata names dossier " + d.String() + " (" + p.Named + ")"
		} else {
			ek++
			s.Kind, s.Chamber = adapters.StepDocument, "Eerste Kamer"
			s.LinkedBy = "its metadata names dossier " + d.String() + " (" + p.Named + "), and its creator the Eerste Kamer"
		}
		part.Steps = append(part.Steps, s)
	}
	if len(others) > 0 {
		part.Notes = append(part.Notes, fmt.Sprintf("Officiële Bekendmakingen' search also gave %s, whose metadata names another dossier; left out.", strings.Join(others, ", ")))
	}
	if total > len(pubs)+len(others) {
		part.Notes = append(part.Notes, fmt.Sprintf("Officiële Bekendmakingen counts %d publications for the search; the first %d were read.", total, len(pubs)+len(others)))
	}
	if stb == 0 {
		part.Missing = append(part.Missing, adapters.TimelineGap{Platform: platforms.OB, Link: "Staatsblad publication",
			Why: "no Staatsblad publication's metadata names dossier " + d.String() + " (behandeldDossier): the bill may not have become law (yet), or the dossier holds no bill"})
	}
	if ek == 0 {
		part.Notes = append(part.Notes, "No Eerste Kamer kamerstuk of dossier "+d.String()+" is in Officiële Bekendmakingen: the Eerste Kamer has not (yet) had it, or the dossier is not a bill.")
	}
	return part, nil
}

// publicationURI is a publication's resource URI (surface.go's template).
func publicationURI(id string) string {
	u, _ := adapters.ExpandURI("besluitbron://ob/{id}", map[string]string{"id": id})
	return u
}
