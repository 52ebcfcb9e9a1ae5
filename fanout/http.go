package fanout

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
)

// Query parameters of GET /search (docs/search.md).
const (
	ParamWords        = "q"
	ParamFrom         = "from"
	ParamTo           = "to"
	ParamOrganisation = "organisation"
	ParamPlatforms    = "platforms" // comma-separated keys; may repeat
	ParamLimit        = "limit"
	ParamSort         = "sort"     // relevance or date (Sorts)
	ParamFullText     = "fulltext" // 1, true or on: words inside documents too (Query.FullText)
)

// IsOn reads a flag as a form or a link gives it: 1, true or on.
func IsOn(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "on":
		return true
	}
	return false
}

// maxQueryBytes bounds the raw query string ParseQuery reads.
const maxQueryBytes = 4096

// ParseQuery reads a Query from URL query parameters (q, from, to,
// organisation, platforms, limit, sort) and validates it (Query.Validate; its
// errors are *QueryErrors). The search page's form uses the same names.
func ParseQuery(v url.Values) (Query, error) {
	q := Query{Words: v.Get(ParamWords), From: strings.TrimSpace(v.Get(ParamFrom)), To: strings.TrimSpace(v.Get(ParamTo)),
		Organisation: strings.TrimSpace(v.Get(ParamOrganisation)), Sort: strings.TrimSpace(v.Get(ParamSort)),
		FullText: IsOn(v.Get(ParamFullText))}
	// Other spellings: the American one obv_search takes, and the search
	// page's form fields (org, one platform per checkbox).
	for _, alias := range []string{"organization", "org"} {
		if q.Organisation == "" {
			q.Organisation = strings.TrimSpace(v.Get(alias))
		}
	}
	for _, list := range append(v[ParamPlatforms], v["platform"]...) {
		for _, k := range strings.Split(list, ",") {
			if k = strings.TrimSpace(k); k != "" {
				q.Platforms = append(q.Platforms, k)
			}
			if len(q.Platforms) > MaxPlatforms {
				// Validate refuses it; stop reading a hostile list.
				break
			}
		}
	}
	if s := strings.TrimSpace(v.Get(ParamLimit)); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return q, queryError(CodeLimitNotNumber, ParamLimit, adapters.Cut(s, 20), MaxLimit,
				fmt.Sprintf("limit %q is not a number: use 1 to %d", adapters.Cut(s, 20), MaxLimit))
		}
		q.Limit = n
	}
	return q, q.Validate()
}

// ServeJSON answers GET /search for apps: it reads the query parameters,
// asks e and writes the merged Result as JSON (200, also when some
// platforms timed out or failed: see Result.Partial and the outcomes). A
// query it refuses is a 400 with {"error": what to fix, "code": the
// same as a code, ...}; a method other than GET or HEAD is a 405. The
// error it returns is only a failure to write.
func ServeJSON(w http.ResponseWriter, r *http.Request, e *Engine) error {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		return writeJSON(w, http.StatusMethodNotAllowed, errorBody{Error: "use GET /search?q=..."})
	}
	if len(r.URL.RawQuery) > maxQueryBytes {
		return writeRefusal(w, e, queryError(CodeQueryStringTooLong, "", itoa(len(r.URL.RawQuery)), maxQueryBytes,
			fmt.Sprintf("the query string is %d bytes long: use at most %d", len(r.URL.RawQuery), maxQueryBytes)))
	}
	v, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return writeRefusal(w, e, queryError(CodeQueryStringEncoding, "", "", 0, "the query string is not valid URL encoding: "+err.Error()))
	}
	q, err := ParseQuery(v)
	if err == nil {
		err = e.Check(q)
	}
	if err != nil {
		return writeRefusal(w, e, err)
	}
	res := e.Search(r.Context(), q, nil)
	// A search answer changes as the platforms do; the platform answers
	// behind it are cached, this merge is not.
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, res)
}

type errorBody struct {
	Error     string   `json:"error"`
	Platforms []string `json:"platforms,omitempty"`
	Hint      string   `json:"hint,omitempty"`
	// Code is the first problem's code (Code*), Problems every problem
	// with its code and parameters: for an app that says it in its own
	// language. Error stays the English text of them all.
	Code     string        `json:"code,omitempty"`
	Problems []*QueryError `json:"problems,omitempty"`
}

// writeRefusal answers a query ServeJSON refuses: 400 with what to fix.
func writeRefusal(w http.ResponseWriter, e *Engine, err error) error {
	body := errorBody{Error: err.Error(), Platforms: e.Platforms(),
		Hint: "GET /search?q=stikstof&from=2024-01-01&to=2024-12-31&organisation=utrecht&platforms=obv,tk&limit=10&sort=relevance"}
	if body.Problems = QueryErrors(err); len(body.Problems) > 0 {
		body.Code = body.Problems[0].Code
	}
	return writeJSON(w, http.StatusBadRequest, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return errors.Join(errors.New("fanout: rendering the answer"), err)
	}
	w.WriteHeader(status)
	_, err = w.Write(append(b, '\n'))
	return err
}
