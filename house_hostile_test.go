package besluitbron

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/refcheck"
)

// hostileValid is a reference each platform takes: the corpus
// (refcheck.Hostile) is built around it.
var hostileValid = map[string]string{
	"obv": "document:notubiz:gemeente:soest:12345", "tk": "2023D41173", "opentk": "2023D41173",
	"ob": "kst-26100-1", "rechtspraak": "ECLI:NL:HR:2014:952", "bwb": "BWBR0005537",
	"cvdr": "CVDR100394_2", "ori": "12345", "oa": "nl.gm0344.doc.1",
}

// hostileFetch is each platform's fetch tool and the argument that takes
// the reference.
var hostileFetch = map[string][2]string{
	"obv": {"obv_fetch", "id"}, "tk": {"tk_fetch", "id"}, "opentk": {"opentk_fetch", "id"},
	"ob": {"ob_fetch", "id"}, "rechtspraak": {"rechtspraak_fetch", "ecli"}, "bwb": {"bwb_fetch", "id"},
	"cvdr": {"cvdr_fetch", "id"}, "ori": {"ori_fetch", "id"}, "oa": {"oa_fetch", "id"},
}

// No id of the traversal corpus makes a request leave its platform, or
// reach a platform at all: every platform's reader, fetch tool, resource
// template, the prompt that takes a document and the completions refuse
// each one (400 naming it on the page, -32602 naming it for a resource,
// an isError result naming it for a tool), and the emulators and the
// budgets count nothing while they do.
func TestHostileIDsReachNoPlatform(t *testing.T) {
	proxy, emulators := offlineHouseEdited(t, func(caddyfile string) string {
		// The page's and the connectors' inbound limits are not what is
		// under test here, and the corpus is larger than they allow.
		caddyfile = strings.Replace(caddyfile, "address 10/m 20", "address 100000/s 100000", 1)
		caddyfile = strings.Replace(caddyfile, "connector 120/m 60", "connector 100000/s 100000", 1)
		// One connector that offers every platform, opt-ins included.
		return strings.Replace(caddyfile, "\thandle /mcp/alles {", `	handle /mcp/every {
		mcp every {
			platforms obv tk opentk ob rechtspraak bwb cvdr ori oa
			experimental_oa
		}
	}
	handle /mcp/alles {`, 1)
	})
	admin := "http://" + os.Getenv("BESLUITBRON_ADMIN")
	c := newRPCClient(t, proxy+"/mcp/every")
	templates := resourceTemplates(t, c)

	beforeSeen := emulatorPaths(t, emulators)
	beforeBudget := budgetAdmitted(t, admin)
	tried := map[string]int{}

	for platform, valid := range hostileValid {
		for _, id := range refcheck.Hostile(valid) {
			// The fetch tool.
			tool := hostileFetch[platform]
			args := map[string]any{tool[1]: id}
			if platform == "opentk" {
				args["category"] = "Document"
			}
			var res struct {
				IsError bool `json:"isError"`
				Content []struct{ Text string }
			}
			if rerr := c.call("tools/call", map[string]any{"name": tool[0], "arguments": args}, &res); rerr != nil {
				t.Errorf("%s %q: JSON-RPC error %v, want an isError result", tool[0], id, rerr)
			} else if !res.IsError || len(res.Content) == 0 || !refcheck.NamesID(res.Content[0].Text, id) {
				t.Errorf("%s %q: %+v, want an isError result naming the id", tool[0], id, res)
			}
			tried[platform+" tool"]++

			// The resource template, its reference variable filled with
			// the id percent-encoded as RFC 6570 expands a simple variable
			// (so the template matches and the id is judged), as the
			// issue's reproduction wrote it. OpenTK's category is a known
			// word.
			for _, tpl := range templates[platform] {
				vars := map[string]string{}
				uri := tpl
				for _, v := range templateVars(tpl) {
					switch v {
					case adapters.PageVar, "date", "article":
					case "category":
						vars[v] = "Document"
						uri = strings.Replace(uri, "{"+v+"}", "Document", 1)
					default:
						vars[v] = id
						uri = strings.Replace(uri, "{"+v+"}", escapeReserved(id), 1)
					}
				}
				if i := strings.Index(uri, "{"); i >= 0 {
					uri = uri[:i] // the optional query variables left out
				}
				rerr := c.call("resources/read", map[string]any{"uri": uri}, nil)
				if rerr == nil || rerr.Code != -32602 || !(refcheck.NamesID(rerr.Message+" "+string(rerr.Data), id) || strings.Contains(string(rerr.Data), uri)) {
					t.Errorf("resources/read %s: %v, want invalid params naming the id", uri, rerr)
				}
				tried[platform+" resource"]++

				// Completing the template's variables with it.
				for v := range vars {
					var cres struct {
						Completion struct{ Values []string }
					}
					if rerr := c.call("completion/complete", map[string]any{
						"ref":      map[string]any{"type": "ref/resource", "uri": tpl},
						"argument": map[string]any{"name": v, "value": id},
					}, &cres); rerr != nil && rerr.Code != -32602 {
						t.Errorf("completing %s of %s with %q: %v", v, tpl, id, rerr)
					}
					tried[platform+" completion"]++
				}
			}

			// The prompt that takes a document: as the platform's key and
			// id, and as a resource URI. Refused (invalid params naming the
			// id), or planned without a call that carries the id.
			for _, ref := range []string{platform + ":" + id, adapters.Scheme + "://" + platform + "/" + url.PathEscape(id)} {
				var pres struct {
					Messages []struct{ Content struct{ Text string } }
				}
				rerr := c.call("prompts/get", map[string]any{"name": "law_behind_decision", "arguments": map[string]string{"document": ref}}, &pres)
				switch {
				case rerr != nil && rerr.Code == -32602 && (refcheck.NamesID(rerr.Message, id) || refcheck.NamesID(rerr.Message, ref)):
				case rerr == nil && len(pres.Messages) == 1:
					if text := pres.Messages[0].Content.Text; strings.Contains(text, "_fetch "+`{"id":`+jsonString(id)) {
						t.Errorf("the prompt for %q plans a fetch of it: %s", ref, text)
					}
				default:
					t.Errorf("prompt for %q: %v %+v", ref, rerr, pres)
				}
				var cres json.RawMessage
				if rerr := c.call("completion/complete", map[string]any{
					"ref":      map[string]any{"type": "ref/prompt", "name": "law_behind_decision"},
					"argument": map[string]any{"name": "document", "value": ref},
				}, &cres); rerr != nil {
					t.Errorf("completing the prompt's document with %q: %v", ref, rerr)
				}
				tried[platform+" prompt"]++
			}

			// The reader's page.
			q := url.Values{"platform": {platform}, "id": {id}}
			if platform == "opentk" {
				q.Set("type", "Document")
			}
			status, body := getFrom(t, proxy+"/lezen?"+q.Encode())
			if status == http.StatusBadRequest && strings.Contains(body, "the reader reads documents of") {
				continue // not a platform the page reads
			}
			if status != http.StatusBadRequest || !refcheck.NamesID(html.UnescapeString(body), id) {
				t.Errorf("/lezen %s %q: status %d, want 400 naming the id", platform, id, status)
			}
			tried[platform+" reader"]++
		}
	}

	// No emulator saw a request while the corpus was tried, bar the
	// house's own upkeep (OpenBesluitvorming's load status, refreshed on
	// its own clock), and no budget admitted a call beyond that upkeep.
	afterSeen := emulatorPaths(t, emulators)
	upkeep := int64(0)
	for key, n := range afterSeen {
		d := n - beforeSeen[key]
		if d == 0 {
			continue
		}
		if key == "obv /api/status" {
			upkeep += d
			continue
		}
		t.Errorf("the %s emulator saw %d request(s) for %s while hostile ids were tried", strings.Fields(key)[0], d, strings.Fields(key)[1])
	}
	afterBudget := budgetAdmitted(t, admin)
	for platform, n := range afterBudget {
		d := n - beforeBudget[platform]
		if platform == "obv" {
			d -= upkeep
		}
		if d != 0 {
			t.Errorf("the %s budget admitted %d call(s) while hostile ids were tried", platform, d)
		}
	}
	t.Logf("ids tried per platform and entry point: %v", tried)
}

