package mcp

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// The result memo (resultmemo.go) writes a kept encoding of a cached call
// only while the call would encode the same: the same bytes as the tool
// run anew, in both eras, and never after the cache entry behind it is
// gone (cache.Hit.Holds is held to each way an entry changes in
// cache/hitrecord_test.go).
func TestResultMemoAnswersAsTheToolWould(t *testing.T) {
	site, port := chainSite(t, t.TempDir())
	admin := testproc.FreePort(t)
	site = strings.Replace(site, "admin off", fmt.Sprintf("admin 127.0.0.1:%d", admin), 1)
	testcaddy.Load(t, site)
	base := fmt.Sprintf("http://127.0.0.1:%d/mcp/raad", port)
	c := connect(t, base, false, nil)
	src := decodeResult(t, mustTool(t, c, "obv_sources", nil))
	org := src["organizations"].([]any)[0].(map[string]any)["key"].(string)
	args := map[string]any{"organization": org, "limit": 5}
	legacy := connect(t, base, true, nil)
	eras := []rawEra{{name: "2026-07-28", modern: true}, {name: "2025-11-25", session: legacy.GetSessionId()}}
	f := pooled(t, "raad").fast
	hc := &http.Client{}
	call := func(e rawEra) []byte {
		t.Helper()
		body, hdr := rawToolCall(e, 7, "obv_search", args)
		resp, b := postRaw(t, hc, base, body, hdr)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: HTTP %d %s", e.name, resp.StatusCode, b)
		}
		return b
	}
	for range 3 { // stored, then into the hot set, then kept
		call(eras[0])
		call(eras[1])
	}

	// Memo on, memo off, memo on: where the first came from the memo and
	// nothing moved on between (a second, a ttl), the three are the same
	// bytes. A memo that kept anything stale would never match.
	for _, e := range eras {
		same := false
		for range 50 {
			before := f.memoServed.Load()
			a := call(e)
			fromMemo := f.memoServed.Load() > before
			f.memoOff.Store(true)
			b := call(e)
			f.memoOff.Store(false)
			if fromMemo && bytes.Equal(a, b) {
				same = true
				break
			}
		}
		if !same {
			t.Errorf("%s: no answer from the memo was the tool's own answer", e.name)
		}
	}

	// fromMemoAgain calls until a call is answered from the memo.
	fromMemoAgain := func() {
		t.Helper()
		for range 50 {
			before := f.memoServed.Load()
			call(eras[0])
			if f.memoServed.Load() > before {
				return
			}
		}
		t.Fatal("no call answered from the memo")
	}

	// A reload configures the connector anew: what was kept under the
	// old config is not written again.
	fromMemoAgain()
	conn := pooled(t, "raad")
	conn.configure(*conn.settings())
	before := f.memoServed.Load()
	call(eras[0])
	if f.memoServed.Load() != before {
		t.Error("the first call after a reload was answered from the memo")
	}

	// After a purge the entry behind the kept result is gone: the next
	// call is not answered from the memo (the platform is asked again,
	// through mcp-go).
	fromMemoAgain()
	req, _ := http.NewRequest(http.MethodDelete, fmt.Sprintf("http://127.0.0.1:%d/besluitbron/cache/obv", admin), nil)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("purge: HTTP %d", resp.StatusCode)
	}
	before = f.memoServed.Load()
	for _, e := range eras {
		if b := call(e); !bytes.Contains(b, []byte(`\"from_cache\":false`)) && e.modern {
			t.Errorf("%s: the first call after a purge was not asked anew: %s", e.name, b)
		}
	}
	if f.memoServed.Load() != before {
		t.Error("a call after the purge was answered from the memo")
	}
}
