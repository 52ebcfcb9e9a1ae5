package mcp

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/besluitbron/besluitbron/internal/fixture"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// ob_fetch follows a search record's itemUrl only into a base URL of OB in
// the connector's own config (its besluitbron block), and a reload moves
// that set with the config: the new one counts from the moment it starts,
// one that fails to load counts for nothing. A record pointing anywhere
// else is refused, and that host gets no request.
func TestOBItemURLFollowsTheConfigsBaseURLs(t *testing.T) {
	fixturesPresent(t)
	const file = "/frbr/officielepublicaties/gmb/2023/gmb-2023-174296/1/xml/gmb-2023-174296.xml"
	// The fake OB answers the look-up with the real record, its xml
	// itemUrl pointing at link (a mirror's host, or an attacker's).
	var link atomic.Value
	var files atomic.Int64
	rec := string(fixture.Read(t, "ob", "sru-record-gmb.fragment.xml"))
	publication := fixture.Read(t, "ob", "op-stb-2018-84.xml")
	ob := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/sru":
			r := strings.Replace(rec, `<itemUrl manifestation="xml">https://repository.overheid.nl`+file, `<itemUrl manifestation="xml">`+link.Load().(string), 1)
			_, _ = io.WriteString(w, `<searchRetrieveResponse><numberOfRecords>1</numberOfRecords><records>`+r+`</records></searchRetrieveResponse>`)
		case r.URL.Path == file:
			files.Add(1)
			_, _ = w.Write(publication)
		default:
			http.Error(w, "not found", 404)
		}
	}))
	t.Cleanup(ob.Close)
	var evilHits atomic.Int64
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		evilHits.Add(1)
		_, _ = w.Write(publication)
	}))
	t.Cleanup(evil.Close)

	port := testproc.FreePort(t)
	// The route reaches the fake whatever the block says: only the links
	// are checked against base_url.
	config := func(base, extra string) string {
		return fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
	besluitbron {
		platform ob {
			base_url %s
		}
	}
}
http://:%d {
	route /platforms/ob/* {
		uri strip_prefix /platforms/ob
		reverse_proxy %s
	}
	handle /mcp/rijk {
		mcp rijk {
			platforms ob
		}
%s	}
}
`, base, port, strings.TrimPrefix(ob.URL, "http://"), extra)
	}
	const one, two, three = "http://mirror-one.example/ob", "http://mirror-two.example", "http://mirror-three.example"
	testcaddy.Load(t, config(one, ""))
	// The client lives through the reloads below (see testcaddy.AcrossReloads).
	c := connectWith(t, fmt.Sprintf("http://127.0.0.1:%d/mcp/rijk", port), false, nil,
		&http.Client{Transport: testcaddy.AcrossReloads})

	fetch := func(to string, wantOK bool) {
		t.Helper()
		link.Store(to)
		before := files.Load()
		text, isErr := callTool(t, c, "ob_fetch", map[string]any{"id": "gmb-2023-174296", "max_chars": 300})
		switch {
		case wantOK && (isErr || files.Load() != before+1):
			t.Errorf("%s not followed: isError=%v\n%s", to, isErr, text)
		case !wantOK && (!isErr || !strings.Contains(text, "refused") || files.Load() != before):
			t.Errorf("%s followed: isError=%v\n%s", to, isErr, text)
		}
	}
	fetch(one+file, true)
	fetch("https://repository.overheid.nl"+file, true) // the public host: a mirror keeps the platform's links
	fetch(two+file, false)                             // not (yet) a base URL
	fetch("http://mirror-one.example"+file, false)     // outside the mirror's path
	fetch(evil.URL+file, false)
	fetch("http://user@mirror-one.example/ob"+file, false)

	// A reload moves the mirror.
	testcaddy.Reload(t, config(two, ""))
	fetch(two+file, true)
	fetch(one+file, false)

	// A config whose connector provisioned but that fails to load
	// (another connector's bad option) leaves the running one's base URLs.
	bad := config(three, "\t\tmcp broken {\n\t\t\tplatforms nosuch\n\t\t}\n")
	if err := caddy.Load(testcaddy.WithoutPersistence(t, testcaddy.Adapt(t, bad)), true); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Fatalf("the broken config loaded: %v", err)
	}
	fetch(two+file, true)
	fetch(three+file, false)
	if evilHits.Load() != 0 {
		t.Errorf("the attacker's host got %d requests", evilHits.Load())
	}
}
