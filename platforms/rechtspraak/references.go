package rechtspraak

import (
	"encoding/xml"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/bwb"
	"github.com/besluitbron/besluitbron/platforms/cvdr"
)

// references are the laws and local regulations a ruling's metadata
// cites (dcterms:references with a bwb:resourceIdentifier such as
// 1.0:v:BWB:BWBR0002320&artikel=30f&g=2013-07-03, or a
// cvdr:resourceIdentifier such as CVDR:267366_1; fixtures/rechtspraak's
// content.xml), as the bwb and cvdr fetches take them, each once. A
// document whose metadata does not read has none.
func references(body []byte) []adapters.Reference {
	var raw struct {
		Descriptions []struct {
			References []struct {
				Label string     `xml:",chardata"`
				Attrs []xml.Attr `xml:",any,attr"`
			} `xml:"references"`
		} `xml:"RDF>Description"`
	}
	if decode(body, &raw) != nil {
		return nil
	}
	var out []adapters.Reference
	seen := map[adapters.Reference]bool{}
	add := func(r adapters.Reference) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, d := range raw.Descriptions {
		for _, ref := range d.References {
			label := adapters.Cut(adapters.Squash(ref.Label), 200)
			for _, a := range ref.Attrs {
				if a.Name.Local != "resourceIdentifier" {
					continue
				}
				if id, art, date, ok := bwb.ParseReference(a.Value); ok {
					add(adapters.Reference{Platform: platforms.BWB, ID: id, Article: art, Date: date, Relation: adapters.RelCites, Label: label})
				} else if id, ok := cvdr.ParseReference(a.Value); ok {
					add(adapters.Reference{Platform: platforms.CVDR, ID: id, Relation: adapters.RelCites, Label: label})
				}
			}
		}
	}
	return out
}
