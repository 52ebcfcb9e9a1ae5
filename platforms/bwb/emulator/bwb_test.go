package emulator

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/fixture"
	"github.com/besluitbron/besluitbron/internal/shape"
)

func get(t *testing.T, h http.Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://emulator.test"+path, nil))
	return rec
}

func newTest() http.Handler {
	return New(Config{Clock: fakeclock.New(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))})
}

// The emulator serves byte copies of the real toestanden; they stay
// equal to the fixtures.
func TestDataIsTheFixtures(t *testing.T) {
	entries, err := data.ReadDir("data")
	if err != nil || len(entries) != 2 {
		t.Fatalf("%v %v", entries, err)
	}
	for _, e := range entries {
		b, _ := data.ReadFile("data/" + e.Name())
		if !bytes.Equal(b, fixture.Read(t, "bwb", e.Name())) {
			t.Errorf("data/%s differs from testdata/fixtures/bwb", e.Name())
		}
	}
}

// A manifest has exactly the real manifest's shape, both ways.
func TestManifestShape(t *testing.T) {
	h := newTest()
	for _, id := range []string{"BWBR0008326", "BWBR0003984"} {
		rec := get(t, h, "/bwb/"+id+"/manifest.xml")
		if rec.Code != 200 {
			t.Fatalf("%s: %d", id, rec.Code)
		}
		shape.Exact(t, rec.Body.Bytes(), fixture.Read(t, "bwb", "manifest-BWBR0045754.xml"))
	}
}

// The newest version of each regulation is the real toestand; the
// earlier ones hold nothing the real one lacks (they are it, less what
// came in force later).
func TestToestandShapes(t *testing.T) {
	h := newTest()
	for id, sample := range map[string]string{"BWBR0003984": "toestand-BWBR0003984_1986-06-26.xml", "BWBR0008326": "toestand-BWBR0008326_2011-01-01.xml"} {
		man := get(t, h, "/bwb/"+id+"/manifest.xml").Body.String()
		items := regexp.MustCompile(`<expression label="([^"]+)">.*?<item label="([^"]+)"`).FindAllStringSubmatch(man, -1)
		if len(items) == 0 {
			t.Fatalf("%s: no versions in %s", id, man)
		}
		want := fixture.Read(t, "bwb", sample)
		for i, it := range items {
			rec := get(t, h, "/bwb/"+id+"/"+it[1]+"/xml/"+it[2])
			if rec.Code != 200 {
				t.Fatalf("%s %s: %d", id, it[1], rec.Code)
			}
			if i == len(items)-1 {
				if !bytes.Equal(rec.Body.Bytes(), want) {
					t.Errorf("%s: the newest version is not the real toestand", id)
				}
				shape.Exact(t, rec.Body.Bytes(), want)
				continue
			}
			// The real toestand has every path the earlier version has.
			shape.XMLShape(t, want, rec.Body.Bytes())
			if !strings.Contains(rec.Body.String(), `inwerkingtreding="`+strings.TrimSuffix(it[1], "_0")+`"`) {
				t.Errorf("%s %s: not dated", id, it[1])
			}
		}
	}
}

// Regeling belastingcapaciteit has five versions: as in force from 1997,
// 2002, 2006-03-08, 2006-04-14 and 2011. Each holds the parts in force
// by its date.
func TestHistory(t *testing.T) {
	h := newTest()
	man := get(t, h, "/bwb/BWBR0008326/manifest.xml").Body.String()
	var got []string
	for _, m := range regexp.MustCompile(`<datum_inwerkingtreding>([^<]+)</datum_inwerkingtreding><einddatum>([^<]+)</einddatum>`).FindAllStringSubmatch(man, -1) {
		got = append(got, m[1]+".."+m[2])
	}
	want := "1997-01-01..2001-12-31 2002-01-01..2006-03-07 2006-03-08..2006-04-13 2006-04-14..2010-12-31 2011-01-01..9999-12-31"
	if strings.Join(got, " ") != want {
		t.Fatalf("%v", got)
	}
	v1997 := get(t, h, "/bwb/BWBR0008326/1997-01-01_0/xml/BWBR0008326_1997-01-01_0.xml").Body.String()
	v2006 := get(t, h, "/bwb/BWBR0008326/2006-03-08_0/xml/BWBR0008326_2006-03-08_0.xml").Body.String()
	for _, c := range []struct {
		body, label string
		has         bool
	}{{v1997, `label="Artikel 5"`, true}, {v1997, `label="Artikel 3"`, false}, {v1997, `label="Bijlage 2"`, false},
		{v2006, `label="Artikel 3"`, true}, {v2006, `label="Artikel 1"`, false}, {v2006, `label="Bijlage 2"`, true}} {
		if strings.Contains(c.body, c.label) != c.has {
			t.Errorf("%s: has %s = %v", c.body[:200], c.label, !c.has)
		}
	}
}

