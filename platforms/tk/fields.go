package tk

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
)

// field is one thing the adapter reads from an entity set, with every name
// the Kamer has given it, newest first. The name in use is whichever the
// service's $metadata lists, so a rename needs one more entry here and no
// other change.
type field struct {
	key      string   // the adapter's own name
	what     string   // for error messages
	names    []string // candidate property names, newest first
	required bool     // the tools cannot work without it
}

// Keys of the fields the adapter reads.
const (
	fID           = "id"
	fVerwijderd   = "verwijderd"
	fNummer       = "nummer"
	fOndernummer  = "ondernummer"
	fSoort        = "soort"
	fTitel        = "titel"
	fOnderwerp    = "onderwerp"
	fDatum        = "datum"
	fVergaderjaar = "vergaderjaar"
	fOrganisatie  = "organisatie"
	fContentType  = "content_type"
	fContentLen   = "content_length"
	fRegistratie  = "registratie"
	fNaam         = "naam"
	fNaamEN       = "naam_en"
	fAfkorting    = "afkorting"
	fZetels       = "aantalzetels"
	fActief       = "datumactief"
	fInactief     = "datuminactief"
	// votes (votes.go)
	fBesluitSoort   = "besluitsoort"
	fBesluitTekst   = "besluittekst"
	fStemmingsSoort = "stemmingssoort"
	fFractieGrootte = "fractiegrootte"
	fActorNaam      = "actornaam"
	fActorFractie   = "actorfractie"
	fVergissing     = "vergissing"
	fPersoonID      = "persoon_id"
	fGestartOp      = "gestartop"
	fVolgnummer     = "volgnummer"
	fToevoeging     = "toevoeging"
	fGewijzigdOp    = "gewijzigdop"
)

// fieldTable holds the fields per entity set. Old and new names come from
// the documentation (opendata.tweedekamer.nl/documentatie) for v4 and, for
// v5, from a third-party client's migration in June 2026
// (docs/emulators.md, Tweede Kamer): DocumentNummer → Nummer, Volgnummer
// → Ondernummer (-1 = no value), DatumRegistratie dropped.
var fieldTable = map[string][]field{
	"Document": {
		{fID, "key", []string{"Id"}, true},
		{fVerwijderd, "deletion flag", []string{"Verwijderd"}, true},
		{fNummer, "document number", []string{"Nummer", "DocumentNummer"}, true},
		{fSoort, "document kind", []string{"Soort"}, true},
		{fTitel, "title", []string{"Titel"}, true},
		{fOnderwerp, "subject", []string{"Onderwerp"}, true},
		{fDatum, "date", []string{"Datum"}, true},
		{fOndernummer, "sequence number", []string{"Ondernummer", "Volgnummer"}, false},
		{fVergaderjaar, "parliamentary year", []string{"Vergaderjaar"}, false},
		{fOrganisatie, "organisation", []string{"Organisatie"}, false},
		{fContentType, "file type", []string{"ContentType"}, false},
		{fContentLen, "file size", []string{"ContentLength"}, false},
		{fRegistratie, "registration date", []string{"DatumRegistratie"}, false},
	},
	"Commissie": {
		{fID, "key", []string{"Id"}, true},
		{fVerwijderd, "deletion flag", []string{"Verwijderd"}, true},
		{fNaam, "name", []string{"NaamNL", "Naam"}, true},
		{fInactief, "end date", []string{"DatumInactief"}, true},
		{fAfkorting, "abbreviation", []string{"Afkorting"}, false},
		{fSoort, "kind", []string{"Soort"}, false},
		{fActief, "start date", []string{"DatumActief"}, false},
		{fNaamEN, "English name", []string{"NaamEN"}, false},
	},
	// The sets of a vote (votes.go), with the names of v4's
	// documentation and of the real Besluit answer in fixtures/tk; no v5
	// rename of them is known.
	"Besluit": {
		{fID, "key", []string{"Id"}, true},
		{fVerwijderd, "deletion flag", []string{"Verwijderd"}, true},
		{fBesluitSoort, "decision kind", []string{"BesluitSoort"}, true},
		{fStemmingsSoort, "voting method", []string{"StemmingsSoort"}, true},
		{fBesluitTekst, "decision text", []string{"BesluitTekst"}, false},
	},
	"Stemming": {
		{fID, "key", []string{"Id"}, true},
		{fVerwijderd, "deletion flag", []string{"Verwijderd"}, true},
		{fSoort, "vote", []string{"Soort"}, true},
		{fFractieGrootte, "group size", []string{"FractieGrootte"}, true},
		{fActorNaam, "voter", []string{"ActorNaam"}, true},
		{fActorFractie, "voter's group", []string{"ActorFractie"}, true},
		{fVergissing, "mistake flag", []string{"Vergissing"}, false},
		{fPersoonID, "member", []string{"Persoon_Id"}, false},
	},
	"Zaak": {
		{fID, "key", []string{"Id"}, true},
		{fVerwijderd, "deletion flag", []string{"Verwijderd"}, true},
		{fNummer, "zaak number", []string{"Nummer"}, true},
		{fSoort, "zaak kind", []string{"Soort"}, true},
		{fTitel, "title", []string{"Titel"}, true},
		{fOnderwerp, "subject", []string{"Onderwerp"}, false},
		{fGestartOp, "start date", []string{"GestartOp"}, false},
		{fVolgnummer, "sequence number", []string{"Volgnummer"}, false},
	},
	"Kamerstukdossier": {
		{fID, "key", []string{"Id"}, true},
		{fNummer, "dossier number", []string{"Nummer"}, true},
		{fToevoeging, "dossier addition", []string{"Toevoeging"}, true},
		// For the completion of dossiers (prompts_dossiers.go).
		{fTitel, "title", []string{"Titel"}, false},
		{fVerwijderd, "deletion flag", []string{"Verwijderd"}, false},
		{fGewijzigdOp, "change time", []string{"GewijzigdOp"}, false},
	},
	"Agendapunt": {
		{fID, "key", []string{"Id"}, true},
		{fOnderwerp, "subject", []string{"Onderwerp"}, false},
	},
	"Activiteit": {
		{fID, "key", []string{"Id"}, true},
		{fDatum, "date", []string{"Datum"}, true},
		{fNummer, "activity number", []string{"Nummer"}, false},
		{fSoort, "activity kind", []string{"Soort"}, false},   // the timeline's (timeline.go)
		{fOnderwerp, "subject", []string{"Onderwerp"}, false}, // the timeline's
	},
	"Fractie": {
		{fID, "key", []string{"Id"}, true},
		{fVerwijderd, "deletion flag", []string{"Verwijderd"}, true},
		{fNaam, "name", []string{"NaamNL", "Naam"}, true},
		{fInactief, "end date", []string{"DatumInactief"}, true},
		{fAfkorting, "abbreviation", []string{"Afkorting"}, false},
		{fZetels, "seats", []string{"AantalZetels"}, false},
		{fActief, "start date", []string{"DatumActief"}, false},
		{fNaamEN, "English name", []string{"NaamEN"}, false},
	},
}

