package adapters

import (
	"context"
	"fmt"
	"strings"
)

// A dossier's timeline (issue 37, point 3) lists the steps of a Kamerstuk
// dossier or bill in date order, from whichever platforms hold them: the
// parliamentary steps, the publication in the Staatsblad, the version of
// the law that took effect. Each platform that holds a part of that chain
// fills Surface.Timeline; BuildTimeline (timelinebuild.go) asks them in
// the order of their stage, each seeing the steps the earlier ones found.
// The MCP tool dossier_timeline and the site's dossier page show the
// same answer, and neither names a platform.

// Stages of a timeline: the order in which the sources are asked. A
// source reads the links the data gives from the steps of the stages
// before it (a law's brondata names the Staatsblad publication an
// earlier stage found).
const (
	// StageParliament: the dossier's own documents, activities,
	// decisions and votes. A timeline is offered where a source of this
	// stage is.
	StageParliament = 10
	// StagePublication: the official publications that name the dossier.
	StagePublication = 20
	// StageLaw: the version of a law that the publications made.
	StageLaw = 30
)

// StageLink is the link of the chain a stage gives, for a stage no
// offered platform holds.
func StageLink(stage int) string {
	switch stage {
	case StageParliament:
		return "parliamentary steps"
	case StagePublication:
		return "Staatsblad publication"
	case StageLaw:
		return "law version in force"
	}
	return fmt.Sprintf("stage %d", stage)
}

// Kinds of a timeline step.
const (
	StepDocument    = "document"    // a parliamentary paper (kamerstuk) or other document
	StepActivity    = "activity"    // a debate, a meeting, a voting session
	StepDecision    = "decision"    // a decision without a recorded vote
	StepVote        = "vote"        // a decision put to the vote, with its result
	StepPublication = "publication" // an official publication (Staatsblad)
	StepLawVersion  = "law_version" // a law's version that took effect
)

// Dossier names a Kamerstuk dossier: its number and, for a dossier with
// one (a budget's chapter), its addition.
type Dossier struct {
	Number   string // 4 to 6 digits: 36200
	Addition string // upper case, "" for none: VII
}

// String is the dossier as it is written: 36200-VII, 36410.
func (d Dossier) String() string {
	if d.Addition == "" {
		return d.Number
	}
	return d.Number + "-" + d.Addition
}

// ParseDossier reads a dossier as a user writes it: a number with its
// addition after a dash (36200-VII) or in addition, or a number alone.
func ParseDossier(dossier, addition string) (Dossier, error) {
	dossier, addition = strings.TrimSpace(dossier), strings.TrimSpace(addition)
	if dossier == "" {
		return Dossier{}, fmt.Errorf("dossier is required: a Kamerstuk dossier number such as 36200 or 36200-VII")
	}
	if n, t, ok := strings.Cut(dossier, "-"); ok {
		if addition != "" && !strings.EqualFold(addition, t) {
			return Dossier{}, fmt.Errorf("dossier %q already names the addition %q, and toevoeging says %q: give it once", Cut(dossier, 40), Cut(t, 20), Cut(addition, 20))
		}
		dossier, addition = strings.TrimSpace(n), strings.TrimSpace(t)
	}
	if !dossierRE.MatchString(dossier) {
		return Dossier{}, fmt.Errorf("dossier %q is not a Kamerstuk dossier number such as 36200 (4 to 6 digits), with its addition after a dash (36200-VII) or in toevoeging", Cut(dossier, 40))
	}
	if addition != "" && !additionRE.MatchString(addition) {
		return Dossier{}, fmt.Errorf("toevoeging %q is not a dossier addition such as VII (letters and digits)", Cut(addition, 40))
	}
	return Dossier{Number: dossier, Addition: strings.ToUpper(addition)}, nil
}

// DossierOfKamerstuk is the dossier of a kamerstuk by its publication
// identifier (ParseKamerstuk): kst-36200-VII-12 is paper 12 of dossier
// 36200-VII. ok is false for any other identifier.
func DossierOfKamerstuk(kst string) (Dossier, bool) {
	k, ok := ParseKamerstuk(kst)
	if !ok {
		return Dossier{}, false
	}
	d, err := ParseDossier(k.Dossier, k.Addition)
	return d, err == nil
}

