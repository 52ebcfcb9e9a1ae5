package bwb

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	emu "github.com/besluitbron/besluitbron/platforms/bwb/emulator"
)

// emuGet sends the adapter's requests to the emulator, as the route
// would, classifying a 404 as the route does.
func emuGet(h http.Handler, log *[]string) func(adapters.Request) ([]byte, error) {
	return func(r adapters.Request) ([]byte, error) {
		*log = append(*log, r.Path)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(r.Method, "http://repository.test"+r.Path, nil))
		if rec.Code != http.StatusOK {
			return nil, adapters.Classify("bwb", rec.Code, false, 0, false, rec.Body.Bytes())
		}
		return rec.Body.Bytes(), nil
	}
}

// In force on a date, against the emulator's history of Regeling
// belastingcapaciteit (five versions, 1997 to 2011).
func TestPointInTimeAgainstTheEmulator(t *testing.T) {
	var calls []string
	get := emuGet(emu.New(emu.Config{}), &calls)
	for date, want := range map[string]string{"1997-06-01": "1997-01-01_0", "2003-05-01": "2002-01-01_0", "2006-03-31": "2006-03-08_0",
		"2010-12-31": "2006-04-14_0", "2024-01-01": "2011-01-01_0", "": "2011-01-01_0"} {
		law, err := Fetch(get, FetchParams{ID: "BWBR0008326", Date: date}, "2026-12-01")
		if err != nil || law.Version.Label != want || law.Document.Meta["version"] != want {
			t.Errorf("%s: %+v %v", date, law.Version, err)
		}
	}
	// Article 3 came in force on 2006-03-08: there from then on, named
	// with the publication it came from.
	law, err := Fetch(get, FetchParams{ID: "BWBR0008326", Date: "2007-01-01", Article: "3"}, "2026-12-01")
	if err != nil || law.Part.Label != "Artikel 3" || len(law.Sources) != 1 || law.Sources[0].OBID != "stcrt-2006-45-p12-SC74024" ||
		law.Document.Meta["in_force_from"] != "2006-04-14" || law.Document.Meta["in_force_until"] != "2010-12-31" {
		t.Fatalf("%+v %v", law, err)
	}
	_, err = Fetch(get, FetchParams{ID: "BWBR0008326", Date: "2003-05-01", Article: "3"}, "2026-12-01")
	var pe *PartError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "version 2002-01-01") || !strings.Contains(err.Error(), "it has: 5, 6") {
		t.Fatalf("%v", err)
	}
	// Before the regulation existed: refused after the manifest alone.
	calls = nil
	var de *DateError
	if _, err := Fetch(get, FetchParams{ID: "BWBR0008326", Date: "1996-12-31"}, "2026-12-01"); !errors.As(err, &de) || len(calls) != 1 {
		t.Fatalf("%v %v", err, calls)
	}
	if _, err := Fetch(get, FetchParams{ID: "BWBR0000001"}, "2026-12-01"); !errors.Is(err, adapters.ErrNoDocument) {
		t.Fatalf("%v", err)
	}
	// The search finds the version in force on the day asked.
	r, _ := SearchRequest(SearchParams{Words: "belastingcapaciteit", InForceOn: "2003-05-01", Limit: 10})
	body, err := get(r)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParseSearch(body)
	if err != nil || len(p.Hits) != 1 || p.Hits[0].Date != "2002-01-01" || p.Hits[0].Snippet != "In force from 2002-01-01 until 2006-03-07" {
		t.Fatalf("%+v %v", p, err)
	}
}
