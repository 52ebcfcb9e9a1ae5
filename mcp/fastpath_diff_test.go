package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/internal/testproc"
)

// The fast path held to mcp-go (issue 33 point 2): every request of a
// corpus is sent to one running connector with the fast path on and off,
// and both answers must be the same: status, the headers that matter, and
// the JSON after normalising key order and the values that change from one
// call to the next (a cache entry's ttl and age, queue waits, the health
// counters). An mcp-go upgrade that answers differently fails here.

// rawCase is one raw request of the corpus.
type rawCase struct {
	name string
	body []byte
	hdr  map[string]string
}

// answerOf is an answer reduced to what the two paths must agree on.
func answerOf(resp *http.Response, body []byte) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "HTTP %d\n", resp.StatusCode)
	for _, h := range []string{"Content-Type", "Allow", "Cache-Control", "Www-Authenticate"} {
		if v := resp.Header.Values(h); len(v) > 0 {
			fmt.Fprintf(&sb, "%s: %s\n", h, strings.Join(v, ", "))
		}
	}
	if resp.Header.Get("Mcp-Session-Id") != "" {
		sb.WriteString("Mcp-Session-Id: (issued)\n") // each initialize gets a new one
	}
	var v any
	if json.Unmarshal(body, &v) != nil {
		sb.Write(body) // plain text (mcp-go's http.Error answers)
		return sb.String()
	}
	b, _ := json.Marshal(scrub(v)) // map keys sorted: key order normalised
	sb.Write(b)
	return sb.String()
}

// volatile are the result fields that change between two calls of the same
// tool on the same cache entry: the entry's age and ttl, the budget wait,
// and besluitbron_platforms' health counters (every call counts).
var volatile = map[string]bool{
	"queue_wait_ms": true, "cache_status": true, "fetched_at": true, "age_seconds": true,
	"last_call_at": true, "last_ok_at": true, "calls": true, "cache_hits": true, "errors": true, "took_ms": true,
}

var ttlRE = regexp.MustCompile(`ttl=-?\d+`)

// scrub replaces the volatile values in a decoded answer, also inside a
// text content that is itself JSON (a tool result's text).
func scrub(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if volatile[k] {
				t[k] = "<varies>"
				continue
			}
			t[k] = scrub(x)
		}
	case []any:
		for i, x := range t {
			t[i] = scrub(x)
		}
	case string:
		if strings.HasPrefix(t, "{") {
			var inner any
			if json.Unmarshal([]byte(t), &inner) == nil {
				b, _ := json.Marshal(scrub(inner))
				return "json:" + string(b)
			}
		}
		return ttlRE.ReplaceAllString(t, "ttl=N")
	}
	return v
}

// bothPaths sends c with the fast path off and on (mcp-go first, so a miss
// it fetches is a hit for both after a warming call) and returns both
// answers. Then it moves clk (the connector's and the stores' clock,
// fakeClockOn) by 1.3 s (back to its start every 300 calls, so nothing
// expires in a long fuzz run) and sends c to the fast path again: a call it ran
// and kept is now written from its result memo (resultmemo.go), which must
// answer as before but for the fields that moved with the clock, and byte
// for byte as the tool run anew at that moment.
func bothPaths(t testing.TB, f *fastPath, clk *testClock, hc *http.Client, url string, c rawCase) (viaMCPGo, viaFast string) {
	f.off.Store(true)
	postRaw(t, hc, url, c.body, c.hdr) // warm: whatever it asks is in the cache after it
	resp, b := postRaw(t, hc, url, c.body, c.hdr)
	viaMCPGo = answerOf(resp, b)
	f.off.Store(false)
	served := f.served.Load()
	resp, b = postRaw(t, hc, url, c.body, c.hdr)
	viaFast = answerOf(resp, b)
	fast := f.served.Load() > served
	clk.Step(1300*time.Millisecond, 300)
	served, memo := f.served.Load(), f.memoServed.Load()
	resp, b = postRaw(t, hc, url, c.body, c.hdr)
	again := answerOf(resp, b)
	if fast && f.served.Load() == served {
		// The entry behind it expired as the clock moved (a search's
		// lives 10 minutes): mcp-go asked the platform anew.
		return viaMCPGo, viaFast
	}
	if again != viaFast {
		return viaMCPGo, viaFast + "\nthen: " + again
	}
	if f.memoServed.Load() > memo {
		f.memoOff.Store(true)
		_, own := postRaw(t, hc, url, c.body, c.hdr)
		f.memoOff.Store(false)
		if !bytes.Equal(b, own) {
			return viaMCPGo, viaFast + "\nfrom the memo: " + string(b) + "\nthe tool's own: " + string(own)
		}
	}
	return viaMCPGo, viaFast
}