// rpcClient speaks JSON-RPC to one MCP connector, as a 2025-era client
// with its session, from a loopback address of its own.
type rpcClient struct {
	t       *testing.T
	url     string
	session string
	http    *http.Client
	next    atomic.Int64
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
}

func (e *rpcError) String() string { return fmt.Sprintf("%d %s %s", e.Code, e.Message, e.Data) }

func newRPCClient(t *testing.T, endpoint string) *rpcClient {
	t.Helper()
	c := &rpcClient{t: t, url: endpoint, http: &http.Client{Transport: &http.Transport{
		DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 9, 9)}}).DialContext,
	}}}
	var init json.RawMessage
	if rerr := c.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "hostile-ids", "version": "1"}}, &init); rerr != nil {
		t.Fatalf("initialize: %v", rerr)
	}
	if c.session == "" {
		t.Fatal("initialize gave no session")
	}
	c.notify("notifications/initialized")
	return c
}

func (c *rpcClient) post(body []byte) (*http.Response, []byte) {
	c.t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(b), "\n") {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				b = []byte(data)
			}
		}
	}
	return resp, b
}

func (c *rpcClient) notify(method string) {
	c.post([]byte(`{"jsonrpc":"2.0","method":"` + method + `"}`))
}

// call sends one request; the error is the answer's JSON-RPC error, nil
// when it has a result (decoded into out unless out is nil).
func (c *rpcClient) call(method string, params any, out any) *rpcError {
	c.t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.next.Add(1), "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	resp, b := c.post(body)
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" && c.session == "" {
		c.session = sid
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(b, &msg); err != nil {
		c.t.Fatalf("%s: status %d, %v: %.300s", method, resp.StatusCode, err, b)
	}
	if msg.Error != nil {
		return msg.Error
	}
	if out != nil {
		if err := json.Unmarshal(msg.Result, out); err != nil {
			c.t.Fatalf("%s: %v: %.300s", method, err, msg.Result)
		}
	}
	return nil
}