// Metadata is what the adapter needs from a service's $metadata: the
// property names of each entity set, and of the entity each of its
// navigation properties leads to.
type Metadata struct {
	sets map[string]map[string]bool
	navs map[string]map[string]map[string]bool // set → navigation → the target's properties
}

// ParseMetadata reads an OData CSDL document (EDMX XML): entity types with
// their properties (and those of their base types), and the entity sets
// of the container. Without EntitySet elements, type names are set names.
func ParseMetadata(body []byte) (*Metadata, error) {
	type etype struct {
		base  string
		props []string
		navs  map[string]string // navigation property → target type
	}
	types := map[string]*etype{}
	sets := map[string]string{} // set → qualified type
	dec := xml.NewDecoder(bytes.NewReader(adapters.TrimBOM(body)))
	var ns string
	var cur *etype
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("the $metadata answer is not XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "Schema":
				ns = attr(t, "Namespace")
			case "EntityType":
				cur = &etype{base: attr(t, "BaseType"), navs: map[string]string{}}
				name := attr(t, "Name")
				types[name] = cur
				if ns != "" {
					types[ns+"."+name] = cur
				}
			case "Property":
				if cur != nil {
					cur.props = append(cur.props, attr(t, "Name"))
				}
			case "NavigationProperty":
				if cur != nil {
					cur.navs[attr(t, "Name")] = navTarget(attr(t, "Type"))
				}
			case "EntitySet":
				sets[attr(t, "Name")] = attr(t, "EntityType")
			}
		case xml.EndElement:
			if t.Name.Local == "EntityType" {
				cur = nil
			}
		}
	}
	if len(types) == 0 {
		return nil, fmt.Errorf("the $metadata answer lists no entity types")
	}
	if len(sets) == 0 {
		for name := range types {
			if !strings.Contains(name, ".") {
				sets[name] = name
			}
		}
	}
	// Follow BaseType a bounded number of steps (a cycle is malformed).
	propsOf := func(tname string) map[string]bool {
		props := map[string]bool{}
		for t, n := types[tname], 0; t != nil && n < 16; t, n = types[t.base], n+1 {
			for _, p := range t.props {
				props[p] = true
			}
		}
		return props
	}
	m := &Metadata{sets: map[string]map[string]bool{}, navs: map[string]map[string]map[string]bool{}}
	for set, tname := range sets {
		m.sets[set] = propsOf(tname)
		navs := map[string]map[string]bool{}
		for t, n := types[tname], 0; t != nil && n < 16; t, n = types[t.base], n+1 {
			for nav, target := range t.navs {
				if _, ok := navs[nav]; !ok {
					navs[nav] = propsOf(target)
				}
			}
		}
		m.navs[set] = navs
	}
	return m, nil
}

