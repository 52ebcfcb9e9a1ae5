package bwb

import (
	"encoding/xml"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/koopsru"
)

// Version is one consolidated version (toestand) of a regulation, as its
// manifest lists it.
type Version struct {
	Label string `json:"label" jsonschema_description:"The version's label in the repository, <in force from>_<n>."`
	From  string `json:"in_force_from" jsonschema_description:"First day this version is in force, YYYY-MM-DD."`
	// Until is the last day; 9999-12-31 while no later version replaced it.
	Until string `json:"in_force_until" jsonschema_description:"Last day this version is in force, YYYY-MM-DD (9999-12-31: until further notice)."`
	Item  string `json:"-"` // the XML file's name
}

// OpenEnd is the einddatum of a version nothing replaced yet.
const OpenEnd = "9999-12-31"

// Manifest is a regulation's list of versions, oldest first.
type Manifest struct {
	ID       string
	Versions []Version
	// Latest is the label of the newest version (the manifest's
	// _latestItem), "" when it names none.
	Latest string
}

var (
	labelRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}_[0-9]{1,3}$`)
	itemRE  = regexp.MustCompile(`^BWB[RV][0-9]{7}_[0-9]{4}-[0-9]{2}-[0-9]{2}_[0-9]{1,3}\.xml$`)
	dateRE  = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
)

// ParseManifest parses the manifest of regulation id (the repository's
// <work label=id> with one <expression> per version and its xml
// manifestation). Versions whose label, dates or item do not read as the
// repository writes them, or whose item is marked deleted, are left out;
// a manifest of another regulation, or with no version left, is an
// error.
func ParseManifest(body []byte, id string) (Manifest, error) {
	var raw struct {
		XMLName     xml.Name
		Label       string `xml:"label,attr"`
		Latest      string `xml:"_latestItem,attr"`
		Expressions []struct {
			Label string `xml:"label,attr"`
			From  string `xml:"metadata>datum_inwerkingtreding"`
			Until string `xml:"metadata>einddatum"`
			Forms []struct {
				Label string `xml:"label,attr"`
				Items []struct {
					Label   string `xml:"label,attr"`
					Deleted string `xml:"_deleted,attr"`
				} `xml:"item"`
			} `xml:"manifestation"`
		} `xml:"expression"`
	}
	if err := koopsru.Decode(body, &raw); err != nil {
		return Manifest{}, fmt.Errorf("BWB manifest is not the expected XML: %v", err)
	}
	if raw.XMLName.Local != "work" {
		return Manifest{}, fmt.Errorf("BWB manifest has root <%s>, expected <work>", adapters.Cut(raw.XMLName.Local, 60))
	}
	if raw.Label != id {
		return Manifest{}, fmt.Errorf("BWB manifest is of %q, not of %s", adapters.Cut(raw.Label, 40), id)
	}
	m := Manifest{ID: id}
	for _, e := range raw.Expressions {
		v := Version{Label: strings.TrimSpace(e.Label), From: strings.TrimSpace(e.From), Until: strings.TrimSpace(e.Until)}
		if v.Until == "" {
			v.Until = OpenEnd
		}
		for _, f := range e.Forms {
			for _, it := range f.Items {
				if f.Label == "xml" && it.Deleted != "true" && itemRE.MatchString(it.Label) && strings.HasPrefix(it.Label, id+"_") {
					v.Item = it.Label
				}
			}
		}
		if labelRE.MatchString(v.Label) && dateRE.MatchString(v.From) && dateRE.MatchString(v.Until) && v.From <= v.Until && v.Item != "" {
			m.Versions = append(m.Versions, v)
		}
	}
	if len(m.Versions) == 0 {
		return Manifest{}, fmt.Errorf("BWB manifest of %s lists no version with an XML text", id)
	}
	sort.SliceStable(m.Versions, func(a, b int) bool {
		if m.Versions[a].From != m.Versions[b].From {
			return m.Versions[a].From < m.Versions[b].From
		}
		return m.Versions[a].Label < m.Versions[b].Label
	})
	if label, _, ok := strings.Cut(raw.Latest, "/"); ok && labelRE.MatchString(label) {
		m.Latest = label
	}
	return m, nil
}

// DateError is a date on which the regulation has no version in force,
// with what the manifest does list.
type DateError struct {
	ID, Date    string
	First, Last Version
}

func (e *DateError) Error() string {
	if e.Date < e.First.From {
		return fmt.Sprintf("%s was not yet in force on %s: its first version came in force on %s; give a date from then on", e.ID, e.Date, e.First.From)
	}
	if e.Date > e.Last.Until {
		return fmt.Sprintf("%s is no longer in force on %s: its last version was in force from %s to %s; give a date in that range", e.ID, e.Date, e.Last.From, e.Last.Until)
	}
	return fmt.Sprintf("%s had no version in force on %s (its versions run from %s to %s with a gap there); give another date", e.ID, e.Date, e.First.From, e.Last.Until)
}

// InForceOn returns the version in force on date (YYYY-MM-DD): the one
// whose period holds it; of several (a correction republished under the
// same date), the last label. A date outside every period is a
// *DateError.
func (m Manifest) InForceOn(date string) (Version, error) {
	var found *Version
	for i := range m.Versions {
		v := &m.Versions[i]
		if v.From <= date && date <= v.Until {
			found = v
		}
	}
	if found == nil {
		return Version{}, &DateError{ID: m.ID, Date: date, First: m.Versions[0], Last: m.Versions[len(m.Versions)-1]}
	}
	return *found, nil
}

// Current is the version in force on today, else the newest one (the
// regulation expired, or its first version comes in force later).
func (m Manifest) Current(today string) Version {
	if v, err := m.InForceOn(today); err == nil {
		return v
	}
	for _, v := range m.Versions {
		if v.Label == m.Latest {
			return v
		}
	}
	return m.Versions[len(m.Versions)-1]
}