// TimelineStep is one step of a dossier's way: what happened when, where
// it is held, and the data that ties it to the dossier.
type TimelineStep struct {
	Date      string `json:"date" jsonschema_description:"The day (YYYY-MM-DD): a document's date, an activity's or vote's day, a publication's issue date, a law version's first day in force; empty when the data gives none (listed last)."`
	Kind      string `json:"kind" jsonschema_description:"document, activity, decision, vote, publication or law_version."`
	Platform  string `json:"platform" jsonschema_description:"The platform that holds the step (its key)."`
	Chamber   string `json:"chamber,omitempty" jsonschema_description:"Tweede Kamer or Eerste Kamer, for a parliamentary step whose data says which."`
	Title     string `json:"title" jsonschema_description:"The step's title as its platform gives it."`
	ID        string `json:"id,omitempty" jsonschema_description:"Its id as its platform's fetch tool takes it (a document number, a publication identifier, a BWB id)."`
	Citation  string `json:"citation,omitempty" jsonschema_description:"The Dutch citation (Kamerstukken II 2023/24, 36200 VII, nr. 12; Stb. 2018, 84; a law with the day its version was in force). A Tweede Kamer activity, decision or vote is cited by the Kamer's own numbers, as its data gives no Handelingen reference: Tweede Kamer, activiteit 2024A01234 (12 maart 2024); Tweede Kamer, besluit over zaak 2022Z17826 (12 maart 2024)."`
	URI       string `json:"uri,omitempty" jsonschema_description:"Its besluitbron:// resource URI, which resources/read reads: a document's, a publication's, a law's; for a Tweede Kamer activity, decision or vote, the Kamer's record of it (besluitbron://tk/entiteit/{guid}: its fields, and its links to the zaken, agendapunt and activity as URIs of the same kind)."`
	SourceURL string `json:"source_url,omitempty" jsonschema_description:"The step at its platform."`
	Result    string `json:"result,omitempty" jsonschema_description:"A decision's result as recorded; a vote's with its totals."`
	InForce   string `json:"in_force,omitempty" jsonschema_description:"A law version's first day in force (YYYY-MM-DD), as its platform's data gives it."`
	Votes     string `json:"votes,omitempty" jsonschema_description:"For a vote: what was voted on, as the platform's votes tool takes it (a Tweede Kamer zaak number for tk_votes' zaak), for the vote per party."`
	LinkedBy  string `json:"linked_by" jsonschema_description:"The data that ties this step to the dossier (a navigation, a metadata field, a brondata element); never a title."`
}

// TimelineGap is a link of the chain the data does not give: reported,
// never guessed.
type TimelineGap struct {
	Platform string `json:"platform" jsonschema_description:"The platform that would hold the link."`
	Link     string `json:"link" jsonschema_description:"The link that is missing (the Staatsblad publication, the law version, the Eerste Kamer, ...)."`
	Why      string `json:"why" jsonschema_description:"What was asked and what the data said, or why it was not asked."`
}

// TimelineQuery is what a source is asked.
type TimelineQuery struct {
	Dossier Dossier
	// Law is the law the caller names (optional), in the form its source
	// takes; "" when none was given.
	Law string
	// Steps are the steps the sources of earlier stages found.
	Steps []TimelineStep
	// Explain says what a failed request on platform key's route means,
	// in the words of the surface that shows the timeline (when to try
	// again); a source of a later stage reports its failure with it.
	Explain func(key string, err error) string
}

// Why is what a failed request on platform key's route means, in the
// words of q.Explain, else the error's own.
func (q TimelineQuery) Why(key string, err error) string {
	if q.Explain != nil {
		return q.Explain(key, err)
	}
	return err.Error()
}

// NoDossierError is a StageParliament source's answer that its platform
// holds no such dossier: errors.Is(err, ErrNoDocument) holds.
type NoDossierError struct{ Why string }

func (e *NoDossierError) Error() string        { return e.Why }
func (e *NoDossierError) Is(target error) bool { return target == ErrNoDocument }

// TimelinePart is what one source found.
type TimelinePart struct {
	Steps   []TimelineStep
	Missing []TimelineGap
	// Notes say what was left out (a page cut short) and how the part was
	// read.
	Notes []string
	// Requests is how many platform requests the part made (each through
	// the cache and budget; a cache hit counts too).
	Requests int
	// Provenance says where the part was read: from the platform through
	// the cache, or from BesluitBron's replica (complete up to when).
	Provenance string
	// Title is the dossier's title as the source's data gives it (a
	// StageParliament source); "" when it gives none.
	Title string
}

// TimelineSource is a platform's part in a dossier's way
// (Surface.Timeline).
type TimelineSource struct {
	// Stage orders the sources (StageParliament, ...).
	Stage int
	// Check checks the question before anything is asked of any
	// platform: a Law this source reads that is malformed is an error.
	// mine tells whether q.Law is of this source's form. Nil: the source
	// reads no law.
	Check func(q TimelineQuery) (mine bool, err error)
	// Read finds the source's steps. An error leaves the part unknown: the
	// whole timeline's error for a StageParliament source (the dossier
	// itself could not be read; ErrNoDocument wrapped when the platform
	// holds no such dossier), else a missing link. A source of a later
	// stage reports what its platform answered in its part's Missing.
	Read func(ctx context.Context, env Env, q TimelineQuery) (TimelinePart, error)
	// What the source adds, read from which data; the most platform
	// requests it makes; and those requests in words, with the budget
	// they go through: its part of the tool's description.
	What     string
	Requests int
	Cost     string
}
