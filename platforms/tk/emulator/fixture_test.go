package emulator

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/shape"
)

// The emulator's answers are held against the real samples in fixtures/tk
// in both directions (shape.Exact): an answer must carry every field of the
// sample and nothing the sample lacks, unless the platform's documentation
// names it (shape.Allow, with the source).
//
// Only v4 has real samples. v5's shapes rest on one third-party client's
// migration (docs/emulators.md, Tweede Kamer), so each v5 answer is held
// against the same v4 sample with exactly the renames that client reports
// applied to it (v5Renames): v5 may differ from v4 in nothing else.

// odataVersion is one OData root under test and how a v4 sample becomes
// what that version must answer.
type odataVersion struct {
	name, root string
	maxTop     int
	// sample turns a real v4 sample into the shape this version answers.
	sample func(t *testing.T, v4 []byte) []byte
}

var odataVersions = []odataVersion{
	{"v4", RootV4, MaxTop, func(_ *testing.T, b []byte) []byte { return b }},
	{"v5", RootV5, MaxTopV5, v5Sample},
}

// v5Renames are the Document renames the third-party client made when it
// moved to v5 (public client configurations). They are written out here, apart from the
// emulator's own table in version.go, so that a rename the emulator adds
// beyond the report fails these tests. "" means dropped.
var v5Renames = map[string]string{
	"DocumentNummer":   "Nummer",
	"Volgnummer":       "Ondernummer",
	"DatumRegistratie": "",
}

// v5Sample applies v5Renames to every Document object of a v4 sample (the
// objects under a "Document" key; a standalone Document answer is derived
// from those). Zaak also has Nummer and Volgnummer: they stay.
func v5Sample(t *testing.T, v4 []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(v4, &v); err != nil {
		t.Fatalf("sample: %v", err)
	}
	var walk func(v any, doc bool)
	walk = func(v any, doc bool) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e, doc)
			}
		case map[string]any:
			if doc {
				for from, to := range v5Renames {
					if val, ok := x[from]; ok {
						delete(x, from)
						if to != "" {
							x[to] = val
						}
					}
				}
			}
			for k, c := range x {
				walk(c, k == "Document")
			}
		}
	}
	walk(v, false)
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// docVersionID is Document.HuidigeDocumentVersie_Id: no sample carries it
// (the recorded Besluit answers select their Document fields), but the
// Kamer's documentation of Document lists it
// (opendata.tweedekamer.nl/documentatie/document, platforms.md §3).
const docVersionID = "HuidigeDocumentVersie_Id"

// The envelopes of Fractie, FractieZetel, FractieZetelPersoon and Persoon
// are held against the real one-item responses, in both versions.
func TestFixtureEnvelopes(t *testing.T) {
	cases := []struct {
		fixture, target string
		opts            []shape.Option
	}{
		{"odata-fractie.json", "/Fractie?$filter=" + q("DatumInactief ne null"), nil},
		{"odata-fractiezetel.json", "/FractieZetel", nil},
		{"odata-fractiezetelpersoon.json", "/FractieZetelPersoon?$filter=" + q("TotEnMet ne null"), nil},
		// Titels is null for most members, as in the real data
		{"odata-persoon.json", "/Persoon?$filter=" + q("Verwijderd eq false and Functie eq 'Tweede Kamerlid' and Titels ne null"), nil},
		{"odata-persoon.json", "/Persoon?$filter=" + q("Verwijderd eq false and Functie eq 'Tweede Kamerlid'"), []shape.Option{shape.NullOK()}},
	}
	for _, v := range odataVersions {
		for _, c := range cases {
			t.Run(v.name+"/"+c.fixture, func(t *testing.T) {
				code, body, hdr := get(t, v.root+c.target)
				mustOK(t, code, body)
				if !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
					t.Errorf("Content-Type %q", hdr.Get("Content-Type"))
				}
				// v5 pages by 100, so some of these sets end in a nextLink:
				// a real envelope field (odata-besluit-nextlink.json).
				opts := append(c.opts[:len(c.opts):len(c.opts)], shape.Allow("@odata.nextLink"))
				shape.Exact(t, body, v.sample(t, readFixture(t, c.fixture)), opts...)
				if e := decodeEnv(t, body); len(e.Value) == 0 {
					t.Fatal("empty value")
				}
			})
		}
	}
}

// odata-fractie-value-items.json is a fragment: the value array only.
func TestFixtureFractieValueItems(t *testing.T) {
	for _, v := range odataVersions {
		t.Run(v.name, func(t *testing.T) {
			code, body, _ := get(t, v.root+"/Fractie?$filter="+q("DatumInactief eq null and AantalZetels gt 2"))
			mustOK(t, code, body)
			shape.Exact(t, body, v.sample(t, readFixture(t, "odata-fractie-value-items.json")), shape.At("value"))
		})
	}
}

// the $expand of the recorded Besluit answers
const besluitExpand = "Zaak($expand=ZaakActor,Document),Stemming,Agendapunt($expand=Activiteit)"

