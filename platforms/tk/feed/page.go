// Package feed is the Tweede Kamer's SyncFeed as a replica reads it: the
// request of one category's page, a page read strictly, and an entity as
// the parliament index keeps it. The index (platforms/tk/localindex) and
// the harvester (platforms/tk) both build on it.
package feed

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
)

// The SyncFeed (opendata.tweedekamer.nl's syncfeed-api documentation and
// the real entry in testdata/fixtures/tk/syncfeed-entry.fragment.xml):
// GET /SyncFeed/2.0/Feed?category=<Entity>&skiptoken=<n> is an Atom page
// of one category's entities in the order the Kamer changed them. Each
// entry holds the whole entity (<document id=… bijgewerkt=…
// verwijderd=…> with a child element per field and <x ref=…/> per link)
// and a rel="next" link carrying its skiptoken; the page's own rel="next"
// carries the last one. A page with no entries and rel="resume" is the
// end: the category is caught up. The skiptoken is the checkpoint: the
// next page is asked after the last entry stored.
//
// Data fixes re-send old entities (OpenDataPortaal issue 127): an entity
// may come again, and the last entry of it in the feed is what it is.

// Root is the SyncFeed's root; the new OData version left it unchanged.
const Root = "/SyncFeed/2.0"

// Request asks for category's page after skiptoken (0: from the start).
func Request(category string, skiptoken int64) adapters.Request {
	v := url.Values{"category": {category}}
	if skiptoken > 0 {
		v.Set("skiptoken", strconv.FormatInt(skiptoken, 10))
	}
	return adapters.Request{Method: "GET", Path: Root + "/Feed?" + v.Encode()}
}

// Entity is one entry of the feed: an entity as the Kamer last wrote it.
type Entity struct {
	// ID is the entity's GUID, lower case.
	ID string
	// Category is its entity type as the feed names it (document, zaak,
	// stemming: the element's name, lower case).
	Category string
	// Element is the element's name as the feed writes it
	// (fractieZetelPersoon).
	Element string
	// Token is the skiptoken after it; 0 when the entry gives none.
	Token int64
	// Updated is when the feed published it (the entry's updated).
	Updated string
	// Deleted: the Kamer removed the entity (verwijderd="true").
	Deleted bool
	// Fields are its child elements with text, by their names as the feed
	// writes them (lowerCamel: soort, documentNummer, titel).
	Fields map[string]string
	// Refs are its links to other entities (<zaak ref="…"/>), by the
	// element's name: each GUID it names, in order.
	Refs map[string][]string
}

// Page is one page of a category's feed.
type Page struct {
	Entities []Entity
	// Next is the skiptoken of the page after this one (the feed's
	// rel="next"), 0 when the page gives none.
	Next int64
	// End: the page has no entries and says the feed resumes here
	// (rel="resume"): the category is caught up.
	End bool
}

// MaxEntityBytes caps one entry's content. An entity is metadata (a
// document's fields, a vote's row): the largest real ones, a zaak with a
// long title, are a few kilobytes; 256 KiB leaves a hundred times that.
const MaxEntityBytes = 256 << 10

// Error is a page the replica cannot use, and why: nothing of it is
// stored.
type Error struct {
	Kind error
	Msg  string
}

func (e *Error) Error() string { return "Tweede Kamer SyncFeed: " + e.Msg }
func (e *Error) Unwrap() error { return e.Kind }

// The kinds of Error.
var (
	// ErrBadPage is a page that is not a SyncFeed page: not Atom, an
	// entry without its entity, an entity too large.
	ErrBadPage = errors.New("a SyncFeed page the replica cannot read")
	// ErrStuckFeed is a page that does not move on: its next skiptoken is
	// not after the one asked.
	ErrStuckFeed = errors.New("a SyncFeed page that does not move on")
)

func bad(format string, a ...any) error {
	return &Error{Kind: ErrBadPage, Msg: fmt.Sprintf(format, a...)}
}

// atomFeed is the page as encoding/xml reads it; the entity inside an
// entry's content is read by readEntity.
type atomFeed struct {
	XMLName xml.Name    `xml:"feed"`
	Links   []atomLink  `xml:"link"`
	Entries []atomEntry `xml:"entry"`
}

type atomLink struct {
	Rel  string `xml:"rel,attr"`
	Href string `xml:"href,attr"`
}

type atomEntry struct {
	Title    string `xml:"title"`
	Updated  string `xml:"updated"`
	Category struct {
		Term string `xml:"term,attr"`
	} `xml:"category"`
	Links   []atomLink `xml:"link"`
	Content struct {
		Inner []byte `xml:",innerxml"`
	} `xml:"content"`
}

