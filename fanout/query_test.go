package fanout

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/platforms"
)

// TestBadQueries: every refusal says what to fix, and a refused query
// asks no platform.
func TestBadQueries(t *testing.T) {
	many := make([]string, 1000)
	for i := range many {
		many[i] = "obv"
	}
	known := strings.Join(platforms.Keys(), ", ")
	// The English text is the one the JSON API and the MCP tools have
	// always shown; the code and its parameters are for other languages.
	for _, tc := range []struct {
		name string
		q    Query
		text string
		want QueryError
	}{
		{"empty", Query{}, "give words to search for (q), an organisation, or both", QueryError{Code: CodeNothingToSearch}},
		{"blank", Query{Words: "  \t "}, "give words to search for (q), an organisation, or both", QueryError{Code: CodeNothingToSearch}},
		{"huge words", Query{Words: strings.Repeat("stikstof ", 10000)}, "q is 90000 bytes long: use at most 400",
			QueryError{Code: CodeWordsTooLong, Field: "q", Value: "90000", Limit: 400}},
		{"control", Query{Words: "a\x00b"}, "q holds control characters: use plain words", QueryError{Code: CodeWordsControl, Field: "q"}},
		{"not utf-8", Query{Words: "\xff\xfe"}, "q and organisation must be UTF-8 text", QueryError{Code: CodeNotUTF8, Field: "q"}},
		{"organisation not utf-8", Query{Words: "a", Organisation: "\xff"}, "q and organisation must be UTF-8 text", QueryError{Code: CodeNotUTF8, Field: "organisation"}},
		{"huge organisation", Query{Words: "a", Organisation: strings.Repeat("x", 500)}, "organisation is 500 bytes long: use at most 100",
			QueryError{Code: CodeOrganisationTooLong, Field: "organisation", Value: "500", Limit: 100}},
		{"organisation control", Query{Words: "a", Organisation: "a\nb"}, "organisation holds control characters: use a name or key such as utrecht",
			QueryError{Code: CodeOrganisationControl, Field: "organisation"}},
		{"bad from", Query{Words: "a", From: "2024-13-01"}, `from "2024-13-01" is not a date: write it as YYYY-MM-DD, e.g. 2024-03-01`,
			QueryError{Code: CodeBadDate, Field: "from", Value: "2024-13-01"}},
		{"bad to", Query{Words: "a", From: "2024-01-01", To: "1-1-2024"}, `to "1-1-2024" is not a date: write it as YYYY-MM-DD, e.g. 2024-03-01`,
			QueryError{Code: CodeBadDate, Field: "to", Value: "1-1-2024"}},
		{"swapped", Query{Words: "a", From: "2024-05-01", To: "2024-01-01"}, "from 2024-05-01 is after to 2024-01-01: swap them",
			QueryError{Code: CodeDatesSwapped, Field: "from", Value: "2024-05-01", Other: "2024-01-01"}},
		{"limit", Query{Words: "a", Limit: 1000}, "limit 1000 is out of range: use 1 to 50 hits per platform (or omit it for 10)",
			QueryError{Code: CodeLimitOutOfRange, Field: "limit", Value: "1000", Limit: 50}},
		{"negative limit", Query{Words: "a", Limit: -1}, "limit -1 is out of range: use 1 to 50 hits per platform (or omit it for 10)",
			QueryError{Code: CodeLimitOutOfRange, Field: "limit", Value: "-1", Limit: 50}},
		{"1000 platforms", Query{Words: "a", Platforms: many}, "1000 platforms named: name at most 16 (known: " + known + ")",
			QueryError{Code: CodeTooManyPlatforms, Field: "platforms", Value: "1000", Limit: 16}},
		{"unknown platform", Query{Words: "a", Platforms: []string{"google"}}, `platform "google" is unknown: use ` + known,
			QueryError{Code: CodeUnknownPlatform, Field: "platforms", Value: "google"}},
		{"twice", Query{Words: "a", Platforms: []string{"obv", "obv"}}, `platform "obv" is named twice: name it once`,
			QueryError{Code: CodePlatformTwice, Field: "platforms", Value: "obv"}},
		{"unknown sort", Query{Words: "a", Sort: "newest"}, `sort "newest" is unknown: use relevance or date (or omit it for relevance when q has words, date otherwise)`,
			QueryError{Code: CodeUnknownSort, Field: "sort", Value: "newest"}},
	} {
		err := tc.q.Validate()
		if err == nil || err.Error() != tc.text {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.text)
		}
		qes := QueryErrors(err)
		if len(qes) != 1 {
			t.Errorf("%s: %d QueryErrors in %v, want 1", tc.name, len(qes), err)
			continue
		}
		got := *qes[0]
		got.msg = ""
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	// Several problems: each with its code, the text all of them.
	err := Query{Words: strings.Repeat("x", 401), From: "2024-02-30", Limit: 51}.Validate()
	var codes []string
	for _, qe := range QueryErrors(err) {
		codes = append(codes, qe.Code)
	}
	if strings.Join(codes, ",") != "words_too_long,bad_date,limit_out_of_range" || strings.Count(err.Error(), "\n") != 2 {
		t.Errorf("three problems: codes %v, text %q", codes, err)
	}
	if QueryErrors(nil) != nil || QueryErrors(errors.New("other")) != nil {
		t.Error("QueryErrors found one where there is none")
	}
	d := &emulatorDoer{}
	e, _ := engine(t, d.do, "obv", "tk")
	err = e.Check(Query{Words: "a", Platforms: []string{"ori"}})
	if err == nil || err.Error() != `platform "ori" is not offered here: use obv, tk` {
		t.Errorf("a platform the engine does not offer: %v", err)
	}
	if qe := QueryErrors(err); len(qe) != 1 || qe[0].Code != CodePlatformNotOffered || qe[0].Value != "ori" || qe[0].Field != "platforms" {
		t.Errorf("a platform the engine does not offer: %+v", qe)
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
	// The answer says its order: relevance by default for words, date
	// without words, and whichever sort asks for.
	for _, tc := range []struct{ query, want string }{
		{"q=woningbouw&platforms=obv,tk", SortRelevance},
		{"org=utrecht&platforms=obv", SortDate},
		{"q=woningbouw&platforms=obv,tk&sort=date", SortDate},
		{"org=utrecht&platforms=obv&sort=relevance", SortRelevance},
	} {
		w, m := get("GET", tc.query)
		if w.Code != 200 || m["sort"] != tc.want {
			t.Errorf("?%s: HTTP %d, sort %v, want %s", tc.query, w.Code, m["sort"], tc.want)
		}
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
	for _, tc := range []struct{ query, want, code string }{
		{"", "give words", CodeNothingToSearch},
		{"q=a&limit=lots", `limit "lots" is not a number: use 1 to 50`, CodeLimitNotNumber},
		{"q=a&platforms=" + strings.Repeat("obv,", 1000), "name at most 16", CodeTooManyPlatforms},
		{"q=a&platforms=oa", "not offered here", CodePlatformNotOffered},
		{"q=a&from=yesterday", `from "yesterday" is not a date`, CodeBadDate},
		{"q=a&from=2024-02-01&to=2024-01-01", "from 2024-02-01 is after to 2024-01-01: swap them", CodeDatesSwapped},
		{"q=a&sort=score", `sort "score" is unknown: use relevance or date`, CodeUnknownSort},
		{"q=%zz", "not valid URL encoding", CodeQueryStringEncoding},
		{"q=" + strings.Repeat("a", 5000), "query string is", CodeQueryStringTooLong},
	} {
		w, m := get("GET", tc.query)
		if w.Code != 400 || !strings.Contains(m["error"].(string), tc.want) {
			t.Errorf("?%.60s: %d %v, want 400 with %q", tc.query, w.Code, m["error"], tc.want)
		}
		// The code is added next to the fields the 400 always had.
		problems, _ := m["problems"].([]any)
		if m["code"] != tc.code || m["hint"] == nil || m["platforms"] == nil || len(problems) != 1 || problems[0].(map[string]any)["code"] != tc.code {
			t.Errorf("?%.60s: %v, want code %s with the hint, the platforms and the problem", tc.query, m, tc.code)
		}
	}
	// The problem's parameters, for an app that says it itself.
	_, m = get("GET", "q=a&from=2024-02-01&to=2024-01-01")
	if p := m["problems"].([]any)[0].(map[string]any); p["field"] != "from" || p["value"] != "2024-02-01" || p["other"] != "2024-01-01" {
		t.Errorf("swapped dates: problem %v", p)
	}
	if w, _ := get("POST", "q=a"); w.Code != 405 || w.Header().Get("Allow") == "" {
		t.Errorf("POST: %d", w.Code)
	}
}
