package ob

import (
	"context"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fixture"
	"github.com/besluitbron/besluitbron/internal/linkcheck"
)

// A search record whose preferredUrl and file links are hostile (the real
// Gemeenteblad record with its links replaced): the hit and the document
// hand on none of them, and say so.
func TestHostileLinks(t *testing.T) {
	rec := string(fixture.Read(t, "ob", "sru-record-gmb.fragment.xml"))
	const preferred = "https://zoek.officielebekendmakingen.nl/gmb-2023-174296.html"
	const pdf = "https://repository.overheid.nl/frbr/officielepublicaties/gmb/2023/gmb-2023-174296/1/pdf/gmb-2023-174296.pdf"
	const html = "https://repository.overheid.nl/frbr/officielepublicaties/gmb/2023/gmb-2023-174296/1/html/gmb-2023-174296.html"
	const xmlItem = `<itemUrl manifestation="xml">https://repository.overheid.nl/frbr/officielepublicaties/gmb/2023/gmb-2023-174296/1/xml/gmb-2023-174296.xml</itemUrl>`
	const xmlURL = `<url>https://repository.overheid.nl/frbr/officielepublicaties/gmb/2023/gmb-2023-174296/1/xml/gmb-2023-174296.xml</url>`
	for _, s := range []string{preferred, pdf, html, xmlItem, xmlURL} {
		if !strings.Contains(rec, s) {
			t.Fatalf("the fixture no longer holds %s", s)
		}
	}
	// Without its XML file, fetch answers from the record alone.
	rec = strings.Replace(strings.Replace(rec, xmlItem, "", 1), xmlURL, "", 1)
	for _, bad := range linkcheck.Hostile {
		var esc strings.Builder
		xml.EscapeText(&esc, []byte(bad))
		r := strings.NewReplacer(preferred, esc.String(), pdf, esc.String(), html, esc.String()).Replace(rec)
		body := []byte(`<?xml version="1.0"?><sru:searchRetrieveResponse xmlns:sru="http://docs.oasis-open.org/ns/search-ws/sruResponse"><sru:version>2.0</sru:version><sru:numberOfRecords>1</sru:numberOfRecords><sru:records>` + r + `</sru:records></sru:searchRetrieveResponse>`)
		pg, _, err := ParseSearch(body)
		if err != nil || len(pg.Hits) != 1 {
			t.Fatalf("%q: %+v %v", bad, pg, err)
		}
		linkcheck.Check(t, "hit "+bad, pg.Hits[0].URL, pg.Hits[0].URLDropped)
		env := adapters.Env{Get: func(context.Context, string, adapters.Request) ([]byte, error) { return body, nil }}
		d, err := fetch(context.Background(), env, nil, "gmb-2023-174296")
		if err != nil {
			t.Fatalf("%q: %v", bad, err)
		}
		linkcheck.Check(t, "document "+bad, d.URL, d.URLDropped)
		for _, k := range []string{"pdf", "html"} {
			linkcheck.Check(t, k+" "+bad, d.Meta[k], d.Meta[k+"_dropped"])
		}
	}
	// The honest record hands its links on.
	body := []byte(`<searchRetrieveResponse><numberOfRecords>1</numberOfRecords><records>` + rec + `</records></searchRetrieveResponse>`)
	env := adapters.Env{Get: func(context.Context, string, adapters.Request) ([]byte, error) { return body, nil }}
	d, err := fetch(context.Background(), env, nil, "gmb-2023-174296")
	if err != nil || d.URL != preferred || d.URLDropped != "" || d.Meta["pdf"] != pdf || d.Meta["html"] != html {
		t.Fatalf("%+v %v", d, err)
	}
}

// What checking a link costs beside parsing the search record it comes
// from (docs/benchmarks.md, issue 31): one real record, and CheckLink of
// its preferredUrl and two file links, as ParseSearch and fetch check them.
func BenchmarkLinkCheck(b *testing.B) {
	rec := string(fixture.Read(b, "ob", "sru-record-gmb.fragment.xml"))
	body := []byte(`<searchRetrieveResponse><numberOfRecords>1</numberOfRecords><records>` + rec + `</records></searchRetrieveResponse>`)
	links := []string{"https://zoek.officielebekendmakingen.nl/gmb-2023-174296.html",
		"https://repository.overheid.nl/frbr/officielepublicaties/gmb/2023/gmb-2023-174296/1/pdf/gmb-2023-174296.pdf",
		"https://repository.overheid.nl/frbr/officielepublicaties/gmb/2023/gmb-2023-174296/1/html/gmb-2023-174296.html"}
	b.Run("parse_record", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := ParseSearch(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("check_3_links", func(b *testing.B) {
		for b.Loop() {
			for _, l := range links {
				if k, _ := adapters.CheckLink(l); k == "" {
					b.Fatal(l)
				}
			}
		}
	})
}
