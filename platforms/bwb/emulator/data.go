package emulator

import (
	"bytes"
	"embed"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// data holds byte copies of the real toestanden of testdata/fixtures/bwb
// (a test keeps them equal): the emulator serves nothing else.
//
//go:embed data/*.xml
var data embed.FS

// regulation is one regulation the emulator holds, its versions oldest
// first.
type regulation struct {
	id, title, kind string
	versions        []*version
}

// version is one toestand: its manifest label, its period in force and
// its XML.
type version struct {
	label, from, until, item string
	// modified is the day KOOP's BWB last changed its record
	// (dcterms.modified): the replica harvests by it.
	modified string
	body     []byte
	// render makes the text of a generated version (generate.go), which is
	// not kept: 22,000 of them would hold hundreds of megabytes.
	render func() []byte
}

// text is the version's XML.
func (v *version) text() []byte {
	if v.body != nil {
		return v.body
	}
	return v.render()
}

// openEnd is the einddatum of the version nothing replaced yet.
const openEnd = "9999-12-31"

// loadRegulations reads the embedded toestanden. Each real toestand is
// its regulation's newest version; the earlier versions are the same
// text as in force on each earlier date its parts name (their inwerking
// attributes): the parts that came in force later left out. The
// emulator does not restore older wordings it does not know, so an
// earlier version holds less, never other, text.
func loadRegulations() (map[string]*regulation, []string, error) {
	entries, err := data.ReadDir("data")
	if err != nil {
		return nil, nil, err
	}
	regs := map[string]*regulation{}
	var ids []string
	for _, e := range entries {
		body, err := data.ReadFile("data/" + e.Name())
		if err != nil {
			return nil, nil, err
		}
		reg, err := fromToestand(body)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", e.Name(), err)
		}
		regs[reg.id] = reg
		ids = append(ids, reg.id)
	}
	sort.Strings(ids)
	return regs, ids, nil
}

// head is what the emulator reads of a toestand.
type head struct {
	ID      string `xml:"bwb-id,attr"`
	InForce string `xml:"inwerkingtreding,attr"`
	Law     struct {
		Kind  string `xml:"soort,attr"`
		Title string `xml:"citeertitel"`
	} `xml:"wetgeving"`
}

func fromToestand(body []byte) (*regulation, error) {
	var h head
	if err := xml.Unmarshal(body, &h); err != nil {
		return nil, err
	}
	reg := &regulation{id: h.ID, title: strings.TrimSpace(h.Law.Title), kind: h.Law.Kind}
	dates, err := partDates(body, h.InForce)
	if err != nil {
		return nil, err
	}
	for _, d := range dates {
		b := body
		if d != h.InForce {
			if b, err = asOf(body, h.ID, h.InForce, d); err != nil {
				return nil, err
			}
		}
		// KOOP adds a version's record the day it is published; the
		// samples' manifest stamps it on the day it comes in force.
		reg.versions = append(reg.versions, &version{label: d + "_0", from: d, body: b, item: h.ID + "_" + d + "_0.xml", modified: d})
	}
	endVersions(reg)
	return reg, nil
}

// endVersions ends each version of reg the day before the next one
// comes in force; the last stays open.
func endVersions(reg *regulation) {
	for i, v := range reg.versions {
		v.until = openEnd
		if i+1 < len(reg.versions) {
			next, _ := time.Parse(time.DateOnly, reg.versions[i+1].from)
			v.until = next.AddDate(0, 0, -1).Format(time.DateOnly)
		}
	}
}

// partDates are the distinct inwerking dates of the toestand's parts up
// to its own date, and its own date, ascending.
func partDates(body []byte, own string) ([]string, error) {
	seen := map[string]bool{own: true}
	dec := xml.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if se, ok := tok.(xml.StartElement); ok {
			for _, a := range se.Attr {
				if a.Name.Local == "inwerking" && len(a.Value) == 10 && a.Value <= own {
					seen[a.Value] = true
				}
			}
		}
	}
	var out []string
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out, nil
}

// asOf is the toestand as in force on date: each element whose inwerking
// is later cut out of the bytes, the root's dates set to date.
func asOf(body []byte, id, own, date string) ([]byte, error) {
	type span struct{ from, to int64 }
	var cuts []span
	var open []int64 // start offsets of the elements being cut, -1 for kept ones
	dec := xml.NewDecoder(bytes.NewReader(body))
	for {
		at := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			start := int64(-1)
			for _, a := range t.Attr {
				if a.Name.Local == "inwerking" && a.Value > date {
					start = at
				}
			}
			open = append(open, start)
		case xml.EndElement:
			start := open[len(open)-1]
			open = open[:len(open)-1]
			inCut := false
			for _, s := range open {
				inCut = inCut || s >= 0
			}
			if start >= 0 && !inCut {
				cuts = append(cuts, span{start, dec.InputOffset()})
			}
		}
	}
	var out bytes.Buffer
	last := int64(0)
	for _, c := range cuts {
		out.Write(body[last:c.from])
		last = c.to
	}
	out.Write(body[last:])
	s := out.String()
	s = strings.Replace(s, ` inwerkingtreding="`+own+`"`, ` inwerkingtreding="`+date+`"`, 1)
	s = strings.Replace(s, "/id/"+id+"/"+own+"/", "/id/"+id+"/"+date+"/", 1)
	return []byte(s), nil
}
