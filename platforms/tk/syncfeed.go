package tk

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
)

// EntityRequest asks the SyncFeed for one entity's XML by GUID: the route
// a document takes when its OData route fails (SyncFeed is unchanged by
// the new OData version).
func EntityRequest(guid string) adapters.Request {
	return adapters.Request{Method: "GET", Path: FeedRoot + "/Entiteiten/" + guid}
}

// feedNames maps the SyncFeed's lowerCamel element names (compared
// case-insensitively) to document fields; both the old and the new
// number names are accepted.
var feedNames = map[string]string{
	"soort": fSoort, "documentnummer": fNummer, "nummer": fNummer, "titel": fTitel, "onderwerp": fOnderwerp,
	"datum": fDatum, "vergaderjaar": fVergaderjaar, "organisatie": fOrganisatie, "contenttype": fContentType,
	"contentlength": fContentLen, "volgnummer": fOndernummer, "ondernummer": fOndernummer, "datumregistratie": fRegistratie,
}

// ParseFeedDocument parses /SyncFeed/2.0/Entiteiten/<guid> for a document:
// <document id=… tk:verwijderd=…> with one child element per field.
func ParseFeedDocument(body []byte) (adapters.Document, error) {
	dec := xml.NewDecoder(bytes.NewReader(adapters.TrimBOM(body)))
	var d document
	vals := map[string]string{}
	depth := 0
	var field string
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return adapters.Document{}, fmt.Errorf("Tweede Kamer SyncFeed entity is not XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch depth {
			case 1:
				if !strings.EqualFold(t.Name.Local, "document") {
					return adapters.Document{}, fmt.Errorf("the SyncFeed entity is a %s, not a document", t.Name.Local)
				}
				d.ID = attr(t, "id")
				if attr(t, "verwijderd") == "true" {
					return adapters.Document{}, ErrNoDocument
				}
			case 2:
				field = feedNames[strings.ToLower(t.Name.Local)]
				text.Reset()
			}
		case xml.CharData:
			if depth == 2 && field != "" {
				text.Write(t)
			}
		case xml.EndElement:
			if depth == 2 && field != "" {
				vals[field] = strings.TrimSpace(text.String())
				field = ""
			}
			depth--
		}
	}
	if d.ID == "" {
		return adapters.Document{}, fmt.Errorf("the SyncFeed answer holds no document")
	}
	d.Soort, d.Nummer, d.Titel, d.Onderwerp, d.Datum = vals[fSoort], vals[fNummer], vals[fTitel], vals[fOnderwerp], vals[fDatum]
	d.Vergaderjaar, d.Organisatie, d.ContentType = vals[fVergaderjaar], vals[fOrganisatie], vals[fContentType]
	d.ContentLength, d.Ondernummer, d.Registratie = vals[fContentLen], vals[fOndernummer], vals[fRegistratie]
	if d.Ondernummer == "-1" {
		d.Ondernummer = ""
	}
	out := d.doc()
	out.Meta["via"] = "syncfeed"
	return out, nil
}
