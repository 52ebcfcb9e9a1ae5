package fanout

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/besluitbron/besluitbron/caddymodule/platforms"
	"github.com/besluitbron/besluitbron/mcp/adapters"
)

// Bounds of a query. They keep one question small: a hostile caller gets
// a clear refusal, never a large request to seven platforms.
const (
	MaxWordsLen        = 400 // bytes of Words
	MaxOrganisationLen = 100 // bytes of Organisation
	MaxPlatforms       = 16  // names in Platforms (there are seven platforms)
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
}

// Validate checks q and says what to fix. It knows nothing of which
// platforms an engine offers (Engine.Check adds that).
func (q Query) Validate() error {
	var errs []error
	if !utf8.ValidString(q.Words) || !utf8.ValidString(q.Organisation) {
		errs = append(errs, errors.New("q and organisation must be UTF-8 text"))
	}
	if len(q.Words) > MaxWordsLen {
		errs = append(errs, fmt.Errorf("q is %d bytes long: use at most %d", len(q.Words), MaxWordsLen))
	}
	if hasControl(q.Words) {
		errs = append(errs, errors.New("q holds control characters: use plain words"))
	}
	if len(q.Organisation) > MaxOrganisationLen {
		errs = append(errs, fmt.Errorf("organisation is %d bytes long: use at most %d", len(q.Organisation), MaxOrganisationLen))
	}
	if hasControl(q.Organisation) {
		errs = append(errs, errors.New("organisation holds control characters: use a name or key such as utrecht"))
	}
	if strings.TrimSpace(q.Words) == "" && strings.TrimSpace(q.Organisation) == "" {
		errs = append(errs, errors.New("give words to search for (q), an organisation, or both"))
	}
	if _, _, err := adapters.ParseDates(q.From, q.To); err != nil {
		// ParseDates names the fields date_from and date_to.
		msg := strings.NewReplacer("date_from", "from", "date_to", "to").Replace(err.Error())
		errs = append(errs, errors.New(msg))
	}
	if q.Limit < 0 || q.Limit > MaxLimit {
		errs = append(errs, fmt.Errorf("limit %d is out of range: use 1 to %d hits per platform (or omit it for %d)", q.Limit, MaxLimit, DefaultLimit))
	}
	if len(q.Platforms) > MaxPlatforms {
		errs = append(errs, fmt.Errorf("%d platforms named: name at most %d (known: %s)", len(q.Platforms), MaxPlatforms, strings.Join(platforms.Keys(), ", ")))
	} else {
		seen := map[string]bool{}
		for _, k := range q.Platforms {
			if _, ok := platforms.Get(k); !ok {
				errs = append(errs, fmt.Errorf("platform %q is unknown: use %s", adapters.Cut(k, 40), strings.Join(platforms.Keys(), ", ")))
				continue
			}
			if seen[k] {
				errs = append(errs, fmt.Errorf("platform %q is named twice: name it once", k))
			}
			seen[k] = true
		}
	}
	return errors.Join(errs...)
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
