package fanout

import "github.com/besluitbron/besluitbron/adapters"

// Hit is one document in the merged answer.
type Hit struct {
	Platform     string `json:"platform"`      // platform key, e.g. obv
	PlatformName string `json:"platform_name"` // e.g. OpenBesluitvorming
	Type         string `json:"type,omitempty"`
	ID           string `json:"id"` // the platform's id, for its fetch tool
	Title        string `json:"title"`
	Date         string `json:"date,omitempty"` // YYYY-MM-DD when the platform gave one
	Organisation string `json:"organisation,omitempty"`
	Snippet      string `json:"snippet,omitempty"`
	// URL is the document's public page at its source (source_url, as
	// every platform tool names it).
	URL string `json:"source_url,omitempty"`
	// URLDropped says why the platform's link was left out: only http(s)
	// links are handed on (adapters.CheckLink).
	URLDropped string `json:"source_url_dropped,omitempty"`
	// Citation is how the document is cited, in the Dutch form for its
	// kind (ECLI:NL:HR:2024:123, Stb. 2018, 84), as its platform gave it.
	Citation string `json:"citation,omitempty"`
	// URI is the document as a BesluitBron MCP resource
	// (besluitbron://<platform>/...), which resources/read reads; empty
	// for a platform whose documents are not read here.
	URI string `json:"uri,omitempty"`
	// Kamerstuk is the kamerstuk number (kst-36200-VII-12) when the
	// platform gave it apart from its id and link (Tweede Kamer's
	// Gegevensmagazijn): the identifier its publication at Officiële
	// Bekendmakingen has.
	Kamerstuk string `json:"kamerstuk,omitempty"`
	// Also is the same document on other platforms, found under a
	// shared identifier (a kamerstuk number, a TK document number, an
	// ECLI).
	Also []Link `json:"also,omitempty"`
}

// Link is a duplicate of a hit on another platform.
type Link struct {
	Platform     string `json:"platform"`
	PlatformName string `json:"platform_name"`
	ID           string `json:"id"`
	URL          string `json:"source_url,omitempty"`
	URLDropped   string `json:"source_url_dropped,omitempty"`
	Citation     string `json:"citation,omitempty"`
	URI          string `json:"uri,omitempty"`
}

// Outcome states.
const (
	StateAnswered   = "answered"    // the platform answered now
	StateCache      = "cache"       // every answer came from BesluitBron's cache
	StateTimeout    = "timeout"     // no answer before the deadline
	StateOverBudget = "over_budget" // BesluitBron's budget or the platform (429) turned it away
	StateFailed     = "failed"      // the platform failed or answered in an unexpected form
	StateSkipped    = "skipped"     // not asked: the question does not fit the platform
)

// Outcome reasons: why a platform was skipped, timed out, over budget or
// failed, as a code a page or an app can translate (Outcome.Reason);
// Outcome.Error says the same in English, with the details.
const (
	// skipped
	ReasonQueryRefused         = "query_refused"                    // the question itself was refused (Check); no platform asked
	ReasonNoOrganisationFilter = adapters.UnfitNoOrganisationFilter // the platform cannot filter by organisation (TK, OpenTK)
	ReasonNoWordSearch         = adapters.UnfitNoWordSearch         // Rechtspraak: no free text; name a court or an ECLI
	ReasonNeedsWords           = adapters.UnfitNeedsWords           // the platform searches only with words
	ReasonIndexUnavailable     = adapters.UnfitIndexUnavailable     // BesluitBron's own index of the platform cannot answer now
	ReasonUnknownCourt         = adapters.UnfitUnknownCourt         // the organisation names no single court of Rechtspraak
	ReasonQueryUnfit           = adapters.UnfitArguments            // the platform's request builder refused the arguments
	// timeout
	ReasonDeadline  = "deadline"  // no answer within the search's deadline
	ReasonCancelled = "cancelled" // the caller went away before the platform answered
	// over_budget
	ReasonBudget      = "budget"       // BesluitBron's own budget for the platform has no room now
	ReasonRateLimited = "rate_limited" // the platform itself answered HTTP 429
	// failed
	ReasonPlatformError    = "platform_error"    // the platform answered an error status
	ReasonUnexpectedAnswer = "unexpected_answer" // the answer did not parse
	ReasonUnreachable      = "unreachable"       // the platform could not be asked
)

// Outcome is what became of one platform's part of the question.
type Outcome struct {
	Platform     string `json:"platform"`
	PlatformName string `json:"platform_name"`
	State        string `json:"state"` // answered, cache, timeout, over_budget, failed, skipped
	// RetryAfterSeconds is, for over_budget (and a failing platform that
	// said so), when asking again may succeed.
	RetryAfterSeconds int    `json:"retry_after_seconds,omitempty"`
	Error             string `json:"error,omitempty"` // short reason in English, for failed, skipped, timeout, over_budget
	Hits              int    `json:"hits"`            // hits this platform gave (before duplicates merged)
	Total             int    `json:"total,omitempty"` // hits the platform reports in all, when it says
	TookMS            int64  `json:"took_ms"`
	QueueWaitMS       int64  `json:"queue_wait_ms,omitempty"` // waited for the platform's budget
	// Provenance says where the hits came from when not from the
	// platform itself: "BesluitBron's index of Rechtspraak's feed,
	// complete up to ..." (or how far it got while incomplete).
	Provenance string `json:"provenance,omitempty"`

	// Reason says Error as a code (Reason* above), set whenever Error
	// is: for pages and apps that say it in their own language.
	Reason string `json:"reason,omitempty"`
}

// Result is the merged answer.
type Result struct {
	Query Query `json:"query"`
	// Sort is the order the hits are in (SortRelevance or SortDate):
	// the query's sort, or its default (Query.Order). Empty only when
	// the query was refused (no platform asked, no hits).
	Sort     string    `json:"sort,omitempty"`
	Hits     []Hit     `json:"hits"`     // in the order Sort names
	Outcomes []Outcome `json:"outcomes"` // one per platform asked or skipped, in the engine's order
	// Partial is true when some platform asked gave no hits because it
	// timed out, was over budget or failed: the hits are what the others
	// answered.
	Partial bool  `json:"partial"`
	TookMS  int64 `json:"took_ms"`
}
