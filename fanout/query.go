package fanout

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
)

// Bounds of a query. They keep one question small: a hostile caller gets
// a clear refusal, never a large request to seven platforms.
const (
	MaxWordsLen        = 400 // bytes of Words
	MaxOrganisationLen = 100 // bytes of Organisation
	MaxPlatforms       = 16  // names in Platforms (more than the table has)
	DefaultLimit       = 10  // hits per platform when Limit is 0
	MaxLimit           = 50  // hits per platform at most
)

// Query is one question for every platform.
type Query struct {
	// Words to find; every platform's own syntax applies (all words must
	// match on most). Optional when Organisation is given.
	Words string `json:"q,omitempty"`
	// From and To bound the date, YYYY-MM-DD, both optional.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Organisation narrows to one body: an OpenBesluitvorming key
	// (utrecht), an issuing body for Officiële Bekendmakingen (Bergeijk),
	// a court for Rechtspraak (HR, Rechtbank Den Haag). Platforms without
	// such a filter (Tweede Kamer, OpenTK) are skipped when it is set.
	Organisation string `json:"organisation,omitempty"`
	// Platforms to ask, by key; empty means every enabled platform.
	Platforms []string `json:"platforms,omitempty"`
	// Limit is the number of hits asked of each platform, 1..MaxLimit;
	// 0 means DefaultLimit.
	Limit int `json:"limit,omitempty"`
	// Sort is the order of the merged list: SortRelevance or SortDate;
	// empty means relevance when there are words, date otherwise
	// (Order).
	Sort string `json:"sort,omitempty"`
	// FullText asks for the words inside the documents' full text too: a
	// platform that answers words from BesluitBron's replica of its feed,
	// which holds no full text, is asked itself (its provenance says so).
	FullText bool `json:"fulltext,omitempty"`
}

// Validate checks q and says what to fix: a *QueryError for each thing
// wrong, joined (QueryErrors takes them apart). It knows nothing of which
// platforms an engine offers (Engine.Check adds that).
func (q Query) Validate() error {
	var errs []error
	add := func(e *QueryError) { errs = append(errs, e) }
	if !utf8.ValidString(q.Words) || !utf8.ValidString(q.Organisation) {
		field := ParamWords
		if utf8.ValidString(q.Words) {
			field = ParamOrganisation
		}
		add(queryError(CodeNotUTF8, field, "", 0, "q and organisation must be UTF-8 text"))
	}
	if len(q.Words) > MaxWordsLen {
		add(queryError(CodeWordsTooLong, ParamWords, itoa(len(q.Words)), MaxWordsLen,
			fmt.Sprintf("q is %d bytes long: use at most %d", len(q.Words), MaxWordsLen)))
	}
	if hasControl(q.Words) {
		add(queryError(CodeWordsControl, ParamWords, "", 0, "q holds control characters: use plain words"))
	}
	if len(q.Organisation) > MaxOrganisationLen {
		add(queryError(CodeOrganisationTooLong, ParamOrganisation, itoa(len(q.Organisation)), MaxOrganisationLen,
			fmt.Sprintf("organisation is %d bytes long: use at most %d", len(q.Organisation), MaxOrganisationLen)))
	}
	if hasControl(q.Organisation) {
		add(queryError(CodeOrganisationControl, ParamOrganisation, "", 0, "organisation holds control characters: use a name or key such as utrecht"))
	}
	if strings.TrimSpace(q.Words) == "" && strings.TrimSpace(q.Organisation) == "" {
		add(queryError(CodeNothingToSearch, "", "", 0, "give words to search for (q), an organisation, or both"))
	}
	if e := checkDates(q.From, q.To); e != nil {
		add(e)
	}
	if q.Limit < 0 || q.Limit > MaxLimit {
		add(queryError(CodeLimitOutOfRange, ParamLimit, itoa(q.Limit), MaxLimit,
			fmt.Sprintf("limit %d is out of range: use 1 to %d hits per platform (or omit it for %d)", q.Limit, MaxLimit, DefaultLimit)))
	}
	if q.Sort != "" && !slices.Contains(Sorts, q.Sort) {
		add(queryError(CodeUnknownSort, ParamSort, adapters.Cut(q.Sort, 20), 0,
			fmt.Sprintf("sort %q is unknown: use %s (or omit it for relevance when q has words, date otherwise)", adapters.Cut(q.Sort, 20), strings.Join(Sorts, " or "))))
	}
	if len(q.Platforms) > MaxPlatforms {
		add(queryError(CodeTooManyPlatforms, ParamPlatforms, itoa(len(q.Platforms)), MaxPlatforms,
			fmt.Sprintf("%d platforms named: name at most %d (known: %s)", len(q.Platforms), MaxPlatforms, strings.Join(platforms.Keys(), ", "))))
	} else {
		seen := map[string]bool{}
		for _, k := range q.Platforms {
			if _, ok := platforms.Get(k); !ok {
				add(queryError(CodeUnknownPlatform, ParamPlatforms, adapters.Cut(k, 40), 0,
					fmt.Sprintf("platform %q is unknown: use %s", adapters.Cut(k, 40), strings.Join(platforms.Keys(), ", "))))
				continue
			}
			if seen[k] {
				add(queryError(CodePlatformTwice, ParamPlatforms, k, 0, fmt.Sprintf("platform %q is named twice: name it once", k)))
			}
			seen[k] = true
		}
	}
	return errors.Join(errs...)
}

// checkDates checks from and to as adapters.ParseDates does (each empty or
// YYYY-MM-DD, from not after to), with the same English text under this
// API's names (from, to instead of the tools' date_from, date_to), and
// says which was wrong.
func checkDates(from, to string) *QueryError {
	names := strings.NewReplacer("date_from", ParamFrom, "date_to", ParamTo)
	f, err := adapters.ParseDate("date_from", from)
	if err != nil {
		return queryError(CodeBadDate, ParamFrom, adapters.Cut(strings.TrimSpace(from), 40), 0, names.Replace(err.Error()))
	}
	t, err := adapters.ParseDate("date_to", to)
	if err != nil {
		return queryError(CodeBadDate, ParamTo, adapters.Cut(strings.TrimSpace(to), 40), 0, names.Replace(err.Error()))
	}
	if _, _, err := adapters.ParseDates(from, to); err != nil {
		// Only the order is left to be wrong.
		e := queryError(CodeDatesSwapped, ParamFrom, f, 0, names.Replace(err.Error()))
		e.Other = t
		return e
	}
	return nil
}

// limit is q's hits per platform.
func (q Query) limit() int {
	if q.Limit <= 0 {
		return DefaultLimit
	}
	return q.Limit
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\t' })
}
