package clientlimit

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/besluitbron/besluitbron/caddymodule/app"
	"github.com/besluitbron/besluitbron/caddymodule/session"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// markInternal is a test-only handler that marks its request as an
// in-process sub-request (as the MCP connector does for tool calls).
type markInternal struct{}

func (markInternal) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.clientlimit_test_internal", New: func() caddy.Module { return new(markInternal) }}
}

func (markInternal) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	return next.ServeHTTP(w, r.WithContext(session.WithInternal(r.Context(), "mcp:tool-call")))
}

func init() {
	caddy.RegisterModule(markInternal{})
	httpcaddyfile.RegisterHandlerDirective("clientlimit_test_internal", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		h.Next()
		return markInternal{}, nil
	})
}

const caddyfileTmpl = `{
	admin localhost:%[1]d
	servers {
		trusted_proxies static 127.0.0.1/32
	}
}
http://127.0.0.1:%[2]d {
	route /mcp/raad* {
		client_limit it-raad {
			process off
			connector 100/s 100
			session 1/m 2
			address 1/m %[4]d
		}
		respond "raad %[5]s"
	}
	route /tool* {
		clientlimit_test_internal
		client_limit it-tool {
			process off
			session off
			address 1/m 1
		}
		respond "tool"
	}
}
http://127.0.0.1:%[3]d {
	client_limit it-shaped {
		process off
		session off
		address 1/m 1
	}
	respond "shaped"
	handle_errors 429 {
		header Content-Type application/json
		respond "{http.client_limit.body}"
	}
}
`

type answer struct {
	code int
	hdr  http.Header
	body string
}

func get(t *testing.T, url, clientIP string, hdr ...string) answer {
	t.Helper()
	r, _ := http.NewRequest("GET", url, nil)
	r.Header.Set("X-Forwarded-For", clientIP) // honoured: 127.0.0.1 is a trusted proxy
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

func TestInCaddy(t *testing.T) {
	admin, port, shapedPort := testproc.FreePort(t), testproc.FreePort(t), testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(caddyfileTmpl, admin, port, shapedPort, 3, "v1"))
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	internal0 := counterValue(requestsTotal.WithLabelValues("it-tool", "internal"))

	t.Run("429 with Retry-After, JSON body and RateLimit headers", func(t *testing.T) {
		for i := range 3 {
			a := get(t, base+"/mcp/raad", "203.0.113.1")
			if a.code != 200 || a.hdr.Get("RateLimit-Limit") != "3" || a.hdr.Get("RateLimit-Remaining") != fmt.Sprint(2-i) ||
				a.hdr.Get("RateLimit-Reset") != fmt.Sprint(60*(i+1)) {
				t.Fatalf("request %d: %d %v", i, a.code, a.hdr)
			}
		}
		a := get(t, base+"/mcp/raad", "203.0.113.1")
		if a.code != 429 || a.hdr.Get("Retry-After") != "60" || a.hdr.Get("Content-Type") != "application/json" ||
			a.hdr.Get("RateLimit-Remaining") != "0" {
			t.Fatalf("4th: %d %v %q", a.code, a.hdr, a.body)
		}
		var body rejection
		if err := json.Unmarshal([]byte(a.body), &body); err != nil || body.Layer != "address" || body.Zone != "it-raad" || body.RetryAfter != 60 {
			t.Fatalf("4th body %q (%v)", a.body, err)
		}
		// Another client address (via trusted_proxies) has its own room.
		if a := get(t, base+"/mcp/raad", "203.0.113.2"); a.code != 200 {
			t.Fatalf("other address: %d", a.code)
		}
	})

	t.Run("made-up session ids count against the address", func(t *testing.T) {
		passed := 0
		for i := range 20 {
			if get(t, base+"/mcp/raad", "203.0.113.10", "Mcp-Session-Id", fmt.Sprintf("made-up-%d", i)).code == 200 {
				passed++
			}
		}
		if passed != 3 {
			t.Fatalf("%d of 20 made-up ids passed, want the address's 3", passed)
		}
		// The running config's registry: every app holds the same one.
		sctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
		defer cancel()
		bb, err := app.Load(sctx)
		if err != nil {
			t.Fatal(err)
		}
		bb.Sessions().Add("it-issued", "test")
		defer bb.Sessions().Remove("it-issued", "test")
		// An issued session counts against its address too: this one is
		// spent, so the session gets no room of its own there.
		a := get(t, base+"/mcp/raad", "203.0.113.10", "Mcp-Session-Id", "it-issued")
		if a.code != 429 || !strings.Contains(a.body, `"layer":"address"`) {
			t.Fatalf("issued session from the spent address: %d %q, want 429 by the address", a.code, a.body)
		}
		// From a fresh address it passes under its session limit of 2.
		a = get(t, base+"/mcp/raad", "203.0.113.11", "Mcp-Session-Id", "it-issued")
		if a.code != 200 || a.hdr.Get("RateLimit-Limit") != "2" || a.hdr.Get("RateLimit-Remaining") != "1" {
			t.Fatalf("issued session from a fresh address: %d %v, want 200 under the session limit of 2", a.code, a.hdr)
		}
	})

	t.Run("internal sub-requests pass uncounted", func(t *testing.T) {
		for i := range 20 {
			if a := get(t, base+"/tool", "203.0.113.20"); a.code != 200 || a.body != "tool" {
				t.Fatalf("internal request %d: %d %q", i, a.code, a.body)
			}
		}
	})

	t.Run("handle_errors shapes the 429", func(t *testing.T) {
		shaped := fmt.Sprintf("http://127.0.0.1:%d/", shapedPort)
		get(t, shaped, "203.0.113.30")
		a := get(t, shaped, "203.0.113.30")
		if a.code != 429 || a.hdr.Get("Retry-After") != "60" || a.hdr.Get("Content-Type") != "application/json" ||
			a.hdr.Get("RateLimit-Limit") != "1" || !strings.HasPrefix(a.body, `{"error":"rate_limited","layer":"address","zone":"it-shaped","retry_after":60`) {
			t.Fatalf("shaped: %d %v %q", a.code, a.hdr, a.body)
		}
	})

	t.Run("a reload keeps the state", func(t *testing.T) {
		// Same limits, other response: 203.0.113.1 is still out of room.
		// testcaddy.Reload returns once the old config's sockets (the
		// site's and the admin endpoint's) are closed: a request right
		// after caddy.Load could be queued on one and reset.
		testcaddy.Reload(t, fmt.Sprintf(caddyfileTmpl, admin, port, shapedPort, 3, "v2"))
		a := get(t, base+"/mcp/raad", "203.0.113.1")
		if a.code != 429 || a.hdr.Get("Retry-After") != "60" {
			t.Fatalf("after reload: %d %v %q, want still 429", a.code, a.hdr, a.body)
		}
		// A larger burst gives exactly the extra room, not a fresh bucket.
		testcaddy.Reload(t, fmt.Sprintf(caddyfileTmpl, admin, port, shapedPort, 4, "v3"))
		if a := get(t, base+"/mcp/raad", "203.0.113.1"); a.code != 200 || a.body != "raad v3" {
			t.Fatalf("after raising the burst to 4: %d %q", a.code, a.body)
		}
		if a := get(t, base+"/mcp/raad", "203.0.113.1"); a.code != 429 {
			t.Fatalf("5th request after raising the burst to 4: %d, want 429", a.code)
		}
	})

	t.Run("metrics count rejections by zone and layer", func(t *testing.T) {
		if v := counterValue(rejectedTotal.WithLabelValues("it-raad", "address")); v < 2 {
			t.Fatalf("rejected_total{it-raad,address} = %v", v)
		}
		if v := counterValue(requestsTotal.WithLabelValues("it-tool", "internal")) - internal0; v != 20 {
			t.Fatalf("requests_total{it-tool,internal} = %v, want 20", v)
		}
		resp, err := http.Get(fmt.Sprintf("http://localhost:%d/metrics", admin))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		page, _ := io.ReadAll(resp.Body)
		if !strings.Contains(string(page), `caddy_client_limit_rejected_total{layer="address",zone="it-raad"}`) {
			t.Fatalf("admin /metrics lacks caddy_client_limit_rejected_total:\n%.2000s", page)
		}
		if strings.Contains(string(page), "203.0.113.") {
			t.Fatal("a client address appears in the metrics")
		}
	})
}

