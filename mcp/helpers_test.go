package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/platforms"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	"github.com/besluitbron/besluitbron/caddymodule/app"
	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/internal/fixture"
)

// probe is a test-only handler put in front of a platform route: it
// records which session key and internal mark each request carried.
type probe struct{ reg *session.Registry }

// Provision takes the issued sessions from the config's app, as the
// handlers that key on sessions do.
func (p *probe) Provision(ctx caddy.Context) error {
	a, err := app.Load(ctx)
	if err != nil {
		return err
	}
	p.reg = a.Sessions()
	return nil
}

// issuedRegistry returns the session registry of the running config: a
// context outside it gets an app of its own, which holds the same pooled
// registry while the running config does.
func issuedRegistry(t *testing.T) *session.Registry {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	a, err := app.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return a.Sessions()
}

var probeLog struct {
	sync.Mutex
	keys     []string
	internal []bool
}

func (probe) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.mcp_test_probe", New: func() caddy.Module { return new(probe) }}
}

func (p probe) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	_, internal := session.Internal(r.Context())
	probeLog.Lock()
	probeLog.keys = append(probeLog.keys, p.reg.Key(r))
	probeLog.internal = append(probeLog.internal, internal)
	probeLog.Unlock()
	return next.ServeHTTP(w, r)
}

func lastProbe() (string, bool) {
	probeLog.Lock()
	defer probeLog.Unlock()
	if len(probeLog.keys) == 0 {
		return "", false
	}
	return probeLog.keys[len(probeLog.keys)-1], probeLog.internal[len(probeLog.internal)-1]
}

func init() {
	caddy.RegisterModule(probe{})
	httpcaddyfile.RegisterHandlerDirective("mcp_test_probe", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		h.Next()
		return new(probe), nil
	})
}

// fakePlatforms serves the real fixture payloads, one httptest server per
// platform, and counts the requests each got.
type fakePlatforms struct {
	srv   map[string]*httptest.Server
	mu    sync.Mutex
	count map[string]int
}

func (f *fakePlatforms) hit(key string) {
	f.mu.Lock()
	f.count[key]++
	f.mu.Unlock()
}

func (f *fakePlatforms) hits(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.count[key]
}

