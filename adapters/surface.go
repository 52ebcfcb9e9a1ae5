package adapters

import (
	"context"
	"errors"
	"strings"
	"time"
)

// Surface is what every surface but the MCP tools asks of one platform:
// the fan-out's question (Unfit, Search), the reader's document (Fetch)
// and the live check's probe (Probe). Each platform package builds its
// own (platforms/<key>'s Surface), and adapters/registry lists them
// once, so the fan-out, the reader and the live check dispatch over one
// registration.
type Surface struct {
	// Unfit says why q does not fit the platform, before any request:
	// nil when it fits, else an *UnfitError (the outcome is skipped).
	Unfit func(q Question) *UnfitError
	// Search answers q with the requests the platform's MCP search tool
	// sends for the same arguments (the tool's defaults otherwise), so the
	// surfaces share cache entries. A parser's failure is a *ParseError.
	Search func(ctx context.Context, env Env, q Question) (Page, error)
	// Fetch reads document id with its full text; kind is the hit's type
	// where the platform needs it (OpenTK's category). Nil when the
	// platform's documents are not read here: Unreadable says why.
	Fetch      func(ctx context.Context, env Env, id, kind string) (Document, error)
	Unreadable string
	// Probe is the one tiny request the live check sends, with what its
	// answer is held against.
	Probe func(cfg ProbeConfig) (Probe, error)
	// Resources are the kinds of document the platform offers as MCP
	// resources (resource.go); none when Fetch is nil.
	Resources []ResourceKind
	// URI is the besluitbron:// resource URI of document id (of type
	// kind, as a hit gives it), by one of Resources' templates; "" when
	// the platform's documents are not read here.
	URI func(id, kind string) string
	// Recognize reads s as a reference to one of the platform's
	// documents, as people and other documents write it (its identifier,
	// its citation), and gives the id its fetch takes; ok is false when s
	// is none. No two platforms recognize the same s (a registry test
	// holds them to it), so a prompt can ask each in turn. Nil when the
	// platform's references are told apart by nothing of their own (an
	// ORI id, OpenTK's numbers, which are the Tweede Kamer's).
	Recognize func(s string) (id string, ok bool)
	// Votes are how document id (of type kind, as the fetch gave them)
	// was voted on, as charts (votes.go): none, and no request, when it
	// is no kind of document that is voted on. With kind "" there is no
	// document (the fetch did not take or find id): only a reference to
	// what was voted on itself (a Tweede Kamer zaak number) is looked
	// up. Nil when the platform publishes no votes.
	Votes func(ctx context.Context, env Env, id, kind string) ([]VoteChart, error)
	// Timeline is the platform's part in a dossier's way (timeline.go):
	// nil when it holds none.
	Timeline *TimelineSource
}

// Recognizes is a Surface.Recognize from the platform's check of an
// identifier (a platform's ValidID): s is recognized when
// the check takes it, as the id the check gives.
func Recognizes(valid func(string) (string, error)) func(string) (string, bool) {
	return func(s string) (string, bool) {
		id, err := valid(s)
		if err != nil {
			return "", false
		}
		return id, true
	}
}

// Link gives each hit its resource URI (Hit.URI), where the platform
// offers its documents as resources.
func (s Surface) Link(hits []Hit) {
	if s.URI == nil {
		return
	}
	for i := range hits {
		if hits[i].URI == "" {
			hits[i].URI = s.URI(hits[i].ID, hits[i].Type)
		}
	}
}

// Question is one question asked of every platform at once.
type Question struct {
	Words        string // the words to search for; may be empty
	Organisation string // an organisation (municipality, court, ...); may be empty
	From, To     string // the date range, YYYY-MM-DD, either may be empty
	Limit        int    // hits per platform, 1 to the fan-out's maximum
	Sort         string // relevance or date: the order the hits will be merged in
	// FullText: the words are sought inside the documents' full text
	// too, so a surface that answers words from its own replica of a
	// feed that holds no full text asks the platform instead.
	FullText bool
}

// Getter runs one request against a platform's route and returns the
// body of a 2xx answer; any other outcome is an error, an *RouteError
// when the route answered.
type Getter func(ctx context.Context, platform string, r Request) ([]byte, error)

// Env is what a surface lends a platform's calls: the way to its route,
// the memo of reference data (schemas, courts, organisation names), the
// time, and the operator's settings.
type Env struct {
	Get  Getter
	Memo *Memo
	Now  time.Time
}

// Bind is get for one platform, in the form the platform packages'
// lookups take.
func (e Env) Bind(ctx context.Context, platform string) func(Request) ([]byte, error) {
	return func(r Request) ([]byte, error) { return e.Get(ctx, platform, r) }
}

// UnfitError is a question a platform cannot answer as asked: Why says
// what to change, in English; Reason is the same as a code (Unfit*).
type UnfitError struct{ Why, Reason string }

func (u *UnfitError) Error() string { return u.Why }

