package livecheck

import (
	"bytes"
	"mime/multipart"
	"slices"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/ob"
	"github.com/besluitbron/besluitbron/adapters/obv"
	"github.com/besluitbron/besluitbron/adapters/rechtspraak"
	"github.com/besluitbron/besluitbron/caddymodule/platforms"
	"github.com/besluitbron/besluitbron/internal/shape"
)

// Platforms are the platform keys the check knows, in report order: the
// table's (Probes has one probe for each, a test holds it to that).
var Platforms = platforms.Keys()

// Sample is a real payload file an answer is held against, with the
// options its emulator's test uses for the same file.
type Sample struct {
	File string // name under the fixtures directory's <platform>/ folder
	Opts []shape.Option
}

// Probe is the one tiny request the check sends to a platform.
type Probe struct {
	Platform string
	Name     string // short name of what is asked, used for saved files
	Request  adapters.Request
	// Samples are real payloads the answer must match (one way: every
	// path a sample has). Empty when no real sample exists.
	Samples []Sample
	// Documented is the shape the platform's documentation or code gives,
	// used when there is no sample; DocSource names it.
	Documented []byte
	DocSource  string
	// Ext is the file extension a saved answer gets.
	Ext string
}

// Basis says what the answer's shape is checked against.
func (p Probe) Basis() string {
	switch {
	case len(p.Samples) > 0:
		return "real sample"
	case p.Documented != nil:
		return "documentation (" + p.DocSource + ")"
	}
	return "nothing (" + p.DocSource + ")"
}

// Config chooses the probes' parameters.
type Config struct {
	// TKRoot is the Tweede Kamer OData root below the platform's base URL
	// (default /OData/v5, the new version's probable root; /OData/v4/2.0
	// was closed on 2026-10-01).
	TKRoot string
	// OBID is the publication the OB probe looks up (default
	// gmb-2023-174296, the one real search record we hold, so the live
	// record can be set beside it field by field).
	OBID string
}

// DefaultTKRoot and DefaultOBID are Config's defaults.
const (
	DefaultTKRoot = "/OData/v5"
	DefaultOBID   = "gmb-2023-174296"
)

// DocumentedOpenTKSearch is tkconv's /search answer as its code writes it
// (berthubert/tkconv tkserv.cc: nummer, datum, score, category, onderwerp,
// snip, relurl, bijgewerkt, persoonnummer, and milliseconds). No recorded
// answer exists.
var DocumentedOpenTKSearch = []byte(`{"results":[{"nummer":"2023D41173","datum":"2023-10-12T00:00:00","score":-7.5,
"category":"Document","onderwerp":"o","snip":"...<b>x</b>...","relurl":"get/2023D41173",
"bijgewerkt":"2023-10-12T10:00:00Z","persoonnummer":-1}],"milliseconds":1.5}`)

// DocumentedElasticEnvelope is the Elasticsearch 7 _search envelope (the
// Elasticsearch reference, "Search API" response body) that an
// ORI-compatible index answers; what _source holds depends on the index,
// so only the envelope is checked.
var DocumentedElasticEnvelope = []byte(`{"took":3,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},
"hits":{"total":{"value":1,"relation":"eq"},"max_score":1.5,"hits":[{"_index":"ori_x","_id":"1","_score":1.5,"_source":{}}]}}`)

// Probes returns one probe per platform, in Platforms order. The OBV, OB
// and Rechtspraak requests come from the same adapter functions the MCP
// tools use; the others are written out (their adapters are shaped around
// entity sets and options a one-row probe does not need).
func Probes(cfg Config) ([]Probe, error) {
	if cfg.TKRoot == "" {
		cfg.TKRoot = DefaultTKRoot
	}
	if cfg.OBID == "" {
		cfg.OBID = DefaultOBID
	}
	obvReq, err := obv.SearchRequest(obv.SearchParams{Query: "begroting", EntityType: "Document", Limit: 1})
	if err != nil {
		return nil, err
	}
	obReq, err := ob.LookupRequest(cfg.OBID)
	if err != nil {
		return nil, err
	}
	rsReq, err := rechtspraak.SearchRequest(rechtspraak.SearchParams{Sort: "DESC", Limit: 1})
	if err != nil {
		return nil, err
	}
	ps := []Probe{
		{Platform: "obv", Name: "search", Request: obvReq, Ext: "json",
			// Options as in caddymodule/emulators/obv's TestSearch.
			Samples: []Sample{{File: "search.json"}}},
		{Platform: "tk", Name: "fractie", Ext: "json",
			Request: adapters.Get(cfg.TKRoot+"/Fractie", map[string][]string{"$top": {"1"}}),
			// Options as in caddymodule/emulators/tk's fixture test: the
			// sample's AantalZetels is null.
			Samples: []Sample{{File: "odata-fractie.json", Opts: []shape.Option{shape.NullOK()}}}},
		{Platform: "opentk", Name: "search", Ext: "json", Request: openTKSearch("stikstof"),
			Documented: DocumentedOpenTKSearch, DocSource: "tkconv tkserv.cc"},
		{Platform: "ob", Name: "record", Request: obReq, Ext: "xml",
			// Options as in caddymodule/emulators/ob's TestSearchRecordShape:
			// the samples were saved without namespaces and without the
			// searchRetrieveResponse envelope.
			Samples: []Sample{
				{File: "sru-record-gmb.fragment.xml", Opts: []shape.Option{shape.IgnoreNamespaces(), shape.Anywhere()}},
				{File: "sru-enricheddata.fragment.xml", Opts: []shape.Option{shape.IgnoreNamespaces(), shape.Anywhere()}},
			}},
		{Platform: "rechtspraak", Name: "zoeken", Request: rsReq, Ext: "xml",
			Samples: []Sample{{File: "zoeken.atom.xml"}}},
		{Platform: "ori", Name: "search", Ext: "json",
			Request:    adapters.Get("/_search", map[string][]string{"size": {"1"}}),
			Documented: DocumentedElasticEnvelope, DocSource: "Elasticsearch 7 search API; no ORI sample"},
		{Platform: "oa", Name: "search", Ext: "json",
			Request:   adapters.Get("/api/v1/search", map[string][]string{"q": {"woo"}, "per_page": {"1"}}),
			DocSource: "API assumed: no public description or payload exists"},
	}
	slices.SortStableFunc(ps, func(a, b Probe) int {
		return slices.Index(Platforms, a.Platform) - slices.Index(Platforms, b.Platform)
	})
	return ps, nil
}

// openTKSearch is tkconv's POST /search as its own search page sends it
// (and adapters/opentk): a multipart form with q, twomonths and
// soorten. twomonths keeps the platform's work small.
func openTKSearch(q string) adapters.Request {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	_ = w.WriteField("q", q)
	_ = w.WriteField("twomonths", "true")
	_ = w.WriteField("soorten", "alles")
	_ = w.Close()
	return adapters.Request{Method: "POST", Path: "/search", Body: buf.Bytes(), ContentType: w.FormDataContentType()}
}
