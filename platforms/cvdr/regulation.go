package cvdr

import (
	"encoding/xml"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/koopsru"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/bwb"
	"github.com/besluitbron/besluitbron/platforms/ob"
)

// meta is a regulation's metadata: the same <meta> heads the regulation's
// XML (fixtures/cvdr) and its SRU record.
type meta struct {
	Kern struct {
		Identifier string `xml:"identifier"`
		Title      string `xml:"title"`
		Type       string `xml:"type"`
		Creator    struct {
			Name   string `xml:",chardata"`
			Scheme string `xml:"scheme,attr"`
		} `xml:"creator"`
		Modified string `xml:"modified"`
	} `xml:"owmskern"`
	Mantel struct {
		IsFormatOf struct {
			Label string `xml:",chardata"`
			URI   string `xml:"resourceIdentifier,attr"`
		} `xml:"isFormatOf"`
		Sources []struct {
			Label string `xml:",chardata"`
			URI   string `xml:"resourceIdentifier,attr"`
		} `xml:"source"`
		RatifiedBy string `xml:"isRatifiedBy"`
		Subject    string `xml:"subject"`
		Issued     string `xml:"issued"`
	} `xml:"owmsmantel"`
	IPM struct {
		From    string `xml:"inwerkingtredingDatum"`
		Until   string `xml:"uitwerkingtredingDatum"`
		Betreft string `xml:"betreft"`
	} `xml:"cvdripm"`
}

// InForce tells whether the regulation version was in force on date: from
// its inwerkingtredingDatum on, and before its uitwerkingtredingDatum
// (the day its successor takes over: 112779_1 ends on 2012-04-25, the
// day the regulation that withdrew it is dated).
func (m meta) InForce(date string) bool {
	from, until := strings.TrimSpace(m.IPM.From), strings.TrimSpace(m.IPM.Until)
	return from != "" && from <= date && (until == "" || date < until)
}

// document is m as a document, with the references it names.
func (m meta) document() (adapters.Document, error) {
	k := m.Kern
	id, err := ParseID(k.Identifier)
	if err != nil {
		return adapters.Document{}, fmt.Errorf("CVDR regulation has no identifier it can be read back by: %v", err)
	}
	d := adapters.Document{ID: strings.TrimSpace(k.Identifier), Type: adapters.Squash(k.Type), Title: adapters.Cut(adapters.Squash(k.Title), 500),
		Date: strings.TrimSpace(m.IPM.From), Source: adapters.Squash(k.Creator.Name), URL: PageURL(id), Meta: map[string]string{}}
	set := func(key, v string) {
		if v = adapters.Cut(adapters.Squash(v), 300); v != "" {
			d.Meta[key] = v
		}
	}
	_, orgType, _ := strings.Cut(k.Creator.Scheme, ":") // overheid:Gemeente
	set("organisation_type", orgType)
	set("in_force_from", m.IPM.From)
	set("in_force_until", m.IPM.Until)
	set("issued", m.Mantel.Issued)
	set("modified", k.Modified)
	set("ratified_by", m.Mantel.RatifiedBy)
	set("subject", m.Mantel.Subject)
	set("concerns", m.IPM.Betreft)
	set("published_in", m.Mantel.IsFormatOf.Label)
	d.References = m.references()
	d.Citation = citation(d)
	return d, nil
}

// references are the laws and regulations the regulation rests on
// (dcterms:source) and its own publication (dcterms:isFormatOf), each
// as the fetch of its platform takes it; sources that name neither a
// law nor a regulation are left out.
func (m meta) references() []adapters.Reference {
	var out []adapters.Reference
	for _, s := range m.Mantel.Sources {
		label := adapters.Cut(adapters.Squash(s.Label), 200)
		if id, art, date, ok := bwb.ParseReference(s.URI); ok {
			out = append(out, adapters.Reference{Platform: platforms.BWB, ID: id, Article: art, Date: date, Relation: adapters.RelRestsOn, Label: label})
		} else if id, ok := ParseReference(s.URI); ok {
			out = append(out, adapters.Reference{Platform: platforms.CVDR, ID: id, Relation: adapters.RelRestsOn, Label: label})
		}
	}
	f := m.Mantel.IsFormatOf
	for _, c := range []string{strings.TrimSpace(f.Label), publicationOf(f.URI)} {
		if ob.IsDatedID(c) {
			out = append(out, adapters.Reference{Platform: platforms.OB, ID: c, Relation: adapters.RelPublishedAs, Label: c})
			break
		}
	}
	return out
}

// publicationOf is the last path segment of a publication's URL
// (https://zoek.officielebekendmakingen.nl/gmb-2016-146361), without
// an extension.
func publicationOf(uri string) string {
	u, err := url.Parse(strings.TrimSpace(uri))
	if err != nil || u.Path == "" {
		return ""
	}
	return strings.TrimSuffix(path.Base(u.Path), path.Ext(u.Path))
}

// blocks end a line in a regulation's text.
var blocks = map[string]bool{"al": true, "kop": true, "artikel": true, "lid": true, "li": true, "intitule": true,
	"hoofdstuk": true, "paragraaf": true, "afdeling": true, "row": true, "tussenkop": true, "considerans": true,
	"aanhef": true, "preambule": true, "afkondiging": true, "slotformulering": true, "ondertekening": true,
	"structuurtekst": true, "bijlage": true, "toelichting": true, "title": true}

// ParseRegulation parses a regulation's XML: root <cvdr>, <meta> with
// owmskern, owmsmantel and cvdripm, then <body> with its text.
func ParseRegulation(body []byte) (adapters.Document, error) {
	var raw struct {
		XMLName xml.Name
		Meta    meta `xml:"meta"`
	}
	if err := koopsru.Decode(body, &raw); err != nil {
		return adapters.Document{}, fmt.Errorf("CVDR regulation is not the expected XML: %v", err)
	}
	if raw.XMLName.Local != "cvdr" {
		return adapters.Document{}, fmt.Errorf("CVDR regulation has root <%s>, expected <cvdr>", adapters.Cut(raw.XMLName.Local, 60))
	}
	d, err := raw.Meta.document()
	if err != nil {
		return adapters.Document{}, err
	}
	if d.Text, err = adapters.XMLText(body, []string{"body"}, blocks); err != nil {
		return adapters.Document{}, fmt.Errorf("CVDR regulation is not well-formed XML: %v", err)
	}
	return d, nil
}
