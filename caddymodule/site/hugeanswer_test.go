package site_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/fanout"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/subcall"

	_ "github.com/besluitbron/besluitbron/caddymodule/emulator"
	_ "github.com/besluitbron/besluitbron/caddymodule/platformcache"
	_ "github.com/besluitbron/besluitbron/caddymodule/platformlimit"
	_ "github.com/besluitbron/besluitbron/caddymodule/platformproxy"
	_ "github.com/besluitbron/besluitbron/caddymodule/site"
)

// TestAnswerOverTheCap: an OpenBesluitvorming answer larger than the
// 32 MiB a sub-request holds fails that call only, in the process: the
// reader answers 502 naming the cap, the page's search (the fan-out)
// names the platform failed, and both work again once the platform
// answers normally. Before the fix, platform_proxy's abort on the full
// recorder went up through subrequest.Do unrecovered; in the fan-out's
// goroutine it ended the process (this test's).
func TestAnswerOverTheCap(t *testing.T) {
	port, emuPort := testproc.FreePort(t), testproc.FreePort(t)
	emu := fmt.Sprintf("http://127.0.0.1:%d", emuPort)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
}
http://:%d {
	besluitbron_emulator obv
}
http://:%d {
	route /platforms/obv/* {
		uri strip_prefix /platforms/obv
		platform_cache obv {
			dir %s
		}
		platform_limit obv
		platform_proxy obv %s {
			allow_private 127.0.0.1/8
		}
	}
	besluitbron_site {
		platforms obv
		deadline 1m
	}
}
`, emuPort, port, filepath.Join(t.TempDir(), "cache"), emu))
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	search := func(q string) fanout.Result {
		t.Helper()
		status, body := fetch(t, base+"/search?q="+url.QueryEscape(q), http.Header{"Accept": {"application/json"}})
		var res fanout.Result
		if err := json.Unmarshal([]byte(body), &res); err != nil || status != http.StatusOK || len(res.Outcomes) != 1 {
			t.Fatalf("search %q: HTTP %d, %v: %s", q, status, err, body)
		}
		return res
	}
	res := search("stikstof")
	if len(res.Hits) == 0 {
		t.Fatalf("no hits to read: %+v", res.Outcomes)
	}
	read := base + "/lezen?" + url.Values{"platform": {"obv"}, "id": {res.Hits[0].ID}}.Encode()

	r, err := http.Post(emu+"/_emulator/faults", "application/json",
		strings.NewReader(fmt.Sprintf(`{"pad_bytes":%d}`, subcall.MaxAnswerBytes+1<<20)))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()

	if status, page := fetch(t, read, nil); status != http.StatusBadGateway || !strings.Contains(page, "32 MiB") {
		t.Fatalf("the reader on an answer over the cap: HTTP %d, want 502 naming the cap:\n%s", status, page)
	}
	if o := search("woningbouw").Outcomes[0]; o.State != fanout.StateFailed || o.Reason != fanout.ReasonUnexpectedAnswer || !strings.Contains(o.Error, "32 MiB") {
		t.Fatalf("the page's search on an answer over the cap: %+v", o)
	}

	req, _ := http.NewRequest(http.MethodDelete, emu+"/_emulator/faults", nil)
	if r, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		r.Body.Close()
	}
	if status, page := fetch(t, read, nil); status != http.StatusOK {
		t.Fatalf("the reader after the fault: HTTP %d:\n%s", status, page)
	}
	if o := search("woningbouw").Outcomes[0]; o.State != fanout.StateAnswered {
		t.Fatalf("the page's search after the fault: %+v", o)
	}
}
