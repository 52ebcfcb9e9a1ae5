package ob

import (
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fixture"
)

// stbRecord is the real search record (fixtures/ob) as the Staatsblad
// publication stb-2018-84 whose metadata names dossier: its identifier,
// publicatienaam and creator changed, behandeldDossier added beside the
// publicatienummer where the real record holds the tpmeta fields.
func stbRecord(t *testing.T, dossier string) string {
	rec := string(fixture.Read(t, "ob", "sru-record-gmb.fragment.xml"))
	rec = strings.ReplaceAll(rec, "gmb-2023-174296", "stb-2018-84")
	rec = strings.Replace(rec, `<creator scheme="OVERHEID.Gemeente">Bergeijk</creator>`, `<creator scheme="OVERHEID.Ministerie">Ministerie van Financiën</creator>`, 1)
	rec = strings.Replace(rec, "<publicatienaam>Gemeenteblad</publicatienaam>", "<publicatienaam>Staatsblad</publicatienaam>", 1)
	if dossier != "" {
		rec = strings.Replace(rec, "<publicatienummer>174296</publicatienummer>", "<publicatienummer>84</publicatienummer><behandeldDossier>"+dossier+"</behandeldDossier>", 1)
	}
	if !strings.Contains(rec, "<publicatienaam>Staatsblad</publicatienaam>") {
		t.Fatal("the fixture's record changed")
	}
	return rec
}

// ekRecord is the real record as an Eerste Kamer kamerstuk of dossier.
func ekRecord(t *testing.T, dossier string) string {
	rec := string(fixture.Read(t, "ob", "sru-record-gmb.fragment.xml"))
	rec = strings.ReplaceAll(rec, "gmb-2023-174296", "kst-"+dossier+"-A")
	rec = strings.Replace(rec, `<creator scheme="OVERHEID.Gemeente">Bergeijk</creator>`, `<creator scheme="OVERHEID.StatenGeneraal">Eerste Kamer der Staten-Generaal</creator>`, 1)
	rec = strings.Replace(rec, "<publicatienaam>Gemeenteblad</publicatienaam>", "<publicatienaam>Kamerstuk</publicatienaam>", 1)
	return strings.Replace(rec, "<publicatienummer>174296</publicatienummer>", "<dossiernummer>"+dossier+"</dossiernummer><ondernummer>A</ondernummer><vergaderjaar>2017-2018</vergaderjaar>", 1)
}

func envelope(total int, recs ...string) []byte {
	return []byte(`<searchRetrieveResponse><version>2.0</version><numberOfRecords>` + strconv.Itoa(total) + `</numberOfRecords><records>` +
		strings.Join(recs, "") + `</records></searchRetrieveResponse>`)
}

// A Staatsblad publication is taken when its own metadata names the
// dossier; one that names another, or none, is left out and said so;
// the Eerste Kamer's kamerstuk is taken by its dossiernummer and creator.
func TestTimelineParseRecords(t *testing.T) {
	d := adapters.Dossier{Number: "34775"}
	pubs, others, total, err := ParseTimeline(envelope(3, stbRecord(t, "34775"), stbRecord(t, "34776"), ekRecord(t, "34775")), d)
	if err != nil || total != 3 {
		t.Fatal(total, err)
	}
	if len(pubs) != 2 || len(others) != 1 || others[0] != "stb-2018-84" {
		t.Fatalf("%+v %v", pubs, others)
	}
	p := pubs[0]
	if !p.Staatsblad || p.ID != "stb-2018-84" || p.Named != "behandeldDossier 34775" || p.Date != "2023-04-20" ||
		p.URL != "https://zoek.officielebekendmakingen.nl/stb-2018-84.html" {
		t.Fatalf("%+v", p)
	}
	if ek := pubs[1]; ek.Staatsblad || ek.ID != "kst-34775-a" || ek.Named != "dossiernummer 34775" || Citation(ek.ID, ek.Creator, ek.Vergaderjaar) != "Kamerstukken I 2017/18, 34775, A" {
		t.Fatalf("%+v %q", ek, Citation(ek.ID, ek.Creator, ek.Vergaderjaar))
	}
	// A dossier with an addition is another dossier: 34775 names not 34775-VII.
	pubs, _, _, _ = ParseTimeline(envelope(1, stbRecord(t, "34775")), adapters.Dossier{Number: "34775", Addition: "VII"})
	if len(pubs) != 0 {
		t.Fatalf("%+v", pubs)
	}
	// Written with a space, the same dossier.
	pubs, _, _, _ = ParseTimeline(envelope(1, stbRecord(t, "36200 vii")), adapters.Dossier{Number: "36200", Addition: "VII"})
	if len(pubs) != 1 {
		t.Fatalf("%+v", pubs)
	}
	// A record with no behandeldDossier names no dossier, whatever its title says.
	rec := strings.Replace(stbRecord(t, ""), "<title>", "<title>Wet 34775 ", 1)
	if pubs, others, _, _ := ParseTimeline(envelope(1, rec), d); len(pubs) != 0 || len(others) != 1 {
		t.Fatalf("%+v %v", pubs, others)
	}
}

// Answers that are no search response fail; a diagnostic is the
// platform refusing the search.
func TestTimelineParseHostile(t *testing.T) {
	d := adapters.Dossier{Number: "34775"}
	for _, body := range []string{``, `<searchRetrieveResponse><records><record>`, `<html>busy</html>`,
		`<searchRetrieveResponse><diagnostics><diagnostic><message>unsupported index</message></diagnostic></diagnostics></searchRetrieveResponse>`,
		string(envelope(1, strings.Replace(stbRecord(t, "34775"), "stb-2018-84", "../../etc", -1)))} {
		if _, _, _, err := ParseTimeline([]byte(body), d); err == nil {
			t.Errorf("%q parsed", body)
		}
	}
}

// The request asks for the dossier exactly, both kinds in one search.
func TestTimelineRequest(t *testing.T) {
	r := TimelineRequest(adapters.Dossier{Number: "36200", Addition: "VII"})
	u, err := url.Parse(r.Path)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query().Get("query")
	for _, want := range []string{`w.behandeldDossier=="36200-VII"`, `w.dossiernummer=="36200-VII"`, `w.publicatienaam="Staatsblad"`, `dt.creator="Eerste Kamer"`} {
		if !strings.Contains(q, want) {
			t.Errorf("%s lacks %s", q, want)
		}
	}
	if u.Path != SRUPath || u.Query().Get("maximumRecords") != "50" {
		t.Errorf("%s", r.Path)
	}
}