// The Besluit fixtures hold nested Zaak (with ZaakActor and Document),
// Stemming and Agendapunt (with Activiteit) objects: all are emulated.
func TestFixtureBesluit(t *testing.T) {
	for _, v := range odataVersions {
		t.Run(v.name, func(t *testing.T) {
			opts := []shape.Option{shape.Allow("value[].Zaak[].Document[]." + docVersionID)}
			if v.root == RootV5 {
				// v5's other default order puts each Zaak's voortouwcommissie
				// ZaakActor first, whose person and fractie fields are null
				// (the samples show only indieners, but their Commissie_Id
				// field shows an actor can be a commissie).
				opts = append(opts, shape.NullOK())
			}
			code, body, _ := get(t, v.root+"/Besluit?$filter="+q("StemmingsSoort eq 'Met handopsteken' and BesluitSoort ne 'Ingediend'")+"&$expand="+q(besluitExpand)+"&$top=5")
			mustOK(t, code, body)
			shape.Exact(t, body, v.sample(t, readFixture(t, "odata-besluit-expand.json")), opts...)

			// without $top the page is capped and ends in @odata.nextLink
			code, body, _ = get(t, v.root+"/Besluit?$filter="+q("Verwijderd eq false and (BesluitSoort eq 'Stemmen - aangenomen' or BesluitSoort eq 'Stemmen - verworpen')")+"&$orderby="+q("GewijzigdOp asc")+"&$expand="+q(besluitExpand))
			mustOK(t, code, body)
			shape.Exact(t, body, v.sample(t, readFixture(t, "odata-besluit-nextlink.json")), opts...)
			e := decodeEnv(t, body)
			if len(e.Value) != v.maxTop {
				t.Errorf("page holds %d rows, want %d", len(e.Value), v.maxTop)
			}
			if !strings.HasPrefix(e.NextLink, "http://tk.test"+v.root+"/Besluit?$filter=Verwijderd%20eq%20false%20and%20%28BesluitSoort%20eq%20%27Stemmen") ||
				!strings.HasSuffix(e.NextLink, "&$orderby=GewijzigdOp%20asc&$expand=Zaak%28%24expand%3DZaakActor%2CDocument%29%2CStemming%2CAgendapunt%28%24expand%3DActiviteit%29&$skip="+strconv.Itoa(v.maxTop)) {
				t.Errorf("nextLink %s", e.NextLink)
			}
			if !strings.Contains(e.Context, v.root+"/$metadata#Besluit(Zaak(ZaakActor(),Document()),Stemming(),Agendapunt(Activiteit()))") {
				t.Errorf("context %s", e.Context)
			}
		})
	}
}

// Standalone Document and Zaak answers carry the fields and types of the
// objects nested in the Besluit fixtures, in the fixtures' envelope.
func TestFixtureDocumentAndZaak(t *testing.T) {
	for _, v := range odataVersions {
		for _, f := range []string{"odata-besluit-expand.json", "odata-besluit-nextlink.json"} {
			t.Run(v.name+"/"+f, func(t *testing.T) {
				var fx struct {
					Context string `json:"@odata.context"`
					Value   []struct {
						Zaak []map[string]json.RawMessage `json:"Zaak"`
					} `json:"value"`
				}
				if err := json.Unmarshal(v.sample(t, readFixture(t, f)), &fx); err != nil {
					t.Fatal(err)
				}
				zaak := fx.Value[0].Zaak[0]
				doc := zaak["Document"]
				delete(zaak, "Document")
				delete(zaak, "ZaakActor")
				zb, _ := json.Marshal(zaak)
				ctx, _ := json.Marshal(fx.Context)
				wantDocs := []byte(`{"@odata.context":` + string(ctx) + `,"value":` + string(doc) + `}`)
				wantZaak := []byte(`{"@odata.context":` + string(ctx) + `,"value":[` + string(zb) + `]}`)

				code, body, _ := get(t, v.root+"/Document?$filter="+q("Soort eq 'Motie' and Verwijderd eq false")+"&$top=3")
				mustOK(t, code, body)
				shape.Exact(t, body, wantDocs, shape.Allow("value[]."+docVersionID))
				code, body, _ = get(t, v.root+"/Zaak?$filter="+q("Soort eq 'Motie'")+"&$top=3")
				mustOK(t, code, body)
				shape.Exact(t, body, wantZaak)
			})
		}
	}
}

