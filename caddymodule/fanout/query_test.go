package fanout

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// TestBadQueries: every refusal says what to fix, and a refused query
// asks no platform.
func TestBadQueries(t *testing.T) {
	many := make([]string, 1000)
	for i := range many {
		many[i] = "obv"
	}
	for _, tc := range []struct {
		name string
		q    Query
		want string
	}{
		{"empty", Query{}, "give words to search for"},
		{"blank", Query{Words: "  \t "}, "give words to search for"},
		{"huge words", Query{Words: strings.Repeat("stikstof ", 10000)}, "use at most 400"},
		{"control", Query{Words: "a\x00b"}, "control characters"},
		{"not utf-8", Query{Words: "\xff\xfe"}, "UTF-8"},
		{"huge organisation", Query{Words: "a", Organisation: strings.Repeat("x", 500)}, "use at most 100"},
		{"bad from", Query{Words: "a", From: "2024-13-01"}, "from"},
		{"swapped", Query{Words: "a", From: "2024-05-01", To: "2024-01-01"}, "swap them"},
		{"limit", Query{Words: "a", Limit: 1000}, "use 1 to 50"},
		{"negative limit", Query{Words: "a", Limit: -1}, "use 1 to 50"},
		{"1000 platforms", Query{Words: "a", Platforms: many}, "name at most 16"},
		{"unknown platform", Query{Words: "a", Platforms: []string{"google"}}, `platform "google" is unknown: use`},
		{"twice", Query{Words: "a", Platforms: []string{"obv", "obv"}}, "named twice"},
	} {
		err := tc.q.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	d := &emulatorDoer{}
	e, _ := engine(t, d.do, "obv", "tk")
	if err := e.Check(Query{Words: "a", Platforms: []string{"ori"}}); err == nil || !strings.Contains(err.Error(), "not offered here: use obv, tk") {
		t.Errorf("a platform the engine does not offer: %v", err)
	}
	res := e.Search(context.Background(), Query{Words: strings.Repeat("x", 5000)}, nil)
	if d.calls.Load() != 0 {
		t.Errorf("a refused query asked the platforms %d times", d.calls.Load())
	}
	for _, o := range res.Outcomes {
		if o.State != StateSkipped || !strings.Contains(o.Error, "at most 400") {
			t.Errorf("%s: %+v, want skipped with the reason", o.Platform, o)
		}
	}
	if _, err := New(Options{}); err == nil {
		t.Error("New without a Doer")
	}
	if _, err := New(Options{Do: d.do, Platforms: []string{"obv", "nope"}}); err == nil {
		t.Error("New with an unknown platform")
	}
}

// TestPlatformsThatDoNotFit: an organisation skips the platforms without
// an organisation filter; Rechtspraak looks up an ECLI, or lists a court's
// rulings; an organisation that names no court skips it.
func TestPlatformsThatDoNotFit(t *testing.T) {
	d := &emulatorDoer{}
	e, _ := engine(t, d.do, "obv", "tk", "opentk", "rechtspraak")
	res := e.Search(context.Background(), Query{Organisation: "HR", From: "2020-01-01"}, nil)
	for k, want := range map[string]string{"tk": StateSkipped, "opentk": StateSkipped, "rechtspraak": StateAnswered} {
		o := outcomeOfKey(t, res, k)
		if o.State != want || (want == StateAnswered && o.Hits == 0) {
			t.Errorf("organisation HR: %s %+v, want %s", k, o, want)
		}
		if want == StateSkipped && o.Reason != ReasonNoOrganisationFilter {
			t.Errorf("organisation HR: %s reason %q, want %s", k, o.Reason, ReasonNoOrganisationFilter)
		}
		if want == StateAnswered && (o.Reason != "" || o.Error != "") {
			t.Errorf("organisation HR: %s answered with reason %q, error %q", k, o.Reason, o.Error)
		}
	}
	res = e.Search(context.Background(), Query{Words: "stikstof", Organisation: "provincie-utrecht", Platforms: []string{"rechtspraak"}}, nil)
	if o := outcomeOfKey(t, res, "rechtspraak"); o.State != StateSkipped || !strings.Contains(o.Error, "no single court") || o.Reason != ReasonUnknownCourt {
		t.Errorf("organisation zeist at Rechtspraak: %+v", o)
	}
	// Words alone: Rechtspraak has no free-text search.
	res = e.Search(context.Background(), Query{Words: "stikstof", Platforms: []string{"rechtspraak"}}, nil)
	if o := outcomeOfKey(t, res, "rechtspraak"); o.State != StateSkipped || o.Reason != ReasonNoWordSearch {
		t.Errorf("words at Rechtspraak: %+v", o)
	}
	// A question Check refuses asks no platform: each is skipped, the
	// reason the question's.
	res = e.Search(context.Background(), Query{Words: "stikstof", From: "2025-02-01", To: "2025-01-01", Platforms: []string{"obv"}}, nil)
	if o := outcomeOfKey(t, res, "obv"); o.State != StateSkipped || o.Reason != ReasonQueryRefused {
		t.Errorf("swapped dates: %+v", o)
	}
	e, _ = engine(t, d.do, "obv", "ori")
	res = e.Search(context.Background(), Query{Organisation: "utrecht"}, nil)
	if o := outcomeOfKey(t, res, "ori"); o.State != StateSkipped || o.Reason != ReasonNeedsWords {
		t.Errorf("no words at ORI: %+v", o)
	}
}

// TestServeJSON: GET /search answers the merged result as JSON; a bad
// query is a 400 that says what to fix; other methods a 405.
func TestServeJSON(t *testing.T) {
	d := &emulatorDoer{}
	e, _ := engine(t, d.do, "obv", "tk", "ob")
	get := func(method, rawQuery string) (*httptest.ResponseRecorder, map[string]any) {
		r := httptest.NewRequest(method, "/search?"+rawQuery, nil)
		w := httptest.NewRecorder()
		if err := ServeJSON(w, r, e); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if method != http.MethodHead {
			if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
				t.Fatalf("%s %s: not JSON: %v: %s", method, rawQuery, err, w.Body.String())
			}
		}
		return w, m
	}
	w, m := get("GET", url.Values{"q": {"woningbouw"}, "platforms": {"obv,tk"}, "from": {"2020-01-01"}, "limit": {"5"}}.Encode())
	if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("status %d, type %q", w.Code, w.Header().Get("Content-Type"))
	}
	var res Result
	_ = json.Unmarshal(w.Body.Bytes(), &res)
	if len(res.Outcomes) != 2 || res.Query.Limit != 5 || len(res.Hits) == 0 || len(res.Hits) > 10 {
		t.Errorf("result: %d outcomes, limit %d, %d hits", len(res.Outcomes), res.Query.Limit, len(res.Hits))
	}
	// The reason code is in the JSON next to the English error.
	_, m = get("GET", url.Values{"q": {"woningbouw"}, "org": {"utrecht"}, "platforms": {"obv,tk"}}.Encode())
	found := false
	for _, o := range m["outcomes"].([]any) {
		o := o.(map[string]any)
		if o["platform"] == "tk" {
			found = o["state"] == StateSkipped && o["reason"] == ReasonNoOrganisationFilter && o["error"] != ""
		}
	}
	if !found {
		t.Errorf("tk with an organisation: want skipped with reason %s in the JSON: %v", ReasonNoOrganisationFilter, m["outcomes"])
	}
	// The page's form spells them org and platform (one per checkbox).
	q, err := ParseQuery(url.Values{"q": {"x"}, "org": {" utrecht "}, "platform": {"obv", "tk"}})
	if err != nil || q.Organisation != "utrecht" || strings.Join(q.Platforms, ",") != "obv,tk" {
		t.Errorf("org/platform: %+v %v", q, err)
	}
	for _, tc := range []struct{ query, want string }{
		{"", "give words"},
		{"q=a&limit=lots", "not a number"},
		{"q=a&platforms=" + strings.Repeat("obv,", 1000), "name at most 16"},
		{"q=a&platforms=oa", "not offered here"},
		{"q=a&from=yesterday", "from"},
		{"q=%zz", "not valid URL encoding"},
		{"q=" + strings.Repeat("a", 5000), "query string is"},
	} {
		w, m := get("GET", tc.query)
		if w.Code != 400 || !strings.Contains(m["error"].(string), tc.want) {
			t.Errorf("?%.60s: %d %v, want 400 with %q", tc.query, w.Code, m["error"], tc.want)
		}
	}
	if w, _ := get("POST", "q=a"); w.Code != 405 || w.Header().Get("Allow") == "" {
		t.Errorf("POST: %d", w.Code)
	}
}