func newFakePlatforms(t *testing.T) *fakePlatforms {
	f := &fakePlatforms{srv: map[string]*httptest.Server{}, count: map[string]int{}}
	fx := func(p, n string) []byte { return fixture.Read(t, p, n) }
	jsonOut := func(w http.ResponseWriter, status int, b []byte) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(b)
	}
	add := func(key string, h http.HandlerFunc) {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f.hit(key)
			h(w, r)
		}))
		t.Cleanup(s.Close)
		f.srv[key] = s
	}
	sources := []byte(`{"sources":[{"key":"soest","label":"Soest","supplier":"notubiz","organizationType":"gemeente","implemented":true,"isAggregate":false},{"key":"utrecht","label":"Utrecht","supplier":"ibabs","organizationType":"gemeente","implemented":true,"isAggregate":false},{"key":"provincie-utrecht","label":"Provincie Utrecht","supplier":"ibabs","organizationType":"provincie","implemented":true,"isAggregate":false}]}`)
	add("obv", func(w http.ResponseWriter, r *http.Request) {
		// What the cache and budget modules would add to an answer.
		w.Header().Set("Besluitbron-Queue-Wait", "12")
		switch p := r.URL.EscapedPath(); {
		case p == "/api/search":
			q := r.URL.Query()
			if q.Get("query") == "overbudget" {
				w.Header().Set("Retry-After", "7")
				jsonOut(w, 429, fx("obv", "error-429.json"))
				return
			}
			if q.Get("query") == "kapot" {
				jsonOut(w, 500, fx("obv", "error-500.json"))
				return
			}
			w.Header().Set("Cache-Status", "BesluitBron; fwd=uri-miss; stored")
			jsonOut(w, 200, fx("obv", "search.json"))
		case strings.HasPrefix(p, "/api/entities/"):
			id := strings.TrimPrefix(p, "/api/entities/")
			switch {
			case strings.HasPrefix(id, "document%3A"):
				w.Header().Set("Cache-Status", "BesluitBron; hit")
				jsonOut(w, 200, fx("obv", "entity-document.json"))
			case strings.HasPrefix(id, "meeting%3A"):
				jsonOut(w, 200, fx("obv", "entity-meeting.json"))
			case strings.HasPrefix(id, "motion%3A"):
				jsonOut(w, 200, fx("obv", "entity-motion.json"))
			default:
				jsonOut(w, 404, fx("obv", "error-404.json"))
			}
		case p == "/api/sources":
			w.Header().Set("Cache-Status", "BesluitBron; hit")
			jsonOut(w, 200, sources)
		case p == "/api/status":
			jsonOut(w, 200, fx("obv", "status.json"))
		default:
			jsonOut(w, 404, fx("obv", "error-404.json"))
		}
	})
	add("rechtspraak", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/xml")
		switch r.URL.Path {
		case "/uitspraken/zoeken":
			_, _ = w.Write(fx("rechtspraak", "zoeken.atom.xml"))
		case "/uitspraken/content":
			if r.URL.Query().Get("id") != "ECLI:NL:RBDHA:2013:15631" {
				http.Error(w, "not found", 404)
				return
			}
			_, _ = w.Write(fx("rechtspraak", "content.xml"))
		case "/Waardelijst/Instanties":
			_, _ = w.Write(fx("rechtspraak", "waardelijst-instanties.xml"))
		case "/Waardelijst/Rechtsgebieden":
			_, _ = w.Write(fx("rechtspraak", "waardelijst-rechtsgebieden.xml"))
		default:
			http.Error(w, "not found", 404)
		}
	})
	var docs []json.RawMessage
	var env struct {
		Value []struct {
			Zaak []struct {
				Document []json.RawMessage `json:"Document"`
			} `json:"Zaak"`
		} `json:"value"`
	}
	_ = json.Unmarshal(fx("tk", "odata-besluit-expand.json"), &env)
	for _, b := range env.Value {
		for _, z := range b.Zaak {
			docs = append(docs, z.Document...)
		}
	}
	docList, _ := json.Marshal(map[string]any{"@odata.context": "x", "@odata.count": len(docs), "value": docs})
	fractieItems := fx("tk", "odata-fractie-value-items.json")
	commissies := []byte(`{"value":[{"Id":"c1","NaamNL":"vaste commissie voor Financiën","Afkorting":"FIN","Soort":"Vast","DatumInactief":null,"Verwijderd":false}]}`)
	// $metadata lists each set's properties as the samples carry them (the
	// real documents' v4 names), so the adapter resolves them.
	tkMetadata := tkFakeMetadata(map[string][]byte{"Document": docs[0], "Fractie": fractieItems, "Commissie": commissies})
	add("tk", func(w http.ResponseWriter, r *http.Request) {
		// Any OData root: the connector's tk_odata_root decides.
		switch p := r.URL.Path; {
		case strings.HasSuffix(p, "/$metadata"):
			w.Header().Set("Content-Type", "application/xml")
			_, _ = w.Write(tkMetadata)
		case strings.HasSuffix(p, "/Document"):
			jsonOut(w, 200, docList)
		case strings.HasSuffix(p, "/Fractie"):
			jsonOut(w, 200, []byte(`{"@odata.context":"x","value":`+string(fractieItems)+`}`))
		case strings.HasSuffix(p, "/Commissie"):
			jsonOut(w, 200, commissies)
		default:
			http.Error(w, "not found", 404)
		}
	})
	add("ob", func(w http.ResponseWriter, r *http.Request) {
		rec := string(fx("ob", "sru-record-gmb.fragment.xml"))
		switch {
		case r.URL.Path == "/sru":
			_, _ = io.WriteString(w, `<searchRetrieveResponse><numberOfRecords>1</numberOfRecords><records>`+rec+`</records></searchRetrieveResponse>`)
		case strings.HasPrefix(r.URL.Path, "/frbr/"):
			_, _ = w.Write(fx("ob", "op-stb-2018-84.xml"))
		default:
			http.Error(w, "not found", 404)
		}
	})
	add("opentk", func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == "POST" && r.URL.Path == "/search":
			if r.FormValue("q") == "" {
				http.Error(w, "no q", 400)
				return
			}
			jsonOut(w, 200, []byte(`{"results":[{"nummer":"2023D41173","datum":"2023-10-12T00:00:00","category":"Brief regering","onderwerp":"Stikstof","snip":"over <b>stikstof</b>","relurl":"document.html?nummer=2023D41173"}],"milliseconds":3}`))
		case strings.HasPrefix(r.URL.Path, "/getdoc/"):
			_, _ = io.WriteString(w, "<html><head><title>Brief over stikstof</title></head><body><p>"+strings.Repeat("Stikstof en natuur. ", 1000)+"</p></body></html>")
		default:
			http.Error(w, "not found", 404)
		}
	})
	add("ori", func(w http.ResponseWriter, r *http.Request) {
		jsonOut(w, 200, []byte(`{"hits":{"total":{"value":1,"relation":"eq"},"hits":[{"_index":"ori_alkmaar_1","_id":"42","_source":{"name":"Raadsvoorstel","last_discussed_at":"2019-05-07T00:00:00","has_organization_name":"Alkmaar","md_text":"Volledige tekst."}}]}}`))
	})
	add("oa", func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/api/v1/search":
			jsonOut(w, 200, []byte(`{"total":1,"page":1,"per_page":10,"results":[{"id":"utrecht-000001","title":"Woo-besluit","body_name":"Utrecht","document_date":"2024-01-02","snippet":"x","url":"/api/v1/documents/utrecht-000001"}]}`))
		case r.URL.Path == "/api/v1/documents/utrecht-000001":
			jsonOut(w, 200, []byte(`{"id":"utrecht-000001","title":"Woo-besluit","document_date":"2024-01-02","body":{"key":"utrecht","name":"Utrecht"},"source_url":"https://utrecht.example/1.pdf"}`))
		case r.URL.Path == "/api/v1/documents/utrecht-000001/text":
			jsonOut(w, 200, []byte(`{"id":"utrecht-000001","page":1,"pages":2,"text":"Eerste pagina.","next":"x"}`))
		default:
			http.Error(w, `{"error":{"code":"not_found","message":"weg"}}`, 404)
		}
	})
	return f
}