// The v5 check has teeth: a v4 answer fails against the v5 sample, and a
// v5 answer against the v4 sample, each naming the renamed fields.
func TestFixtureV5DiffersOnlyByRenames(t *testing.T) {
	fx := readFixture(t, "odata-besluit-expand.json")
	target := "/Besluit?$filter=" + q("StemmingsSoort eq 'Met handopsteken' and BesluitSoort ne 'Ingediend'") + "&$expand=" + q(besluitExpand) + "&$top=5"
	allow := shape.Allow("value[].Zaak[].Document[]." + docVersionID)
	_, v4, _ := get(t, RootV4+target)
	_, v5, _ := get(t, RootV5+target)
	const doc = "value[].Zaak[].Document[]."
	for _, c := range []struct {
		name      string
		got, want []byte
		probs     []string
	}{
		{"v4 answer, v5 sample", v4, v5Sample(t, fx), []string{
			doc + "Nummer: missing", doc + "Ondernummer: missing",
			doc + "DatumRegistratie: not in want", doc + "DocumentNummer: not in want", doc + "Volgnummer: not in want"}},
		{"v5 answer, v4 sample", v5, fx, []string{
			doc + "DocumentNummer: missing", doc + "Volgnummer: missing", doc + "DatumRegistratie: missing",
			doc + "Nummer: not in want", doc + "Ondernummer: not in want"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			probs := strings.Join(shape.CompareExact(c.got, c.want, allow), "\n")
			for _, p := range c.probs {
				if !strings.Contains(probs, p) {
					t.Errorf("not reported: %s\nreported:\n%s", p, probs)
				}
			}
		})
	}
}

// syncfeed-entry.fragment.xml is one entry with its namespaces stripped.
// The SyncFeed is the same for both OData versions (OpenDataPortaal issue
// 175).
func TestFixtureSyncFeedEntry(t *testing.T) {
	target := "/SyncFeed/2.0/Feed?category=FractieZetelPersoon"
	code, body, hdr := get(t, target)
	mustOK(t, code, body)
	if !strings.HasPrefix(hdr.Get("Content-Type"), "application/atom+xml") {
		t.Errorf("Content-Type %q", hdr.Get("Content-Type"))
	}
	// Every entry below the fragment's root is judged both ways; the feed
	// around it (links, namespaces) has no sample and comes from the
	// SyncFeed documentation (docs/emulators.md).
	shape.Exact(t, body, readFixture(t, "syncfeed-entry.fragment.xml"), shape.IgnoreNamespaces(), shape.Anywhere())
	// the real namespaces are there
	paths, err := shape.XMLPaths(body, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"{" + nsAtom + "}feed/{" + nsAtom + "}link/@rel",
		"{" + nsAtom + "}feed/{" + nsAtom + "}entry/{" + nsAtom + "}category/@term",
		"{" + nsAtom + "}feed/{" + nsAtom + "}entry/{" + nsAtom + "}content/{" + nsTK + "}fractieZetelPersoon/@{" + nsTK + "}bijgewerkt",
		"{" + nsAtom + "}feed/{" + nsAtom + "}entry/{" + nsAtom + "}content/{" + nsTK + "}fractieZetelPersoon/@{" + nsTK + "}verwijderd",
		"{" + nsAtom + "}feed/{" + nsAtom + "}entry/{" + nsAtom + "}content/{" + nsTK + "}fractieZetelPersoon/{" + nsTK + "}persoon/@ref",
	}
	have := strings.Join(paths, "\n")
	for _, w := range want {
		if !strings.Contains(have, w) {
			t.Errorf("missing %s", w)
		}
	}
}

// Besluit, Stemming, Agendapunt, Activiteit and ZaakActor answered on their
// own carry the fields of the objects nested in the Besluit fixtures (no
// standalone answer of these sets was recorded), and nothing else.
func TestFixtureNestedSetsStandalone(t *testing.T) {
	for _, v := range odataVersions {
		for _, f := range []string{"odata-besluit-expand.json", "odata-besluit-nextlink.json"} {
			var fx struct {
				Context string           `json:"@odata.context"`
				Value   []map[string]any `json:"value"`
			}
			if err := json.Unmarshal(v.sample(t, readFixture(t, f)), &fx); err != nil {
				t.Fatal(err)
			}
			b := fx.Value[0]
			ap := b["Agendapunt"].(map[string]any)
			za := b["Zaak"].([]any)[0].(map[string]any)["ZaakActor"]
			sets := map[string]any{
				"Besluit":    []any{without(b, "Zaak", "Stemming", "Agendapunt")},
				"Stemming":   b["Stemming"],
				"Agendapunt": []any{without(ap, "Activiteit")},
				"Activiteit": []any{ap["Activiteit"]},
				"ZaakActor":  za,
			}
			for set, rows := range sets {
				t.Run(v.name+"/"+f+"/"+set, func(t *testing.T) {
					want, err := json.Marshal(map[string]any{"@odata.context": fx.Context, "value": rows})
					if err != nil {
						t.Fatal(err)
					}
					code, body, _ := get(t, v.root+"/"+set+"?$top=3")
					mustOK(t, code, body)
					// Nullable fields are null on some rows (a fractie's
					// Stemming has no Persoon_Id, a commissie's ZaakActor
					// no person) where the first sampled row has a value.
					shape.Exact(t, body, want, shape.NullOK())
				})
			}
		}
	}
}

// without is a shallow copy of m lacking the given keys.
func without(m map[string]any, keys ...string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}
