package tk

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms/tk/localindex"
	"github.com/besluitbron/besluitbron/replica"
)

// Votes from the replica (issue 37, point 5): where BesluitBron keeps the
// Tweede Kamer's SyncFeed (replica.go), tk_votes joins the entities it
// holds, as the OData request of votes_request.go joins them on the
// platform: a zaak by its number, a dossier's zaken, the title words of
// zaken; their besluiten that were votes (BesluitSoort "Stemmen …"), each
// besluit's agendapunt and that one's activiteit (the voting day), and
// its stemmingen. The same Decision is built and counted by the same code
// (newDecision, voteZaakOf, tally in votes.go), so an answer from the
// replica is the answer OData gives for the same data.
//
// The replica answers only what it holds whole as of its last complete
// pass ("complete up to T"); otherwise the question goes to the platform,
// and the answer says why:
//   - it keeps none of a category the question joins, has completed no
//     pass, or stopped;
//   - an entity the answer joins was published after T: the pass that
//     reads it may have read one category and not yet another;
//   - it holds votes published after T whose besluit it does not hold (a
//     partial feed: the stemming pages ran ahead of the besluit pages);
//   - a lookup matches more than it reads (localindex.MaxJoin, or
//     maxWordZaken zaken for title words);
//   - it holds no zaak for the number, dossier or words, or no vote on
//     them: the platform's contains() matches parts of words, a zaak may
//     be newer than T, and a link the feed did not give would otherwise
//     read as "no vote".

// ParliamentVotes is the replica as tk_votes asks it.
type ParliamentVotes interface {
	// Votes answers p from the replica when it holds the answer whole;
	// otherwise ok is false and why says why, for the provenance of the
	// platform's answer.
	Votes(ctx context.Context, p VotesParams) (a VotesAnswer, ok bool, why string)
}

// VotesAnswer is the replica's answer to a vote question.
type VotesAnswer struct {
	VotesFound
	Provenance string
	// CompleteUpTo is the time up to which the replica holds every change
	// of the feed: the age of the answer.
	CompleteUpTo time.Time
}

// voteCategories are the categories a vote question joins; a dossier
// question joins kamerstukdossier too.
var voteCategories = []string{"activiteit", "agendapunt", "besluit", "stemming", "zaak"}

// maxWordZaken is the most zaken whose title words a question's words
// match that the replica joins; more goes to the platform, which pages
// the decisions itself.
const maxWordZaken = 2000

// maxChangedVotes is the most stemmingen published after the last
// complete pass that the replica checks for a besluit it does not hold;
// more (a data fix re-sending old votes) sends vote questions to the
// platform until the next pass completes.
const maxChangedVotes = 5000

var _ ParliamentVotes = parliamentWords{}

// Votes answers p from the replica held now (ParliamentVotes).
func (w parliamentWords) Votes(ctx context.Context, p VotesParams) (VotesAnswer, bool, string) {
	idx, h, prog, why := w.ready()
	if why != "" {
		return VotesAnswer{}, false, why
	}
	if missing := missingCategories(h.scope, p); len(missing) > 0 {
		return VotesAnswer{}, false, "the replica keeps no " + strings.Join(missing, ", ") + ", which votes join"
	}
	found, why, err := (voteJoin{idx: idx, asOf: prog.CompleteUpTo}).votes(ctx, p)
	if err != nil {
		return VotesAnswer{}, false, replica.LookupFailed(w.held, err)
	}
	if why != "" {
		return VotesAnswer{}, false, why
	}
	return VotesAnswer{VotesFound: found, CompleteUpTo: prog.CompleteUpTo,
		Provenance: replica.Provenance(replicaSpec.Source, replicaSpec.Units(), prog) + wordsMatched(p)}, true, ""
}