// resourceTemplates are the connector's resource templates by platform.
func resourceTemplates(t *testing.T, c *rpcClient) map[string][]string {
	t.Helper()
	var res struct {
		ResourceTemplates []struct {
			URITemplate string `json:"uriTemplate"`
		} `json:"resourceTemplates"`
	}
	if rerr := c.call("resources/templates/list", map[string]any{}, &res); rerr != nil {
		t.Fatal(rerr)
	}
	out := map[string][]string{}
	for _, r := range res.ResourceTemplates {
		platform, _, _ := strings.Cut(strings.TrimPrefix(r.URITemplate, adapters.Scheme+"://"), "/")
		out[platform] = append(out[platform], r.URITemplate)
	}
	for platform := range hostileValid {
		if platform != "opentk" && platform != "oa" && len(out[platform]) == 0 {
			t.Errorf("no resource template for %s", platform)
		}
	}
	return out
}

// templateVars are the variable names of an RFC 6570 template.
func templateVars(tpl string) []string {
	var out []string
	for _, part := range strings.Split(tpl, "{")[1:] {
		expr, _, _ := strings.Cut(part, "}")
		expr = strings.TrimLeft(expr, "?&/#+.;")
		for _, v := range strings.Split(expr, ",") {
			out = append(out, strings.TrimSuffix(v, "*"))
		}
	}
	return out
}

// emulatorPaths counts each emulator's requests by path, keyed
// "<platform> <path>".
func emulatorPaths(t *testing.T, emulators map[string][]string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for platform, bases := range emulators {
		for _, base := range bases {
			var st struct {
				ByPath map[string]int64 `json:"by_path"`
			}
			_, body := getFrom(t, base+"/_emulator/stats")
			if err := json.Unmarshal([]byte(body), &st); err != nil {
				t.Fatalf("%s stats: %v", platform, err)
			}
			for p, n := range st.ByPath {
				out[platform+" "+p] += n
			}
		}
	}
	return out
}

// budgetAdmitted is each platform budget's admitted calls, from the
// admin API.
func budgetAdmitted(t *testing.T, admin string) map[string]int64 {
	t.Helper()
	_, body := getFrom(t, admin+"/besluitbron/budget/")
	var all struct {
		Platforms []struct {
			Platform string `json:"platform"`
			Admitted int64  `json:"admitted"`
		} `json:"platforms"`
	}
	if err := json.Unmarshal([]byte(body), &all); err != nil {
		t.Fatalf("budgets: %v: %.300s", err, body)
	}
	out := map[string]int64{}
	for _, r := range all.Platforms {
		out[r.Platform] = r.Admitted
	}
	if len(out) == 0 {
		t.Fatalf("the admin API lists no budget: %.300s", body)
	}
	return out
}

func getFrom(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// escapeReserved percent-encodes every byte of s but RFC 3986's
// unreserved characters, as a simple RFC 6570 expansion does.
func escapeReserved(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x80 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0) {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