// The config proposed for the default Caddyfile (docs/inbound-limits.md):
// site-level client_limit lines with path matchers, one zone per MCP
// connector and one for the platform routes, the process limit set once.
const proposedTmpl = `{
	admin off
}
http://127.0.0.1:%d {
	client_limit /mcp/raad* mcp-raad {
		process 1000/s 2000
	}
	client_limit /mcp/rijk* mcp-rijk
	client_limit /platforms/* platforms

	route /mcp/raad* {
		respond "raad"
	}
	route /mcp/rijk* {
		respond "rijk"
	}
	route /platforms/ori/* {
		uri strip_prefix /platforms/ori
		respond "ori {uri}"
	}
	respond "site"
}
`

func TestProposedConfig(t *testing.T) {
	port := testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(proposedTmpl, port))
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for path, want := range map[string]string{"/mcp/raad": "raad", "/mcp/rijk": "rijk", "/platforms/ori/v1/x": "ori /v1/x"} {
		a := get(t, base+path, "203.0.113.40")
		// A fresh address in a fresh zone: the session/address layer
		// (burst 150) has the fewest left, 149.
		if a.code != 200 || a.body != want || a.hdr.Get("RateLimit-Limit") != "150" || a.hdr.Get("RateLimit-Remaining") != "149" {
			t.Errorf("%s: %d %q %v", path, a.code, a.body, a.hdr)
		}
	}
	if a := get(t, base+"/", "203.0.113.40"); a.code != 200 || a.hdr.Get("RateLimit-Limit") != "" {
		t.Errorf("/ is outside every zone: %d %v", a.code, a.hdr)
	}
}