// tkFakeMetadata writes a $metadata document whose entity types have the
// keys of one sample item each (an object, an array or an envelope).
func tkFakeMetadata(samples map[string][]byte) []byte {
	var sb strings.Builder
	sb.WriteString(`<?xml version="1.0" encoding="utf-8"?><edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices><Schema Namespace="TK.DA.GGM.OData" xmlns="http://docs.oasis-open.org/odata/ns/edm">`)
	for set, b := range samples {
		var item map[string]any
		var env struct {
			Value []map[string]any `json:"value"`
		}
		var arr []map[string]any
		switch {
		case json.Unmarshal(b, &env) == nil && len(env.Value) > 0:
			item = env.Value[0]
		case json.Unmarshal(b, &arr) == nil && len(arr) > 0:
			item = arr[0]
		default:
			_ = json.Unmarshal(b, &item)
		}
		fmt.Fprintf(&sb, `<EntityType Name="%s">`, set)
		for k := range item {
			fmt.Fprintf(&sb, `<Property Name="%s" Type="Edm.String"/>`, k)
		}
		sb.WriteString(`</EntityType>`)
	}
	sb.WriteString(`</Schema></edmx:DataServices></edmx:Edmx>`)
	return []byte(sb.String())
}

func (f *fakePlatforms) addr(key string) string {
	return strings.TrimPrefix(f.srv[key].URL, "http://")
}

