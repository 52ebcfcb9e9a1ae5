package emulator

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

// Navigation in $filter: any/all with a range variable, one level deep,
// and paths through single-valued navigation properties.
func TestFilterNavigation(t *testing.T) {
	ok := []string{
		"Zaak/any(z:z/Nummer eq '2022Z17826')",
		"Verwijderd eq false and startswith(BesluitSoort,'Stemmen') and Zaak/any(z:z/Verwijderd eq false and (contains(z/Titel,'a') or contains(z/Onderwerp,'a')))",
		"Zaak/any(z:z/Id eq 28e3a47e-4602-4f9d-b051-4c5c3e05b0d8 or z/Id eq 28e3a47e-4602-4f9d-b051-4c5c3e05b0d9)",
		"Agendapunt/Activiteit/Datum ge 2024-01-01T00:00:00+01:00 and Agendapunt/Activiteit/Datum lt 2025-01-01T00:00:00+01:00",
		"Zaak/any()",
		"Stemming/all(s:s/Vergissing eq false)",
		"Zaak/any(z:z/Nummer eq 'a') and Stemming/any(s:s/Soort eq 'Voor')",
	}
	for _, s := range ok {
		if _, err := parseFilterIn(s, tBesluit, odataV4); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	bad := map[string]string{
		"Zaak/any(z:z/Kamerstukdossier/any(k:k/Nummer eq 1))": "nesting limit",
		"Zaak/Nummer eq 'x'":                     "not a single value",
		"Agendapunt/any(a:a/Nummer eq 'x')":      "collection-valued",
		"Zaak/any(z:z/Bogus eq 1)":               "Could not find a property named 'Bogus'",
		"z/Nummer eq 'x'":                        "Could not find a property named 'z'",
		"Zaak/any(z:z/Nummer)":                   "single boolean",
		"Zaak/any(z z/Nummer eq 'x')":            "range variable and ':'",
		"Stemming/all()":                         "requires a lambda",
		"Agendapunt/Activiteit/Bogus eq 1":       "Could not find a property named 'Bogus'",
		"Zaak/any(z:z/Nummer eq 'x') eq true or": "expression expected",
	}
	for s, want := range bad {
		if _, err := parseFilterIn(s, tBesluit, odataV4); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", s, err, want)
		}
	}
}

// A vote request as tk_votes sends it: the lambda picks the zaak's
// decision, the path orders by voting day.
func TestFilterNavigationServed(t *testing.T) {
	h := New(Config{Seed: 1, Clock: fakeclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))})
	get := func(q string) []map[string]any {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "http://x/OData/v4/2.0/Besluit?"+q, nil))
		if rec.Code != 200 {
			t.Fatalf("%s: %d %s", q, rec.Code, rec.Body)
		}
		var env struct{ Value []map[string]any }
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
			t.Fatal(err)
		}
		return env.Value
	}
	f := url.QueryEscape
	all := get("$filter=" + f("startswith(BesluitSoort,'Stemmen') and Agendapunt/Activiteit/Datum ge 2025-01-01T00:00:00+01:00") +
		"&$expand=Zaak,Agendapunt($expand=Activiteit)&$orderby=" + f("Agendapunt/Activiteit/Datum desc,Id desc") + "&$top=20")
	if len(all) < 2 {
		t.Fatalf("%d decisions", len(all))
	}
	prev := "9999"
	for _, b := range all {
		d := b["Agendapunt"].(map[string]any)["Activiteit"].(map[string]any)["Datum"].(string)
		if d > prev || d < "2025-01-01" {
			t.Fatalf("order or bound: %s after %s", d, prev)
		}
		prev = d
	}
	nummer := all[3%len(all)]["Zaak"].([]any)[0].(map[string]any)["Nummer"].(string)
	one := get("$filter=" + f("Zaak/any(z:z/Nummer eq '"+nummer+"')") + "&$expand=Zaak")
	if len(one) != 1 || one[0]["Zaak"].([]any)[0].(map[string]any)["Nummer"] != nummer {
		t.Fatalf("by zaak %s: %v", nummer, one)
	}
	if none := get("$filter=" + f("Zaak/any(z:z/Nummer eq '1999Z00000')")); len(none) != 0 {
		t.Fatalf("unknown zaak: %v", none)
	}
}
