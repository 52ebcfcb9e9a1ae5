package cvdr

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	emu "github.com/besluitbron/besluitbron/platforms/cvdr/emulator"
)

// The adapter's requests against the emulator: a search in force on a
// day, and a fetch of what it found, in both identifier forms.
func TestAgainstTheEmulator(t *testing.T) {
	h := emu.New()
	get := func(r adapters.Request) ([]byte, error) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(r.Method, "http://cvdr.test"+r.Path, nil))
		if rec.Code != http.StatusOK {
			return nil, adapters.Classify("cvdr", rec.Code, false, 0, false, rec.Body.Bytes())
		}
		return rec.Body.Bytes(), nil
	}
	for on, want := range map[string]string{"2012-01-01": "112779_1", "2020-01-01": "CVDR100394_2"} {
		r, err := SearchRequest(SearchParams{Organisation: map[string]string{"112779_1": "Spijkenisse", "CVDR100394_2": "Kampen"}[want], InForceOn: on, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		body, err := get(r)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ParseSearch(body, on)
		if err != nil || len(p.Hits) != 1 || p.Hits[0].ID != want {
			t.Fatalf("%s: %+v %v", on, p, err)
		}
		d, err := Fetch(get, p.Hits[0].ID)
		if err != nil || d.ID != want {
			t.Fatalf("%s: %+v %v", want, d, err)
		}
	}
	// Kampen's rules did not exist yet in 2012.
	r, _ := SearchRequest(SearchParams{Organisation: "Kampen", InForceOn: "2012-01-01", Limit: 10})
	body, _ := get(r)
	if p, err := ParseSearch(body, "2012-01-01"); err != nil || len(p.Hits) != 0 {
		t.Fatalf("%+v %v", p, err)
	}
}