func search(t *testing.T, h http.Handler, cql string, extra ...string) string {
	t.Helper()
	q := url.Values{"x-connection": {"BWB"}, "operation": {"searchRetrieve"}, "version": {"1.2"}, "query": {cql}}
	for i := 0; i+1 < len(extra); i += 2 {
		q.Set(extra[i], extra[i+1])
	}
	rec := get(t, h, "/sru/Search?"+q.Encode())
	if rec.Code != 200 {
		t.Fatalf("%s: %d", cql, rec.Code)
	}
	return rec.Body.String()
}

func count(body string) string {
	m := regexp.MustCompile(`<sru:numberOfRecords>(\d+)<`).FindStringSubmatch(body)
	if m == nil {
		return "?"
	}
	return m[1]
}

func TestSearch(t *testing.T) {
	h := newTest()
	for cql, want := range map[string]string{
		`overheidbwb.titel all "regeling belastingcapaciteit"`:                                                       "5", // a record per version
		`overheidbwb.titel all "belastingcapaciteit" and overheidbwb.geldigheidsdatum==2003-05-01`:                   "1",
		`dcterms.type==ministeriele-regeling and overheidbwb.geldigheidsdatum==1990-01-01`:                           "1", // only the 1986 one
		`overheidbwb.titel any "kandidatenlijsten belastingcapaciteit" and overheidbwb.geldigheidsdatum==2020-01-01`: "2",
		`dcterms.type==wet`:                      "0",
		`dcterms.identifier==BWBR0003984`:        "1",
		`cql.allRecords=1`:                       "6",
		`overheidbwb.titel all "onbekendewoord"`: "0",
	} {
		if got := count(search(t, h, cql)); got != want {
			t.Errorf("%s: %s records, want %s", cql, got, want)
		}
	}
	body := search(t, h, `overheidbwb.titel all "belastingcapaciteit" and overheidbwb.geldigheidsdatum==2003-05-01`)
	for _, want := range []string{"<dcterms:identifier>BWBR0008326</dcterms:identifier>", "<overheidbwb:geldigheidsperiode_startdatum>2002-01-01<",
		"<overheidbwb:geldigheidsperiode_einddatum>2006-03-07<", "<overheidbwb:locatie_toestand>http://emulator.test/bwb/BWBR0008326/2002-01-01_0/xml/BWBR0008326_2002-01-01_0.xml<",
		`xmlns:sru="http://www.loc.gov/zing/srw/"`} {
		if !strings.Contains(body, want) {
			t.Errorf("record lacks %s:\n%s", want, body)
		}
	}
	// Paging.
	page := search(t, h, `cql.allRecords=1`, "startRecord", "2", "maximumRecords", "2")
	if strings.Count(page, "<sru:record>") != 2 || !strings.Contains(page, "<sru:nextRecordPosition>4<") {
		t.Fatal(page)
	}
	// Diagnostics: an index it does not know, a relation an index does
	// not take, a date that is none, a broken query, a start past the end.
	for cql, code := range map[string]string{`overheidbwb.tekst all "x"`: "16", `dcterms.type any wet`: "19",
		`overheidbwb.geldigheidsdatum==gisteren`: "36", `overheidbwb.titel all "x`: "10", `dcterms.type==wet or dcterms.type==AMvB`: "10"} {
		if b := search(t, h, cql); !strings.Contains(b, "info:srw/diagnostic/1/"+code+"<") {
			t.Errorf("%s: %s", cql, b)
		}
	}
	if b := search(t, h, `cql.allRecords=1`, "startRecord", "99"); !strings.Contains(b, "diagnostic/1/61<") {
		t.Error(b)
	}
}

func TestNotFound(t *testing.T) {
	h := newTest()
	for _, p := range []string{"/bwb/BWBR0000001/manifest.xml", "/bwb/BWBR0008326/1990-01-01_0/xml/BWBR0008326_1990-01-01_0.xml", "/bwb/BWBR0008326", "/elders"} {
		if rec := get(t, h, p); rec.Code != 404 {
			t.Errorf("%s: %d", p, rec.Code)
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/sru/Search", nil))
	if rec.Code != 405 {
		t.Fatal(rec.Code)
	}
}