// diffCorpus is the corpus: every tool of the connector in both eras, and
// around them bad headers, bad params, unknown tools, sessions valid,
// ended and made up, batches and odd ids.
func diffCorpus(calls []toolCall, session, ended string) []rawCase {
	legacy := rawEra{name: "2025", session: session}
	modern := rawEra{name: "2026", modern: true}
	var out []rawCase
	add := func(name string, body []byte, hdr map[string]string) {
		out = append(out, rawCase{name: name, body: body, hdr: hdr})
	}
	with := func(hdr map[string]string, k, v string) map[string]string {
		h := map[string]string{}
		for a, b := range hdr {
			h[a] = b
		}
		if v == "" {
			delete(h, k)
		} else {
			h[k] = v
		}
		return h
	}
	for _, e := range []rawEra{legacy, modern} {
		for i, call := range calls {
			body, hdr := rawToolCall(e, i+1, call.name, call.args)
			add(e.name+" "+call.name, body, hdr)
		}
		body, hdr := rawToolCall(e, "req-7", "obv_sources", map[string]any{"organization_type": "gemeente"})
		add(e.name+" string id", body, hdr)
		body, hdr = rawToolCall(e, 7, "obv_search", map[string]any{"limit": "ten", "sort": "up", "bogus": 1})
		add(e.name+" bad arguments", body, hdr)
		body, hdr = rawToolCall(e, 8, "obv_fetch", map[string]any{})
		add(e.name+" missing required", body, hdr)
		body, hdr = rawToolCall(e, 9, "no_such_tool", nil)
		add(e.name+" unknown tool", body, hdr)
		body, hdr = rawToolCall(e, 10, "search_all", map[string]any{"query": "begroting", "limit": 3})
		add(e.name+" search_all", body, hdr)
		body, hdr = rawToolCall(e, 11, "obv_sources", nil)
		add(e.name+" wrong content type", body, with(hdr, "Content-Type", "text/plain"))
		add(e.name+" arguments not an object", []byte(strings.Replace(string(body), `"name":"obv_sources"`, `"arguments":"x","name":"obv_sources"`, 1)), hdr)
		add(e.name+" arguments null", []byte(strings.Replace(string(body), `"name":"obv_sources"`, `"arguments":null,"name":"obv_sources"`, 1)), hdr)
		add(e.name+" jsonrpc 1.0", []byte(strings.Replace(string(body), `"2.0"`, `"1.0"`, 1)), hdr)
		add(e.name+" params null", []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":null}`), hdr)
		add(e.name+" no name", []byte(`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{}}`), hdr)
		add(e.name+" upper-case member", []byte(strings.Replace(string(body), `"method"`, `"Method"`, 1)), hdr)
		add(e.name+" notification", []byte(strings.Replace(string(body), `"id":11,`, ``, 1)), hdr)
		add(e.name+" float id", []byte(strings.Replace(string(body), `"id":11`, `"id":1.5`, 1)), hdr)
		add(e.name+" big id", []byte(strings.Replace(string(body), `"id":11`, `"id":123456789012345678901`, 1)), hdr)
		add(e.name+" null id", []byte(strings.Replace(string(body), `"id":11`, `"id":null`, 1)), hdr)
		add(e.name+" batch", []byte("["+string(body)+","+string(body)+"]"), hdr)
		add(e.name+" not json", []byte(`{"jsonrpc":"2.0",`), hdr)
		add(e.name+" task", []byte(strings.Replace(string(body), `"name":"obv_sources"`, `"name":"obv_sources","task":{"ttl":1000}`, 1)), hdr)
		add(e.name+" duplicate method", []byte(strings.Replace(string(body), `"method":"tools/call"`, `"method":"tools/call","method":"ping"`, 1)), hdr)
		if e.modern {
			add("2026 no Mcp-Method", body, with(hdr, mcpgo.HeaderMethod, ""))
			add("2026 wrong Mcp-Method", body, with(hdr, mcpgo.HeaderMethod, "tools/list"))
			add("2026 no Mcp-Name", body, with(hdr, mcpgo.HeaderName, ""))
			add("2026 wrong Mcp-Name", body, with(hdr, mcpgo.HeaderName, "obv_search"))
			add("2026 base64 Mcp-Name", body, with(hdr, mcpgo.HeaderName, "=?base64?b2J2X3NvdXJjZXM=?="))
			add("2026 no protocol header", body, with(hdr, mcpgo.HeaderProtocolVersion, ""))
			add("2026 header says 2025", body, with(hdr, mcpgo.HeaderProtocolVersion, mcpgo.ProtocolVersion20251125))
			add("2026 header unknown version", body, with(hdr, mcpgo.HeaderProtocolVersion, "2099-01-01"))
			add("2026 Last-Event-ID", body, with(hdr, "Last-Event-ID", "3"))
			add("2026 Mcp-Param header", body, with(hdr, "Mcp-Param-Organization_type", "gemeente"))
			add("2026 with a session id", body, with(hdr, "Mcp-Session-Id", session))
			add("2026 progress token", []byte(strings.Replace(string(body), `"_meta":{`, `"_meta":{"progressToken":"p1",`, 1)), hdr)
			add("2026 no capabilities", []byte(strings.Replace(string(body), `"io.modelcontextprotocol/clientCapabilities":{},`, ``, 1)), hdr)
			add("2026 capabilities null", []byte(strings.Replace(string(body), `"io.modelcontextprotocol/clientCapabilities":{}`, `"io.modelcontextprotocol/clientCapabilities":null`, 1)), hdr)
			add("2026 meta version 2025", []byte(strings.Replace(string(body), `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`, `"io.modelcontextprotocol/protocolVersion":"2025-11-25"`, 1)), hdr)
			add("2026 log level", []byte(strings.Replace(string(body), `"_meta":{`, `"_meta":{"io.modelcontextprotocol/logLevel":"debug",`, 1)), hdr)
		} else {
			add("2025 no session", body, with(hdr, "Mcp-Session-Id", ""))
			add("2025 made-up session", body, with(hdr, "Mcp-Session-Id", "mcp-session-"+uuid.NewString()))
			add("2025 ended session", body, with(hdr, "Mcp-Session-Id", ended))
			add("2025 foreign session form", body, with(hdr, "Mcp-Session-Id", "abc"))
			add("2025 unknown protocol header", body, with(hdr, mcpgo.HeaderProtocolVersion, "1999-01-01"))
			add("2025 no protocol header", body, with(hdr, mcpgo.HeaderProtocolVersion, ""))
			add("2025 with _meta", []byte(strings.Replace(string(body), `"name":"obv_sources"`, `"name":"obv_sources","_meta":{"progressToken":1}`, 1)), hdr)
			add("2025 ping", []byte(`{"jsonrpc":"2.0","id":5,"method":"ping"}`), hdr)
			add("2025 tools/list", []byte(`{"jsonrpc":"2.0","id":6,"method":"tools/list"}`), hdr)
		}
	}
	return out
}

func TestFastPathMatchesMCPGo(t *testing.T) {
	base := cachedSite(t)
	clk := fakeClockOn(t, pooled(t, "alles"), time.Date(2026, 12, 3, 10, 0, 0, 300_000_000, time.UTC))
	modern := connect(t, base, false, nil)
	legacy := connect(t, base, true, nil)
	calls := toolCorpus(t, modern)
	ender := connect(t, base, true, nil)
	ended := ender.GetSessionId()
	if err := ender.Close(); err != nil {
		t.Fatal(err)
	}
	f := pooled(t, "alles").fast
	hc := &http.Client{}
	corpus := diffCorpus(calls, legacy.GetSessionId(), ended)
	// The session's first call goes to mcp-go (its idle clock): make it.
	body, hdr := rawToolCall(rawEra{session: legacy.GetSessionId()}, 0, "tk_fracties", nil)
	postRaw(t, hc, base, body, hdr)

	before, memoBefore := f.served.Load(), f.memoServed.Load()
	for _, c := range corpus {
		viaMCPGo, viaFast := bothPaths(t, f, clk, hc, base, c)
		if viaMCPGo != viaFast {
			t.Errorf("%s: the paths differ\nmcp-go: %s\nfast:   %s", c.name, viaMCPGo, viaFast)
		}
	}
	// Not a vacuous comparison: every good call of a tool other than
	// search_all was answered by the fast path (two eras).
	want := int64(2 * (len(calls) - 1))
	if got := f.served.Load() - before; got < want {
		t.Errorf("the fast path answered %d calls, want at least %d (every cached call in both eras)", got, want)
	}
	t.Logf("%d requests compared, %d answered by the fast path, %d of them from its result memo", len(corpus), f.served.Load()-before, f.memoServed.Load()-memoBefore)
	if f.memoServed.Load() == memoBefore {
		t.Error("no call was answered from the result memo")
	}
}

// FuzzFastPathMatchesMCPGo feeds mutated requests to both paths and fails
// on any difference. mode picks the headers: bit 0 the era, bit 1 whether
// Mcp-Name is the body's tool name (else obv_sources), bit 2 whether
// Mcp-Method is sent, bit 3 an unknown Mcp-Protocol-Version.
//
//	go test -run XXX -fuzz FuzzFastPathMatchesMCPGo -fuzztime 5m ./mcp/
func FuzzFastPathMatchesMCPGo(f *testing.F) {
	base := cachedSite(f)
	clk := fakeClockOn(f, pooled(f, "alles"), time.Date(2026, 12, 3, 10, 0, 0, 300_000_000, time.UTC))
	legacySession := openSession(f, base)
	for i, c := range []toolCall{
		{"obv_sources", map[string]any{"organization_type": "gemeente"}},
		{"tk_fracties", nil},
		{"rechtspraak_lists", map[string]any{"list": "Instanties", "name": "Hoge Raad"}},
		{"bwb_fetch", map[string]any{"id": "BWBR0008326", "date": "2003-05-01", "article": "5"}},
		{"besluitbron_platforms", nil},
		{"obv_search", map[string]any{"limit": "ten"}},
		// Kept tools (the result memo).
		{"ob_search", map[string]any{"query": "begroting", "limit": 3}},
		{"cvdr_search", map[string]any{"organisation": "Kampen"}},
		{"bwb_search", map[string]any{"query": "belastingcapaciteit"}},
	} {
		for _, modern := range []bool{false, true} {
			body, _ := rawToolCall(rawEra{modern: modern}, i, c.name, c.args)
			mode := uint8(0b110)
			if modern {
				mode |= 1
			}
			f.Add(body, mode)
		}
	}
	hc := &http.Client{}
	var conn *connector
	f.Fuzz(func(t *testing.T, body []byte, mode uint8) {
		if conn == nil {
			conn = pooled(t, "alles")
		}
		hdr := map[string]string{}
		if mode&1 != 0 {
			hdr[mcpgo.HeaderProtocolVersion] = mcpgo.ProtocolVersion20260728
		} else {
			hdr[mcpgo.HeaderProtocolVersion] = mcpgo.ProtocolVersion20251125
			hdr["Mcp-Session-Id"] = legacySession
		}
		if mode&8 != 0 {
			hdr[mcpgo.HeaderProtocolVersion] = "2030-01-01"
		}
		if mode&4 != 0 {
			hdr[mcpgo.HeaderMethod] = "tools/call"
		}
		hdr[mcpgo.HeaderName] = "obv_sources"
		if mode&2 != 0 {
			var loose struct {
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			if json.Unmarshal(body, &loose) == nil && loose.Params.Name != "" && !strings.ContainsAny(loose.Params.Name, "\r\n\x00") {
				hdr[mcpgo.HeaderName] = loose.Params.Name
			}
		}
		viaMCPGo, viaFast := bothPaths(t, conn.fast, clk, hc, base, rawCase{body: body, hdr: hdr})
		if viaMCPGo != viaFast {
			t.Fatalf("the paths differ for %q (mode %04b)\nmcp-go: %s\nfast:   %s", body, mode, viaMCPGo, viaFast)
		}
	})
}

// openSession opens a 2025-era session with raw requests and returns its
// id.
func openSession(t testing.TB, url string) string {
	t.Helper()
	init := []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`)
	resp, b := postRaw(t, &http.Client{}, url, init, nil)
	id := resp.Header.Get("Mcp-Session-Id")
	if id == "" {
		t.Fatalf("initialize gave no session: %s", b)
	}
	postRaw(t, &http.Client{}, url, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		map[string]string{"Mcp-Session-Id": id, mcpgo.HeaderProtocolVersion: mcpgo.ProtocolVersion20251125})
	return id
}

// TestFastPathMissCostsOnePlatformRequest: a call whose platform answer is
// not in the cache goes to mcp-go, and the fast path's stored-only try
// asks the platform nothing: the platform sees one request, the answer is
// mcp-go's (from_cache false) and the connector's health counts no failure;
// the same call again is the fast path's, from the cache, with no request.
func TestFastPathMissCostsOnePlatformRequest(t *testing.T) {
	base, emulators := cachedSiteEmulators(t)
	f := pooled(t, "alles").fast
	hc := &http.Client{}
	requests := func() int64 { return testproc.EmulatorRequests(t, emulators["rechtspraak"]) }
	call := func(id int) (map[string]any, int64) {
		t.Helper()
		served := f.served.Load()
		body, hdr := rawToolCall(rawEra{modern: true}, id, "rechtspraak_lists", map[string]any{"list": "Rechtsgebieden"})
		resp, b := postRaw(t, hc, base, body, hdr)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("HTTP %d: %s", resp.StatusCode, b)
		}
		var reply struct {
			Result mcpgo.CallToolResult `json:"result"`
		}
		if err := json.Unmarshal(b, &reply); err != nil || reply.Result.IsError || len(reply.Result.Content) == 0 {
			t.Fatalf("reply: %v %s", err, b)
		}
		return decodeResult(t, reply.Result.Content[0].(mcpgo.TextContent).Text), f.served.Load() - served
	}
	before := requests()
	first, byFast := call(1)
	if n := requests() - before; n != 1 || first["from_cache"] != false || byFast != 0 {
		t.Fatalf("a miss: %d platform requests (want 1), from_cache %v, %d answered by the fast path (want 0)", n, first["from_cache"], byFast)
	}
	second, byFast := call(2)
	if n := requests() - before; n != 1 || second["from_cache"] != true || byFast != 1 {
		t.Fatalf("the hit after it: %d platform requests in all (want 1), from_cache %v, %d answered by the fast path (want 1)", n, second["from_cache"], byFast)
	}
	if h := pooled(t, "alles").health.get("rechtspraak"); h.State != "ok" || h.Errors != 0 {
		t.Fatalf("health after a stored-only miss: %+v", h)
	}
}