// navTarget is the entity type a navigation property's Type names:
// TK.DA.GGM.OData.Kamerstukdossier, or Collection(...) of it.
func navTarget(typ string) string {
	if inner, ok := strings.CutPrefix(typ, "Collection("); ok {
		return strings.TrimSuffix(inner, ")")
	}
	return typ
}

func attr(e xml.StartElement, name string) string {
	for _, a := range e.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// Schema is the field table resolved against one service's $metadata.
type Schema struct {
	root string
	sets map[string]*Entity
}

// Entity is one entity set with its fields' names in this service.
type Entity struct {
	Set   string
	root  string
	names map[string]string // key → property name; absent when the service lacks it
	err   error
	// dossier is the navigation property to the document's
	// kamerstukdossier when the service lists it with the fields a
	// kamerstuk number needs (kamerstuk.go); "" otherwise.
	dossier string
	// navs are the set's navigation properties (votes.go asks for them).
	navs map[string]map[string]bool
}

// NewSchema resolves the field table for the service at root.
func NewSchema(root string, md *Metadata) *Schema {
	s := &Schema{root: root, sets: map[string]*Entity{}}
	for set, fields := range fieldTable {
		e := &Entity{Set: set, root: root, names: map[string]string{}, navs: md.navs[set]}
		props := md.sets[set]
		if props == nil {
			e.err = mismatchf("the Tweede Kamer's OData service at %s has no entity set %s in its $metadata", root, set)
			s.sets[set] = e
			continue
		}
		var missing []string
		for _, f := range fields {
			for _, n := range f.names {
				if props[n] {
					e.names[f.key] = n
					break
				}
			}
			if e.names[f.key] == "" && f.required {
				missing = append(missing, fmt.Sprintf("the %s (looked for %s)", f.what, strings.Join(f.names, " or ")))
			}
		}
		if set == "Document" && e.names[fOndernummer] != "" {
			e.dossier = dossierNavigation(md.navs[set])
		}
		if len(missing) > 0 {
			e.err = mismatchf("the Tweede Kamer's OData service at %s has no property for %s on %s in its $metadata; the API has changed: add the new name to the table in platforms/tk/fields.go",
				root, strings.Join(missing, " and "), set)
		}
		s.sets[set] = e
	}
	return s
}

// Root is the service root the schema was read from.
func (s *Schema) Root() string { return s.root }

// Entity returns a resolved entity set, or the error that names what the
// service lacks.
func (s *Schema) Entity(set string) (*Entity, error) {
	e, ok := s.sets[set]
	if !ok {
		return nil, mismatchf("the adapter has no field table for %s", set)
	}
	if e.err != nil {
		return nil, e.err
	}
	return e, nil
}

// Name is the service's property name for a field key, "" when absent.
func (e *Entity) Name(key string) string { return e.names[key] }

// selectList is the $select value: every field the service has, in table
// order.
func (e *Entity) selectList() string {
	var out []string
	for _, f := range fieldTable[e.Set] {
		if n := e.names[f.key]; n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, ",")
}

// Names lists the resolved names, key=name, sorted (for tests and logs).
func (e *Entity) Names() []string {
	var out []string
	for k, n := range e.names {
		out = append(out, k+"="+n)
	}
	sort.Strings(out)
	return out
}

// MismatchError: the service's $metadata lacks what the adapter's field
// table needs (an entity set, a property): the API has changed.
type MismatchError struct{ Msg string }

func (e *MismatchError) Error() string { return e.Msg }

func mismatchf(format string, args ...any) error {
	return &MismatchError{Msg: fmt.Sprintf(format, args...)}
}

// MetadataError is a $metadata answer that does not parse.
type MetadataError struct{ Err error }

func (e *MetadataError) Error() string { return e.Err.Error() }
func (e *MetadataError) Unwrap() error { return e.Err }

// SchemaError is a $metadata that could not be fetched: the route failed
// (Err, often an *adapters.RouteError), so the field names of Root are
// unknown; the OData root may have moved.
type SchemaError struct {
	Root string
	Err  error
}

func (e *SchemaError) Error() string {
	return "the OData service description " + e.Root + "/$metadata could not be read: " + e.Err.Error()
}
func (e *SchemaError) Unwrap() error { return e.Err }

// SchemaOf returns the schema of the OData root, from memo when it was
// read within adapters.MemoTTL, else from its $metadata fetched with get
// (through the platform route) and kept in memo. A failed get is a
// *SchemaError; an answer that does not parse a *MetadataError.
func SchemaOf(memo *adapters.Memo, root string, now time.Time, get func(adapters.Request) ([]byte, error)) (*Schema, error) {
	key := "tk:schema:" + root
	if v, ok := memo.Get(key, now); ok {
		return v.(*Schema), nil
	}
	body, err := get(MetadataRequest(root))
	if err != nil {
		return nil, &SchemaError{Root: root, Err: err}
	}
	md, err := ParseMetadata(body)
	if err != nil {
		return nil, &MetadataError{err}
	}
	s := NewSchema(root, md)
	memo.Put(key, s, now)
	return s, nil
}