// routes writes the platform routes, each to its upstream address.
func routes(upstreams map[string]string, probeOn bool) string {
	var sb strings.Builder
	for _, key := range platforms.Keys() {
		up, ok := upstreams[key]
		if !ok {
			continue
		}
		fmt.Fprintf(&sb, "\troute /platforms/%s/* {\n", key)
		if probeOn {
			sb.WriteString("\t\tmcp_test_probe\n")
		}
		fmt.Fprintf(&sb, "\t\turi strip_prefix /platforms/%s\n\t\treverse_proxy %s {\n\t\t\theader_up Host {upstream_hostport}\n\t\t}\n\t}\n", key, up)
	}
	return sb.String()
}

// connect opens an MCP client; legacy picks the 2025-11-25 era.
func connect(t testing.TB, url string, legacy bool, headers map[string]string) *client.Client {
	return connectWith(t, url, legacy, headers, nil)
}

func connectWith(t testing.TB, url string, legacy bool, headers map[string]string, hc *http.Client) *client.Client {
	t.Helper()
	topts := []transport.StreamableHTTPCOption{transport.WithHTTPHeaders(headers)}
	if hc != nil {
		topts = append(topts, transport.WithHTTPBasicClient(hc))
	}
	tr, err := transport.NewStreamableHTTP(url, topts...)
	if err != nil {
		t.Fatal(err)
	}
	var opts []client.ClientOption
	if legacy {
		opts = append(opts, client.WithProtocolVersion(mcpgo.ProtocolVersion20251125))
	}
	c := client.NewClient(tr, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := mcpgo.InitializeRequest{}
	req.Params.ClientInfo = mcpgo.Implementation{Name: "besluitbron-test", Version: "1"}
	req.Params.ProtocolVersion = mcpgo.ProtocolVersion20251125
	if !legacy {
		req.Params.ProtocolVersion = mcpgo.LATEST_PROTOCOL_VERSION
	}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// hangBound bounds a test's MCP call so that a hang fails the test
// rather than the whole run. It is no measure of speed: a first call may
// build an emulator's data (the TK emulator takes about 7 s of it under
// -race), and CI runs several packages at once on 2 cores, where a 20 s
// bound cut tk_search's first call.
const hangBound = 2 * time.Minute

// callTool calls a tool and returns its text and isError.
func callTool(t *testing.T, c *client.Client, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var sb strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(mcpgo.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	if !res.IsError {
		checkStructured(t, name, sb.String(), res.StructuredContent)
	}
	return sb.String(), res.IsError
}

// checkStructured holds a tool result to its output schema: the
// structuredContent is there, validates against the schema the tool
// advertises (from the tool table), and says what the text says.
func checkStructured(t *testing.T, name, text string, sc any) {
	t.Helper()
	if sc == nil {
		t.Fatalf("%s: no structuredContent beside the text", name)
	}
	var spec *toolSpec
	for _, s := range allSpecs() {
		if s.tool.Name == name {
			spec = &s
		}
	}
	if spec == nil {
		t.Fatalf("%s is not in the tool table", name)
	}
	raw, err := json.Marshal(spec.tool.OutputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatalf("%s output schema: %v", name, err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatalf("%s output schema: %v", name, err)
	}
	var fromText, fromStruct any
	b, _ := json.Marshal(sc)
	if err := json.Unmarshal(b, &fromStruct); err != nil {
		t.Fatalf("%s structuredContent: %v", name, err)
	}
	if err := resolved.Validate(fromStruct); err != nil {
		t.Fatalf("%s: structuredContent does not match the output schema: %v\n%s", name, err, b)
	}
	if err := json.Unmarshal([]byte(text), &fromText); err != nil || !reflect.DeepEqual(fromText, fromStruct) {
		t.Fatalf("%s: text and structuredContent differ:\n%s\n%s", name, text, b)
	}
}

func decodeResult(t *testing.T, text string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, text)
	}
	return m
}

func fixturesPresent(t *testing.T) {
	if _, err := os.Stat(fixture.Dir()); err != nil {
		t.Fatalf("fixtures not present at %s (testdata/fixtures is part of the repository)", fixture.Dir())
	}
}

func newTransport(url string, hc *http.Client) (*transport.StreamableHTTP, error) {
	return transport.NewStreamableHTTP(url, transport.WithHTTPBasicClient(hc))
}