// Why a question does not fit a platform, as codes (UnfitError.Reason).
const (
	UnfitNoOrganisationFilter = "no_organisation_filter" // the platform cannot filter by organisation
	UnfitNoWordSearch         = "no_word_search"         // the platform has no free-text search
	UnfitNeedsWords           = "needs_words"            // the platform searches only with words
	UnfitUnknownCourt         = "unknown_court"          // the organisation names no single court
	UnfitArguments            = "query_unfit"            // the request builder refused the arguments
	UnfitIndexUnavailable     = "index_unavailable"      // BesluitBron's own index of the platform cannot answer now
)

// Unfit wraps a request builder's refusal as an UnfitError.
func Unfit(err error) *UnfitError {
	return &UnfitError{Why: Cut(err.Error(), 300), Reason: UnfitArguments}
}

// ParseError is a platform answer that did not parse.
type ParseError struct{ Err error }

func (p *ParseError) Error() string { return "answered in an unexpected form: " + p.Err.Error() }
func (p *ParseError) Unwrap() error { return p.Err }

// Parsed wraps a parser's error as a *ParseError.
func Parsed[T any](v T, err error) (T, error) {
	if err != nil {
		var zero T
		return zero, &ParseError{Err: err}
	}
	return v, nil
}

// ProbeConfig chooses the live check's probe parameters. The surface's
// own settings (the Tweede Kamer's OData root) come from the Config it
// was built under.
type ProbeConfig struct {
	// ID is the record a probe that looks one up asks for ("" its
	// default): an Officiële Bekendmakingen publication.
	ID string
}

// Probe is the one tiny request the live check sends to a platform.
type Probe struct {
	Name    string // short name of what is asked, used for saved files
	Request Request
	// Samples are real payloads (under the fixtures' <platform>/ folder)
	// the answer must match. Empty when no real sample exists.
	Samples []Sample
	// Documented is the shape the platform's documentation or code gives,
	// used when there is no sample; DocSource names it.
	Documented []byte
	DocSource  string
	Ext        string // the extension a saved answer gets
	// Absent reads an answer that holds none of what was asked (a lookup
	// of one record that found none); nil when any answer holds it. Such
	// an answer is reported as not found, with AbsentHint saying what to
	// ask instead, never as a shape that is not as expected.
	Absent     func(body []byte) bool
	AbsentHint string
}

// Sample is a real payload file a probe's answer is held against, with
// the leniencies its emulator's test uses for the same file.
type Sample struct {
	File             string
	NullOK           bool // a null in the sample matches any value
	IgnoreNamespaces bool // XML namespaces are not compared
	Anywhere         bool // the sample is a fragment found anywhere in the answer
}

// NeedWords is the Unfit of a platform that searches only with words.
func NeedWords(name string, q Question) *UnfitError {
	if strings.TrimSpace(q.Words) == "" {
		return &UnfitError{Why: name + " needs words to search for", Reason: UnfitNeedsWords}
	}
	return nil
}

// NoOrganisationFilter is the Unfit of a platform that searches only
// with words and cannot filter by organisation.
func NoOrganisationFilter(name string, q Question) *UnfitError {
	if strings.TrimSpace(q.Organisation) != "" {
		return &UnfitError{Why: name + " has no organisation filter (its documents are parliament's): search without organisation to include it",
			Reason: UnfitNoOrganisationFilter}
	}
	return NeedWords(name, q)
}

// NotFound tells whether err says the platform has no such document: a
// parser's ErrNoDocument or the route's 404.
func NotFound(err error) bool {
	return errors.Is(err, ErrNoDocument) || KindOf(err) == KindNotFound
}

// Config is the configuration a platform's surface is built under: the
// operator's settings and the surface's platforms (a connector's, the
// site's), asked by platform key.
type Config interface {
	// Setting is the operator's settings of platform key, as the
	// platform read them (platforms.Configurable); nil for a platform
	// without settings.
	Setting(key string) any
	// Replica is what BesluitBron keeps of platform key itself (a replica
	// of its feed, which answers words); nil when it keeps none.
	Replica(key string) any
	// LinkBases are the base URLs a link into platform key may point
	// into, asked at each fetch; nil refuses every link.
	LinkBases(key string) []string
	// Offers tells whether the surface being built offers platform key.
	Offers(key string) bool
}

// SurfaceProvider is a platform with a surface: the fan-out, the
// reader, the resources and the live check reach it through it.
type SurfaceProvider interface {
	Surface(cfg Config) Surface
}

// SurfaceDecorator is a platform that adds to another platform's surface
// where the configuration offers both (OpenTK gives a Tweede Kamer
// document the text the Gegevensmagazijn holds only as a file).
type SurfaceDecorator interface {
	Decorate(key string, s Surface, cfg Config) Surface
}

// SharedIdentifier is a platform whose document identifiers other
// platforms write too (an ECLI, a Tweede Kamer document number): the
// fan-out merges the hits that carry the same one.
type SharedIdentifier interface {
	// SharedID finds one of the platform's identifiers in s (a hit's id
	// or link) as a key no other platform's identifier takes
	// ("ecli:ECLI:NL:HR:2014:952").
	SharedID(s string) (key string, ok bool)
}
