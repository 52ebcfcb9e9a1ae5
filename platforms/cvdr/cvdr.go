// Package cvdr is the local regulations of lokaleregelgeving.overheid.nl,
// KOOP's Centrale Voorziening Decentrale Regelgeving (CVDR): the
// regulations of municipalities, provinces and water boards, found
// through KOOP's SRU search (x-connection=cvdr) and read from its
// repository as XML, with the laws they rest on and their own
// publication in the Gemeenteblad (or Provinciaal blad, Waterschapsblad)
// as references the bwb, cvdr and ob fetches read.
//
// The platform route serves the repository's paths (/cvdr/...) and the
// search at /sru/Search (platforms: CVDR's Mounts).
package cvdr

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
)

// Paths below the platform's route: KOOP's SRU search, and the
// repository's folder of regulations.
const (
	SearchPath = "/sru/Search"
	RepoPrefix = "/cvdr/"
)

// idRE is a CVDR identifier: one version of a regulation, its number and
// the version's, CVDR100394_2; older regulations' metadata write it
// without the prefix (112779_1, fixtures/cvdr).
var idRE = regexp.MustCompile(`^(?i:CVDR)?([0-9]{1,9})_([0-9]{1,4})$`)

// pageIDRE is the same version as its public page's address and its
// citation write it (PageURL, Citation): CVDR100394/2.
var pageIDRE = regexp.MustCompile(`^(?i:CVDR)([0-9]{1,9})/([0-9]{1,4})$`)

// workRE is a regulation without its version (CVDR100394).
var workRE = regexp.MustCompile(`^(?i:CVDR)?[0-9]{1,9}$`)

// ID is one version of a regulation.
type ID struct {
	Number, Version string
}

// String is the identifier in the repository's form, CVDR100394_2.
func (id ID) String() string { return "CVDR" + id.Number + "_" + id.Version }

// ParseID checks a CVDR identifier (CVDR100394_2, or 112779_1 as older
// metadata write it, or CVDR100394/2 as the version's page and citation
// write it).
func ParseID(s string) (ID, error) {
	s = strings.TrimSpace(s)
	m := idRE.FindStringSubmatch(s)
	if m == nil {
		// The page's form is the one slash taken: it is read into its
		// two numbers, and only they reach a request.
		m = pageIDRE.FindStringSubmatch(s)
	}
	if m == nil {
		if err := adapters.CheckIDChars(s); err != nil {
			return ID{}, err
		}
	}
	if m == nil {
		if workRE.MatchString(s) {
			return ID{}, fmt.Errorf("%q names a regulation but not its version: add it, as in CVDR100394_2 (cvdr_search gives the version in force)", s)
		}
		return ID{}, fmt.Errorf("%q is not a CVDR identifier: it looks like CVDR100394_2, a regulation's number and version (take it from cvdr_search or a reference)", adapters.Cut(s, 60))
	}
	id := ID{Number: strings.TrimLeft(m[1], "0"), Version: strings.TrimLeft(m[2], "0")}
	if id.Number == "" || id.Version == "" {
		return ID{}, fmt.Errorf("%q is not a CVDR identifier: its number and version start at 1", s)
	}
	return id, nil
}

// DocumentRequest asks the repository for one version's XML, at
// /cvdr/CVDR<n>/<v>/xml/CVDR<n>_<v>.xml: the address the SRU records'
// publicatieurl_xml gives (docs/emulators.md names the source).
func DocumentRequest(id string) (adapters.Request, error) {
	p, err := ParseID(id)
	if err != nil {
		return adapters.Request{}, err
	}
	return adapters.Get(RepoPrefix+"CVDR"+p.Number+"/"+p.Version+"/xml/"+p.String()+".xml", nil), nil
}

// PageURL is the version's public page.
func PageURL(id ID) string {
	return "https://lokaleregelgeving.overheid.nl/CVDR" + id.Number + "/" + id.Version
}

// refRE finds a CVDR identifier in a reference as KOOP's and the
// Rechtspraak's metadata write it: 1.1:CVDR77862_1, CVDR://90740_1,
// CVDR:267366_1.
var refRE = regexp.MustCompile(`(?i)CVDR(?::\/\/|:)?([0-9]{1,9}_[0-9]{1,4})\b`)

// ParseReference reads a reference to a local regulation; ok is false
// when s names none. The identifier is in the repository's form.
func ParseReference(s string) (id string, ok bool) {
	m := refRE.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	p, err := ParseID(m[1])
	if err != nil {
		return "", false
	}
	return p.String(), true
}

// recognize is a regulation version written in a form ParseID takes, as
// written: cvdr_fetch takes it as is (Surface.Recognize).
func recognize(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if _, err := ParseID(s); err != nil {
		return "", false
	}
	return s, true
}