// ParsePage reads one page strictly: every entry must hold its entity,
// with an id, or the page is an *Error and nothing of it is used.
func ParsePage(body []byte) (Page, error) {
	var f atomFeed
	if err := xml.Unmarshal(adapters.TrimBOM(body), &f); err != nil {
		return Page{}, bad("the page is not Atom XML: %v", err)
	}
	var p Page
	for _, l := range f.Links {
		switch l.Rel {
		case "next":
			t, err := skiptokenOf(l.Href)
			if err != nil {
				return Page{}, err
			}
			p.Next = t
		case "resume":
			p.End = len(f.Entries) == 0
		}
	}
	for n, e := range f.Entries {
		if len(e.Content.Inner) > MaxEntityBytes {
			return Page{}, bad("entry %d holds %d bytes, over the cap of %d", n+1, len(e.Content.Inner), MaxEntityBytes)
		}
		ent, err := readEntity(e.Content.Inner)
		if err != nil {
			return Page{}, bad("entry %d (%s): %v", n+1, strings.TrimSpace(e.Title), err)
		}
		ent.Updated = strings.TrimSpace(e.Updated)
		for _, l := range e.Links {
			if l.Rel == "next" {
				if ent.Token, err = skiptokenOf(l.Href); err != nil {
					return Page{}, err
				}
			}
		}
		p.Entities = append(p.Entities, ent)
	}
	if len(p.Entities) > 0 && p.Next == 0 {
		p.Next = p.Entities[len(p.Entities)-1].Token
	}
	if len(p.Entities) > 0 && p.Next == 0 {
		return Page{}, bad("a page of %d entries without a skiptoken to go on from", len(p.Entities))
	}
	return p, nil
}

// CheckMoves checks that a page asked after skiptoken asked goes on past
// it: a feed that gives the same page again would be read forever.
func CheckMoves(asked int64, p Page) error {
	if len(p.Entities) > 0 && p.Next <= asked {
		return &Error{Kind: ErrStuckFeed, Msg: fmt.Sprintf("the page after skiptoken %d points back to %d", asked, p.Next)}
	}
	return nil
}

func skiptokenOf(href string) (int64, error) {
	u, err := url.Parse(href)
	if err != nil {
		return 0, bad("a link that is not a URL: %q", href)
	}
	s := u.Query().Get("skiptoken")
	if s == "" {
		return 0, nil
	}
	t, err := strconv.ParseInt(s, 10, 64)
	if err != nil || t < 0 {
		return 0, bad("a skiptoken that is not a number: %q", s)
	}
	return t, nil
}

// ParseEntity reads one entity as /SyncFeed/2.0/Entiteiten/<guid> gives
// it: the element an entry's content holds.
func ParseEntity(body []byte) (Entity, error) {
	e, err := readEntity(adapters.TrimBOM(body))
	if err != nil {
		return Entity{}, fmt.Errorf("Tweede Kamer SyncFeed entity: %v", err)
	}
	return e, nil
}

// readEntity reads the one element inside an entry's content.
func readEntity(inner []byte) (Entity, error) {
	dec := xml.NewDecoder(bytes.NewReader(inner))
	e := Entity{Fields: map[string]string{}, Refs: map[string][]string{}}
	depth := 0
	var field string
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Entity{}, fmt.Errorf("its content is not XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch depth {
			case 1:
				if e.Category != "" {
					return Entity{}, fmt.Errorf("its content holds two entities")
				}
				e.Element = t.Name.Local
				e.Category = strings.ToLower(t.Name.Local)
				e.ID = strings.ToLower(attr(t, "id"))
				e.Deleted = attr(t, "verwijderd") == "true"
			case 2:
				if ref := attr(t, "ref"); ref != "" {
					e.Refs[t.Name.Local] = append(e.Refs[t.Name.Local], strings.ToLower(ref))
					field = ""
					continue
				}
				field = t.Name.Local
				text.Reset()
			}
		case xml.CharData:
			if depth == 2 && field != "" {
				text.Write(t)
			}
		case xml.EndElement:
			if depth == 2 && field != "" {
				e.Fields[field] = strings.TrimSpace(text.String())
				field = ""
			}
			depth--
		}
	}
	switch {
	case e.Category == "":
		return Entity{}, fmt.Errorf("no entity in its content")
	case !guidRE(e.ID):
		return Entity{}, fmt.Errorf("an entity without a GUID id (%q)", e.ID)
	}
	return e, nil
}

func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// guidRE tells whether s is a GUID as the Kamer writes its ids.
func guidRE(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return false
			}
		}
	}
	return true
}