// wordsMatched says, for a question by title words answered from the
// replica, how its words were matched.
func wordsMatched(p VotesParams) string {
	if strings.TrimSpace(p.Query) == "" {
		return ""
	}
	return "; the words matched whole in the zaken's titles and subjects, with their Dutch stems (the platform matches parts of words too)"
}

// missingCategories are the categories p joins that scope does not keep.
func missingCategories(scope harvestScope, p VotesParams) []string {
	need := voteCategories
	if p.Dossier != "" {
		need = append(slices.Clone(need), "kamerstukdossier")
	}
	return scope.lacks(need)
}

// voteJoin reads votes from the index as of asOf, the start of the
// replica's last complete pass.
type voteJoin struct {
	idx  *localindex.Index
	asOf time.Time
}

// feedField reads an entity's field by its name in any case: the feed writes
// lowerCamel (besluitSoort), and a rename would change only the case.
func feedField(e localindex.Entity, name string) string {
	if v, ok := e.Fields[name]; ok {
		return v
	}
	for k, v := range e.Fields {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// firstRef is the first entity e links to by element name, lower case.
func firstRef(e localindex.Entity, name string) string {
	for k, ids := range e.Refs {
		if strings.EqualFold(k, name) && len(ids) > 0 {
			return strings.ToLower(ids[0])
		}
	}
	return ""
}

// refs are the entities e links to by element name, lower case, in the
// feed's order.
func refs(e localindex.Entity, name string) []string {
	var out []string
	for k, ids := range e.Refs {
		if strings.EqualFold(k, name) {
			for _, id := range ids {
				out = append(out, strings.ToLower(id))
			}
		}
	}
	return out
}

// newer is the reason an answer is not given when e was published after
// the replica's last complete pass.
func (j voteJoin) newer(what string, e localindex.Entity) string {
	if !localindex.PublishedAfter(e, j.asOf) {
		return ""
	}
	return fmt.Sprintf("the Kamer changed %s %s after the replica's last complete pass (%s); the pass that reads it may not have read the rest of the vote yet",
		what, e.ID, j.asOf.UTC().Format(time.RFC3339))
}

// decisionDraft is a besluit that was a vote, with its voting day.
type decisionDraft struct {
	besluit    localindex.Entity
	agendapunt localindex.Entity
	activiteit localindex.Entity
	at         time.Time // the activiteit's Datum; zero when none reads
}

// votes answers p from the index: why is not "" when the replica cannot
// answer it whole.
func (j voteJoin) votes(ctx context.Context, p VotesParams) (VotesFound, string, error) {
	if why, err := j.partial(ctx); why != "" || err != nil {
		return VotesFound{}, why, err
	}
	var found VotesFound
	zaken, why, err := j.zaken(ctx, p, &found)
	if why != "" || err != nil || (p.Dossier != "" && len(zaken) == 0) {
		return found, why, err
	}
	return j.decisionsOn(ctx, p, zaken, found)
}

// decisionsOn answers p's page of the votes on zaken, into found.
func (j voteJoin) decisionsOn(ctx context.Context, p VotesParams, zaken []localindex.Entity, found VotesFound) (VotesFound, string, error) {
	var zaakIDs []string
	for _, z := range zaken {
		if why := j.newer("zaak", z); why != "" {
			return VotesFound{}, why, nil
		}
		zaakIDs = append(zaakIDs, z.ID)
	}
	besluiten, err := j.idx.Linking(ctx, "besluit", "zaak", zaakIDs, localindex.MaxJoin)
	if err != nil {
		return VotesFound{}, "", err
	}
	if !besluiten.Whole() {
		return VotesFound{}, fmt.Sprintf("these zaken have %d decisions in the replica, more than it joins at once (%d)", besluiten.Total, localindex.MaxJoin), nil
	}
	var drafts []decisionDraft
	for _, b := range besluiten.Entities {
		if !strings.HasPrefix(feedField(b, "besluitSoort"), "Stemmen") {
			continue
		}
		if why := j.newer("besluit", b); why != "" {
			return VotesFound{}, why, nil
		}
		drafts = append(drafts, decisionDraft{besluit: b})
	}
	if why, err := j.votingDays(ctx, drafts); why != "" || err != nil {
		return VotesFound{}, why, err
	}
	drafts, err = inPeriod(drafts, p)
	if err != nil {
		return VotesFound{}, "", err
	}
	// Newest voting day first, then by GUID descending: the order of
	// VotesRequest's $orderby (a decision with no day last, as OData
	// orders null).
	slices.SortFunc(drafts, func(a, b decisionDraft) int {
		if c := b.at.Compare(a.at); c != 0 {
			return c
		}
		return strings.Compare(b.besluit.ID, a.besluit.ID)
	})
	found.Total = len(drafts)
	if found.Total == 0 {
		// As a word search the replica finds nothing for: the platform
		// says so, or finds what the replica did not join.
		return VotesFound{}, "the replica holds no vote on these zaken" + map[bool]string{true: " in this period", false: ""}[p.DateFrom != "" || p.DateTo != ""], nil
	}
	limit, offset := p.Limit, p.Offset
	if p.Dossier != "" {
		limit, offset = PageSize, 0 // the dossier's page was taken from its zaken
	}
	page := drafts[min(offset, len(drafts)):min(offset+limit, len(drafts))]
	ds, why, err := j.decisions(ctx, page)
	if why != "" || err != nil {
		return VotesFound{}, why, err
	}
	found.Decisions = ds
	return found, "", nil
}

// partial is why the replica cannot answer any vote question now: it
// holds votes published after its last complete pass whose besluit it
// does not hold (the stemming pages ran ahead of the besluit pages, or
// the feed left the besluit out); a zaak's decisions would be missing
// with nothing to show it.
func (j voteJoin) partial(ctx context.Context) (string, error) {
	changed, err := j.idx.ChangedAfter(ctx, "stemming", j.asOf, maxChangedVotes)
	if err != nil {
		return "", err
	}
	if !changed.Whole() {
		return fmt.Sprintf("the Kamer changed %d votes after the replica's last complete pass (%s), more than it checks (%d); the next pass reads them",
			changed.Total, j.asOf.UTC().Format(time.RFC3339), maxChangedVotes), nil
	}
	want := map[string]bool{}
	for _, s := range changed.Entities {
		b := firstRef(s, "besluit")
		if b == "" {
			return fmt.Sprintf("the replica holds a vote (Stemming %s) that names no decision: its data is incomplete", s.ID), nil
		}
		want[b] = true
	}
	if len(want) == 0 {
		return "", nil
	}
	ids := slices.Sorted(maps.Keys(want))
	held, err := j.idx.Get(ctx, ids)
	if err != nil {
		return "", err
	}
	for _, id := range ids {
		if _, ok := held[id]; !ok {
			return fmt.Sprintf("the replica holds votes of a decision (Besluit %s) it does not hold yet: its data is incomplete until its next pass reads the decision", id), nil
		}
	}
	return "", nil
}

// zaken are the zaken p asks the votes of. For a dossier, found gets its
// zaken in all and on this page, and the page's zaken are returned.
func (j voteJoin) zaken(ctx context.Context, p VotesParams, found *VotesFound) ([]localindex.Entity, string, error) {
	switch {
	case p.Zaak != "":
		zs, err := j.idx.ByNummer(ctx, "zaak", p.Zaak, 100)
		if err != nil {
			return nil, "", err
		}
		if !zs.Whole() {
			return nil, fmt.Sprintf("the replica holds %d zaken numbered %s", zs.Total, p.Zaak), nil
		}
		if len(zs.Entities) == 0 {
			return nil, "the replica holds no zaak " + p.Zaak, nil
		}
		return zs.Entities, "", nil
	case p.Dossier != "":
		found.Dossier = true
		ks, err := j.idx.ByNummer(ctx, "kamerstukdossier", p.Dossier, 100)
		if err != nil {
			return nil, "", err
		}
		var dossiers []string
		for _, k := range ks.Entities {
			if strings.EqualFold(feedField(k, "toevoeging"), p.Toevoeging) {
				if why := j.newer("dossier", k); why != "" {
					return nil, why, nil
				}
				dossiers = append(dossiers, k.ID)
			}
		}
		if !ks.Whole() || len(dossiers) == 0 {
			return nil, "the replica holds no dossier " + dossierName(VotesParams{Dossier: p.Dossier, Toevoeging: p.Toevoeging}), nil
		}
		zs, err := j.idx.Linking(ctx, "zaak", "kamerstukdossier", dossiers, localindex.MaxJoin)
		if err != nil {
			return nil, "", err
		}
		if !zs.Whole() {
			return nil, fmt.Sprintf("dossier %s has %d zaken in the replica, more than it joins at once", dossierName(p), zs.Total), nil
		}
		var all []localindex.Entity
		for _, z := range zs.Entities {
			if p.Ordnummer == 0 || feedField(z, "volgnummer") == strconv.Itoa(p.Ordnummer) {
				all = append(all, z)
			}
		}
		if len(all) == 0 {
			return nil, "the replica holds no zaak in dossier " + dossierName(p), nil
		}
		// Every zaak of the dossier places the page: one changed after
		// the pass may have moved it.
		for _, z := range all {
			if why := j.newer("zaak", z); why != "" {
				return nil, why, nil
			}
		}
		// The order of DossierZakenRequest.
		sortNewestFirst(all, "gestartOp")
		found.DossierZaken = len(all)
		page := all[min(p.Offset, len(all)):min(p.Offset+p.Limit, len(all))]
		found.PageZaken = len(page)
		return page, "", nil
	default:
		zs, err := j.idx.WithWords(ctx, "zaak", p.Query, maxWordZaken)
		if err != nil {
			return nil, "", err
		}
		if !zs.Whole() {
			return nil, fmt.Sprintf("the words match %d zaken in the replica, more than it joins at once (%d)", zs.Total, maxWordZaken), nil
		}
		if len(zs.Entities) == 0 {
			return nil, "the replica holds no zaak whose title or subject holds these words; the platform matches parts of words too", nil
		}
		return zs.Entities, "", nil
	}
}

// sortNewestFirst orders es as OData's "$orderby=<dated> desc,Id desc"
// does: by the date-time in field dated, newest first, then by GUID
// descending (an entity with no date last, as OData orders null).
func sortNewestFirst(es []localindex.Entity, dated string) {
	slices.SortFunc(es, func(a, b localindex.Entity) int {
		if c := instant(feedField(b, dated)).Compare(instant(feedField(a, dated))); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
}

// instant reads an OData or feed date-time; zero when it does not read.
func instant(s string) time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// votingDays fills each draft's agendapunt, activiteit and day.
func (j voteJoin) votingDays(ctx context.Context, drafts []decisionDraft) (string, error) {
	var apIDs []string
	for _, d := range drafts {
		if id := firstRef(d.besluit, "agendapunt"); id != "" {
			apIDs = append(apIDs, id)
		}
	}
	aps, err := j.idx.Get(ctx, apIDs)
	if err != nil {
		return "", err
	}
	var actIDs []string
	for _, ap := range aps {
		if why := j.newer("agendapunt", ap); why != "" {
			return why, nil
		}
		if id := firstRef(ap, "activiteit"); id != "" {
			actIDs = append(actIDs, id)
		}
	}
	acts, err := j.idx.Get(ctx, actIDs)
	if err != nil {
		return "", err
	}
	for _, a := range acts {
		if why := j.newer("activiteit", a); why != "" {
			return why, nil
		}
	}
	for i := range drafts {
		d := &drafts[i]
		d.agendapunt = aps[firstRef(d.besluit, "agendapunt")]
		d.activiteit = acts[firstRef(d.agendapunt, "activiteit")]
		d.at = instant(feedField(d.activiteit, "datum"))
	}
	return "", nil
}

// inPeriod keeps the drafts voted in p's period of Dutch calendar days,
// as VotesRequest's filter on Agendapunt/Activiteit/Datum does.
func inPeriod(drafts []decisionDraft, p VotesParams) ([]decisionDraft, error) {
	from, to, err := adapters.ParseDates(p.DateFrom, p.DateTo)
	if err != nil || (from == "" && to == "") {
		return drafts, err
	}
	var lo, hi time.Time
	if from != "" {
		s, _ := dayStart(from, 0)
		lo = instant(s)
	}
	if to != "" {
		s, _ := dayStart(to, 1)
		hi = instant(s)
	}
	var out []decisionDraft
	for _, d := range drafts {
		if d.at.IsZero() || (!lo.IsZero() && d.at.Before(lo)) || (!hi.IsZero() && !d.at.Before(hi)) {
			continue
		}
		out = append(out, d)
	}
	return out, nil
}

// decisions builds and counts the page's decisions.
func (j voteJoin) decisions(ctx context.Context, page []decisionDraft) ([]Decision, string, error) {
	out := make([]Decision, 0, len(page))
	if len(page) == 0 {
		return out, "", nil
	}
	var ids, zaakIDs []string
	for _, d := range page {
		ids = append(ids, d.besluit.ID)
		zaakIDs = append(zaakIDs, refs(d.besluit, "zaak")...)
	}
	stemmingen, err := j.idx.Linking(ctx, "stemming", "besluit", ids, localindex.MaxJoin)
	if err != nil {
		return nil, "", err
	}
	if !stemmingen.Whole() {
		return nil, fmt.Sprintf("these decisions have %d votes in the replica, more than it joins at once", stemmingen.Total), nil
	}
	zaken, err := j.idx.Get(ctx, zaakIDs)
	if err != nil {
		return nil, "", err
	}
	rows := map[string][]voteRow{}
	for _, s := range stemmingen.Entities {
		if why := j.newer("vote (Stemming)", s); why != "" {
			return nil, why, nil
		}
		b := firstRef(s, "besluit")
		rows[b] = append(rows[b], voteRow{Name: feedField(s, "actorNaam"), Party: feedField(s, "actorFractie"), Soort: feedField(s, "soort"),
			Persoon: firstRef(s, "persoon"), Seats: feedField(s, "fractieGrootte"), Mistaken: feedField(s, "vergissing") == "true"})
	}
	for _, dr := range page {
		b := dr.besluit
		d := newDecision(b.ID, feedField(b, "besluitSoort"), feedField(b, "besluitTekst"), feedField(b, "stemmingsSoort"))
		for _, zid := range refs(b, "zaak") {
			// A zaak the replica does not hold was removed: OData leaves
			// out a deleted one (Verwijderd) too.
			if z, ok := zaken[zid]; ok {
				d.Zaken = append(d.Zaken, voteZaakOf(z.ID, feedField(z, "nummer"), feedField(z, "soort"), feedField(z, "titel"), feedField(z, "onderwerp")))
			}
		}
		if dr.agendapunt.ID != "" {
			d.Agendapunt = adapters.Squash(feedField(dr.agendapunt, "onderwerp"))
			if dr.activiteit.ID != "" {
				d.Date = day(feedField(dr.activiteit, "datum"))
			}
		}
		// The feed keeps no order of a decision's votes, so the replica
		// reads them by fractie, then member: an order of its own.
		vs := rows[b.ID]
		slices.SortStableFunc(vs, func(x, y voteRow) int {
			return cmp.Or(strings.Compare(strings.ToLower(x.Party), strings.ToLower(y.Party)), strings.Compare(x.Name, y.Name))
		})
		tally(vs, &d)
		out = append(out, d)
	}
	return out, "", nil
}
