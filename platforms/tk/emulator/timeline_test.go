package emulator

import (
	"encoding/json"
	"net/url"
	"testing"
)

// A Besluit without votes (Ingediend) expands its Stemming to an empty
// list, and its single-valued Agendapunt to its one agendapunt: an
// expansion holds the navigation's own rows, never the whole set.
func TestExpandOfNoRowsIsEmpty(t *testing.T) {
	code, body, _ := get(t, "/OData/v4/2.0/Besluit?$filter="+url.QueryEscape("BesluitSoort eq 'Ingediend'")+"&$expand=Stemming,Zaak($select=Id)&$top=3&$orderby=Id")
	if code != 200 {
		t.Fatalf("%d %.300s", code, body)
	}
	var env struct {
		Value []struct {
			Stemming []json.RawMessage
			Zaak     []json.RawMessage
		}
	}
	if err := json.Unmarshal(body, &env); err != nil || len(env.Value) == 0 {
		t.Fatalf("%v %.300s", err, body)
	}
	for _, b := range env.Value {
		if b.Stemming == nil || len(b.Stemming) != 0 || len(b.Zaak) != 1 {
			t.Fatalf("Ingediend: %d votes, %d zaken", len(b.Stemming), len(b.Zaak))
		}
	}
}
