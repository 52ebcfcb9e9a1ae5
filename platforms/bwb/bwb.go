// Package bwb is the Dutch laws and national regulations of
// wetten.overheid.nl, KOOP's Basiswettenbestand (BWB): the SRU search
// (x-connection=BWB), each regulation's manifest of versions, and its
// versions ("toestanden") as XML, with the version in force on a date,
// one article or chapter of it, and the Staatsblad and Staatscourant
// publications it came from.
//
// The platform route serves the repository's paths (/bwb/<id>/...) and
// the search at /sru/Search (platforms: BWB's Mounts).
package bwb

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
	RepoPrefix = "/bwb/"
)

// idRE is a BWB identifier: BWBR (regulations) or BWBV (treaties) and
// seven digits, as the manifests and toestanden name them.
var idRE = regexp.MustCompile(`^BWB[RV][0-9]{7}$`)

// ValidID checks a BWB identifier such as BWBR0005537 and returns it in
// upper case.
func ValidID(id string) (string, error) {
	id = strings.TrimSpace(id)
	if err := adapters.CheckIDChars(id); err != nil {
		return "", err
	}
	id = strings.ToUpper(id)
	if !idRE.MatchString(id) {
		return "", fmt.Errorf("%q is not a BWB identifier: it looks like BWBR0005537 (BWBR or BWBV and seven digits; take it from bwb_search or a reference)", adapters.Cut(id, 60))
	}
	return id, nil
}

// ManifestRequest asks the repository for the regulation's manifest, the
// list of its versions.
func ManifestRequest(id string) (adapters.Request, error) {
	id, err := ValidID(id)
	if err != nil {
		return adapters.Request{}, err
	}
	return adapters.Get(RepoPrefix+id+"/manifest.xml", nil), nil
}

// ToestandRequest asks for the XML of one version of the regulation, at
// the manifest's address of it (<label>/xml/<item>).
func ToestandRequest(id string, v Version) (adapters.Request, error) {
	id, err := ValidID(id)
	if err != nil {
		return adapters.Request{}, err
	}
	if !labelRE.MatchString(v.Label) || !itemRE.MatchString(v.Item) {
		return adapters.Request{}, fmt.Errorf("version %q of %s has no XML item the repository names", adapters.Cut(v.Label, 40), id)
	}
	return adapters.Get(RepoPrefix+id+"/"+v.Label+"/xml/"+v.Item, nil), nil
}

// PageURL is the regulation's public page, as in force on date (the
// current text when date is empty).
func PageURL(id, date string) string {
	if date == "" {
		return "https://wetten.overheid.nl/" + id
	}
	return "https://wetten.overheid.nl/" + id + "/" + date
}

// refRE finds a BWB identifier in a reference: a wetten.overheid.nl URL
// (http://wetten.overheid.nl/BWBR0004825/), a JCI (jci1.3:c:BWBR0001950&
// artikel=129b, 1.0:v:BWB:BWBR0002320&artikel=30f&g=2013-07-03) or the
// bare identifier.
var (
	refRE     = regexp.MustCompile(`\bBWB[RV][0-9]{7}\b`)
	refArtRE  = regexp.MustCompile(`[&?]artikel=([0-9A-Za-z.:]{1,20})`)
	refDateRE = regexp.MustCompile(`[&?]g=([0-9]{4}-[0-9]{2}-[0-9]{2})`)
)

// ParseReference reads a reference to a law in the forms KOOP's and the
// Rechtspraak's metadata write it: the BWB identifier, and the article
// and date when the reference names them. ok is false when s names no
// BWB identifier.
func ParseReference(s string) (id, article, date string, ok bool) {
	id = refRE.FindString(s)
	if id == "" {
		return "", "", "", false
	}
	if m := refArtRE.FindStringSubmatch(s); m != nil {
		article = m[1]
	}
	if m := refDateRE.FindStringSubmatch(s); m != nil {
		date = m[1]
	}
	return id, article, date, true
}
