package emulator

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Staatsblad publications of laws that name the Kamerstuk dossier they
// came from, for a dossier's timeline (Config.Laws). The real Staatsblad
// record carries the dossier in its tpmeta as
// overheidwetgeving:behandeldDossier (OVERHEIDop.behandeldDossier in the
// publication's metadata.xml, as public crawlers of the Staatsblad read
// it), searchable as the CQL index w.behandeldDossier (a public mapping
// of KOOP's tpmeta elements to their SRU indexes); docs/emulators.md. The
// generated catalogue's own Staatsblad publications name none: which
// of its dossiers became law is not the emulator's to make up, so a
// chain test names its laws.

// Law is a Staatsblad publication of a law and the dossier it names.
type Law struct {
	Year    int    // its jaargang: 2018
	Number  int    // its number in the year: 84
	Dossier string // the dossier its metadata names: 34775 (or 36200-VII)
	Title   string // "Wet van 9 maart 2018, houdende ..."
	Issued  string // the day it was issued, YYYY-MM-DD (dcterms:available)
	Signed  string // the day it was signed, YYYY-MM-DD (datumOndertekening); Issued when empty
	Creator string // the ministry; "Ministerie van Binnenlandse Zaken en Koninkrijksrelaties" when empty
}

// ID is the publication's identifier, stb-2018-84.
func (l Law) ID() string { return fmt.Sprintf("stb-%d-%d", l.Year, l.Number) }

// lawsKey tells apart the catalogues of different Config.Laws.
func lawsKey(laws []Law) string {
	var sb strings.Builder
	for _, l := range laws {
		fmt.Fprintf(&sb, "%#v;", l)
	}
	return sb.String()
}

// behandeld is the index w.behandeldDossier: a kamerstuk's dossier, a
// law's dossier.
func behandeld(p *pub) string {
	if p.Kind.code == "kst" {
		return p.Dossier
	}
	return p.Behandeld
}

// withLaws adds laws to c as Staatsblad publications of type Wet, each in
// place of a generated one of the same identifier.
func withLaws(c *catalog, laws []Law) *catalog {
	if len(laws) == 0 {
		return c
	}
	var stb *kind
	for i := range kinds {
		if kinds[i].code == "stb" {
			stb = &kinds[i]
		}
	}
	for _, l := range laws {
		issued, err := time.Parse(time.DateOnly, l.Issued)
		if err != nil || l.Year <= 0 || l.Number <= 0 {
			panic(fmt.Sprintf("ob emulator: law %+v needs a year, a number and an issue day", l))
		}
		p := &pub{Kind: stb, Year: l.Year, Number: strconv.Itoa(l.Number), ID: l.ID(), Title: l.Title,
			Type: "Wet", TypeScheme: "OVERHEIDop.Staatsblad", Creator: l.Creator, Scheme: "OVERHEID.Ministerie", OrgType: "ministerie",
			Subject: "Bestuur", Abstract: l.Title, Status: "Opgemaakt", Issued: l.Issued, Date: l.Signed, Modified: l.Issued,
			Stamp: amsterdam(issued.Add(7 * time.Hour)), Behandeld: l.Dossier}
		if p.Creator == "" {
			p.Creator = "Ministerie van Binnenlandse Zaken en Koninkrijksrelaties"
		}
		if p.Date == "" {
			p.Date = l.Issued
		}
		if old := c.byID[p.ID]; old != nil {
			delete(c.byID, p.ID)
			for i, q := range c.pubs {
				if q == old {
					c.pubs = append(c.pubs[:i], c.pubs[i+1:]...)
					break
				}
			}
		}
		c.add(p)
	}
	sort.SliceStable(c.pubs, func(a, b int) bool {
		if c.pubs[a].Issued != c.pubs[b].Issued {
			return c.pubs[a].Issued < c.pubs[b].Issued
		}
		return c.pubs[a].ID < c.pubs[b].ID
	})
	return c
}
