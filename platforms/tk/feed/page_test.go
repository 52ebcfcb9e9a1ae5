package feed

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/fixture"
)

// page wraps entries in a SyncFeed page whose own next link carries next
// (0: none) and, when resume, a resume link.
func page(next int64, resume bool, entries ...string) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom" xmlns:tk="http://www.tweedekamer.nl/xsd/tkData/v1-0">`)
	if next > 0 {
		fmt.Fprintf(&b, `<link rel="next" href="https://gegevensmagazijn.tweedekamer.nl/SyncFeed/2.0/Feed?category=Document&amp;skiptoken=%d"/>`, next)
	}
	if resume {
		b.WriteString(`<link rel="resume" href="https://gegevensmagazijn.tweedekamer.nl/SyncFeed/2.0/Feed?category=Document&amp;skiptoken=7"/>`)
	}
	for _, e := range entries {
		b.WriteString(e)
	}
	b.WriteString(`</feed>`)
	return []byte(b.String())
}

func docEntry(guid string, token int64, deleted bool, fields string) string {
	return fmt.Sprintf(`<entry><title>%s</title><updated>2024-03-01T10:00:00Z</updated><category term="document"/>`+
		`<link rel="next" href="https://gegevensmagazijn.tweedekamer.nl/SyncFeed/2.0/Feed?category=Document&amp;skiptoken=%d"/>`+
		`<content type="application/xml"><document xmlns="http://www.tweedekamer.nl/xsd/tkData/v1-0" id="%s" tk:bijgewerkt="2024-03-01T09:00:00Z" tk:verwijderd="%t">%s</document></content></entry>`,
		guid, token, guid, deleted, fields)
}

const (
	guidA = "11111111-2222-3333-4444-555555555555"
	guidB = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
)

// TestParseRealEntry: the real entry of the fixture, in a page, reads as
// its entity with its fields, its links and its skiptoken.
func TestParseRealEntry(t *testing.T) {
	entry := string(fixture.Read(t, "tk", "syncfeed-entry.fragment.xml"))
	p, err := ParsePage(page(0, false, entry))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entities) != 1 {
		t.Fatalf("%d entities", len(p.Entities))
	}
	e := p.Entities[0]
	if e.ID != "808fcd50-a0dc-4f60-8b9d-c404a2eb5b2e" || e.Category != "fractiezetelpersoon" || e.Element != "fractieZetelPersoon" ||
		e.Token != 16687327 || e.Updated != "2023-08-29T13:23:13Z" || e.Deleted {
		t.Fatalf("%+v", e)
	}
	if e.Fields["functie"] != "Lid" || e.Fields["van"] != "2002-05-23" || e.Fields["totEnMet"] != "2010-10-11" {
		t.Fatalf("fields %v", e.Fields)
	}
	if e.Refs["persoon"][0] != "ec273841-069f-408b-b434-8524904ae314" || e.Refs["fractieZetel"][0] != "ca826e72-cf57-4cca-b090-d5c444ec6c2d" {
		t.Fatalf("refs %v", e.Refs)
	}
	if p.Next != 16687327 || p.End {
		t.Fatalf("next %d end %v: a page without its own next link goes on from its last entry", p.Next, p.End)
	}
}

func TestParsePage(t *testing.T) {
	p, err := ParsePage(page(12, false, docEntry(guidA, 11, false, `<soort>Motie</soort><titel>Over &amp; weer</titel>`), docEntry(strings.ToUpper(guidB), 12, true, "")))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entities) != 2 || p.Next != 12 || p.End {
		t.Fatalf("%+v", p)
	}
	if p.Entities[0].Fields["titel"] != "Over & weer" || p.Entities[0].Token != 11 {
		t.Fatalf("%+v", p.Entities[0])
	}
	if !p.Entities[1].Deleted || p.Entities[1].ID != guidB {
		t.Fatalf("a deleted entity, its GUID in lower case: %+v", p.Entities[1])
	}
	end, err := ParsePage(page(0, true))
	if err != nil || !end.End || len(end.Entities) != 0 {
		t.Fatalf("the end: %+v %v", end, err)
	}
}

// TestParsePageRefusesWhatItCannotRead: a page it cannot read whole is an
// *Error of kind ErrBadPage, and none of it is used.
func TestParsePageRefusesWhatItCannotRead(t *testing.T) {
	good := docEntry(guidA, 11, false, "<soort>Motie</soort>")
	for name, body := range map[string][]byte{
		"not XML":           []byte("<html>Service Unavailable"),
		"cut off":           page(12, false, good)[:300],
		"no entity":         page(12, false, `<entry><title>x</title><content type="application/xml"></content></entry>`),
		"no GUID":           page(12, false, docEntry("12", 11, false, "")),
		"two entities":      page(12, false, strings.Replace(good, "</document>", "</document><zaak id=\""+guidB+"\"/>", 1)),
		"bad skiptoken":     page(12, false, strings.Replace(good, "skiptoken=11", "skiptoken=eleven", 1)),
		"no token":          page(0, false, strings.Replace(good, "skiptoken=11", "other=1", 1)),
		"over the size cap": page(12, false, docEntry(guidA, 11, false, "<titel>"+strings.Repeat("x", MaxEntityBytes)+"</titel>")),
	} {
		p, err := ParsePage(body)
		if !errors.Is(err, ErrBadPage) || len(p.Entities) != 0 {
			t.Errorf("%s: %v, %d entities", name, err, len(p.Entities))
		}
	}
}

// TestCheckMoves: a page must go on past the skiptoken it was asked
// after; the end page (no entries) need not.
func TestCheckMoves(t *testing.T) {
	p, _ := ParsePage(page(12, false, docEntry(guidA, 12, false, "")))
	if err := CheckMoves(11, p); err != nil {
		t.Fatal(err)
	}
	for _, asked := range []int64{12, 13} {
		if err := CheckMoves(asked, p); !errors.Is(err, ErrStuckFeed) {
			t.Errorf("asked after %d: %v", asked, err)
		}
	}
	if err := CheckMoves(99, Page{End: true}); err != nil {
		t.Fatal(err)
	}
}

func TestRequest(t *testing.T) {
	if r := Request("Document", 0); r.Path != "/SyncFeed/2.0/Feed?category=Document" {
		t.Fatal(r.Path)
	}
	if r := Request("Stemming", 42); r.Path != "/SyncFeed/2.0/Feed?category=Stemming&skiptoken=42" {
		t.Fatal(r.Path)
	}
}

func TestParseEntity(t *testing.T) {
	e, err := ParseEntity([]byte(`<?xml version="1.0" encoding="utf-8"?>` + "\n" + `<zaak xmlns="x" id="` + guidA + `" verwijderd="false"><nummer>2024Z01234</nummer><kamerstukdossier ref="` + guidB + `"/></zaak>`))
	if err != nil || e.Category != "zaak" || e.Fields["nummer"] != "2024Z01234" || e.Refs["kamerstukdossier"][0] != guidB {
		t.Fatalf("%+v %v", e, err)
	}
}
