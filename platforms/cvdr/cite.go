package cvdr

import (
	"github.com/besluitbron/besluitbron/adapters"
)

// Citation is how a local regulation is cited: its title, the
// organisation that made it and its CVDR number with the version,
// "Beleidsregels verkeersveiligheid en parkeren, Kampen (CVDR100394/2)",
// then its publication when the regulation names one in Officiële
// Bekendmakingen (published, an identifier such as gmb-2016-146361; a
// publication elsewhere, such as a local weekly, is left out): ",
// Gmb. 2016, 146361". A missing organisation is left out; a regulation
// without a title or a valid identifier is cited by nothing.
func Citation(title, org, id, published string) string {
	title, org = adapters.Squash(title), adapters.Squash(org)
	p, err := ParseID(id)
	if title == "" || err != nil {
		return ""
	}
	c := title
	if org != "" {
		c += ", " + org
	}
	c += " (CVDR" + p.Number + "/" + p.Version + ")"
	if pub := adapters.PublicationCitation(published); pub != "" {
		c += ", " + pub
	}
	return c
}

// citation cites d by its own fields and its published_as reference.
func citation(d adapters.Document) string {
	published := ""
	for _, r := range d.References {
		if r.Relation == adapters.RelPublishedAs {
			published = r.ID
			break
		}
	}
	return Citation(d.Title, d.Source, d.ID, published)
}
