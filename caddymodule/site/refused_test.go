package site_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// refusedInThePagesLanguage: a question the engine refuses (here: the
// date from after the date up to) is said in Dutch on the Dutch page and
// in English with lang=en, from the engine's code, never in the engine's
// English inside the Dutch sentence; the form keeps what the visitor
// typed and chose. The page's live stream says the same, and the JSON API
// keeps its English error and hint and adds the code.
func refusedInThePagesLanguage(t *testing.T, h house) {
	english := "from 2024-05-01 is after to 2024-01-01: swap them"
	form := url.Values{"q": {"stikstof"}, "from": {"2024-05-01"}, "to": {"2024-01-01"}, "org": {"utrecht"}, "platform": {"obv", "ob"}}
	for _, c := range []struct{ lang, want string }{
		{"", "Deze vraag klopt niet: de datum vanaf (2024-05-01) ligt na de datum tot en met (2024-01-01): verwissel ze"},
		{"en", "This question is not right: the date from (2024-05-01) is after the date up to (2024-01-01): swap them"},
	} {
		v := url.Values{}
		for k, vs := range form {
			v[k] = vs
		}
		if c.lang != "" {
			v.Set("lang", c.lang)
		}
		status, page := fetch(t, h.base+"/search?"+v.Encode(), nil)
		if status != http.StatusBadRequest {
			t.Errorf("lang %q: HTTP %d, want 400", c.lang, status)
		}
		if !strings.Contains(page, `<p class="error" role="alert">`+c.want+`</p>`) || strings.Contains(page, english) {
			t.Errorf("lang %q: the page does not say %q (or says the engine's English):\n%s", c.lang, c.want, page)
		}
		for _, kept := range []string{`name="q" value="stikstof"`, `name="from" value="2024-05-01"`, `name="to" value="2024-01-01"`,
			`name="org" value="utrecht"`, `value="obv" checked`, `value="ob" checked`, `<details class="filters" open>`} {
			if !strings.Contains(page, kept) {
				t.Errorf("lang %q: the form lost the visitor's input %s", c.lang, kept)
			}
		}
		if strings.Contains(page, `value="tk" checked`) {
			t.Errorf("lang %q: the form checked a platform the visitor left out", c.lang)
		}
	}

	// The live stream (the page's script) says it in the page's language
	// too, with the results region to show.
	status, body := fetch(t, h.base+"/search/events?"+form.Encode(), http.Header{"Accept": {"application/x-ndjson"}})
	var live struct{ Error, HTML, Code string }
	if err := json.Unmarshal([]byte(body), &live); err != nil || status != http.StatusBadRequest {
		t.Fatalf("/search/events: HTTP %d, %v: %s", status, err, body)
	}
	if !strings.HasPrefix(live.Error, "Deze vraag klopt niet: de datum vanaf") || !strings.Contains(live.HTML, live.Error) || live.Code != "dates_swapped" {
		t.Errorf("/search/events: %+v", live)
	}

	// The JSON API: its English error and hint as before, and the code.
	status, body = fetch(t, h.base+"/search?q=stikstof&from=2024-05-01&to=2024-01-01", http.Header{"Accept": {"application/json"}})
	var refused struct {
		Error, Hint, Code string
		Platforms         []string
		Problems          []struct{ Code, Field, Value, Other string }
	}
	if err := json.Unmarshal([]byte(body), &refused); err != nil || status != http.StatusBadRequest {
		t.Fatalf("JSON: HTTP %d, %v: %s", status, err, body)
	}
	if refused.Error != english || refused.Hint == "" || len(refused.Platforms) == 0 || refused.Code != "dates_swapped" ||
		len(refused.Problems) != 1 || refused.Problems[0].Value != "2024-05-01" || refused.Problems[0].Other != "2024-01-01" {
		t.Errorf("JSON 400: %s", body)
	}
}

// fetch reads u from 127.0.0.1, whatever its status.
func fetch(t *testing.T, u string, header http.Header) (int, string) {
	t.Helper()
	return fetchWith(t, http.DefaultClient, u, header)
}

// fetchWith is fetch by client c.
func fetchWith(t *testing.T, c *http.Client, u string, header http.Header) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}
