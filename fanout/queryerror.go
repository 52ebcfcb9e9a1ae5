package fanout

import (
	"errors"
	"strconv"
)

// Codes of a refused query (QueryError.Code): what is wrong, as a code a
// page or an app can say in its own language; QueryError.Error says the
// same in English, with the details. Apps should expect new codes.
const (
	CodeNotUTF8             = "not_utf8"              // q or organisation is not UTF-8 text (Field says which)
	CodeWordsTooLong        = "words_too_long"        // q is longer than Limit bytes (Value: its length)
	CodeWordsControl        = "words_control"         // q holds control characters
	CodeOrganisationTooLong = "organisation_too_long" // organisation is longer than Limit bytes (Value: its length)
	CodeOrganisationControl = "organisation_control"  // organisation holds control characters
	CodeNothingToSearch     = "nothing_to_search"     // neither words nor an organisation
	CodeBadDate             = "bad_date"              // from or to (Field) is not YYYY-MM-DD (Value: as given)
	CodeDatesSwapped        = "dates_swapped"         // from (Value) is after to (Other)
	CodeLimitOutOfRange     = "limit_out_of_range"    // limit (Value) is not 1..Limit
	CodeLimitNotNumber      = "limit_not_number"      // limit (Value, cut short) is not a number
	CodeTooManyPlatforms    = "too_many_platforms"    // Value platforms named, more than Limit
	CodeUnknownPlatform     = "unknown_platform"      // no platform has the key Value (cut short)
	CodePlatformTwice       = "platform_twice"        // the platform Value is named twice
	CodePlatformNotOffered  = "platform_not_offered"  // the platform Value exists but this engine does not offer it
	CodeUnknownSort         = "unknown_sort"          // sort (Value, cut short) is neither relevance nor date
	CodeQueryStringTooLong  = "query_string_too_long" // GET /search only: the query string is Value bytes, more than Limit
	CodeQueryStringEncoding = "query_string_encoding" // GET /search only: the query string is not valid URL encoding
)

// QueryError is one thing wrong with a query: Query.Validate,
// Engine.Check and ParseQuery return one, or several joined
// (errors.Join; QueryErrors takes them apart). Error is the English text
// the JSON API and the MCP tools show; Code and its parameters let a page
// say it in another language.
type QueryError struct {
	// Code is one of the Code* constants.
	Code string `json:"code"`
	// Field is the parameter at fault: q, organisation, from, to,
	// platforms, limit or sort; empty for the question as a whole.
	Field string `json:"field,omitempty"`
	// Value is the value at fault as text: a date, a platform key or a
	// limit as given (cut short when long), or a length in bytes or a
	// count (the *_too_long codes, too_many_platforms).
	Value string `json:"value,omitempty"`
	// Other is a second value: for dates_swapped, the to date.
	Other string `json:"other,omitempty"`
	// Limit is the bound broken (bytes, names, hits per platform); 0 when
	// the code has none.
	Limit int `json:"limit,omitempty"`

	msg string
}

// Error is the English text: what is wrong and what to do instead.
func (e *QueryError) Error() string { return e.msg }

// queryError builds a QueryError with its English text.
func queryError(code, field, value string, limit int, msg string) *QueryError {
	return &QueryError{Code: code, Field: field, Value: value, Limit: limit, msg: msg}
}

// QueryErrors are the QueryErrors in err (one, or those joined in it), in
// order; none when err holds none.
func QueryErrors(err error) []*QueryError {
	var out []*QueryError
	var walk func(error)
	walk = func(err error) {
		var qe *QueryError
		switch x := err.(type) {
		case nil:
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				walk(e)
			}
		default:
			if errors.As(err, &qe) {
				out = append(out, qe)
			}
		}
	}
	walk(err)
	return out
}

// itoa keeps the call sites short.
func itoa(n int) string { return strconv.Itoa(n) }
