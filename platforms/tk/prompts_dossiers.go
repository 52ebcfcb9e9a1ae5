package tk

import (
	"context"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/mcpkit"
	"github.com/besluitbron/besluitbron/platforms"
)

// The completion of a Kamerstuk dossier number (dossier_status's dossier):
// the dossiers the Kamer changed last, one OData request of PageSize rows
// (Kamerstukdossier, newest GewijzigdOp first: a dossier changes when a
// kamerstuk joins it, so long-running dossiers such as 21501-20 are among
// them while they are active), kept in the connector's memo for an hour
// and in the platform cache behind it. Matched on the number as tk_votes
// and dossier_timeline take it (36200-VII), the number with a space
// (36200 VII) and the title (begroting), so typing a word finds a number.
//
// Cheaper than the alternatives: every dossier is tens of thousands of
// rows (MaxPages would cut it short); a request per typed prefix is a
// platform call per keystroke and a memo entry per prefix; and the SyncFeed
// replica, which holds the category, is off by default, catches up in
// hours and answers no such listing yet. A dossier that is not among the
// recent ones is not completed: type its number whole.

// DossiersMemo is the memo key of the recent dossiers.
const DossiersMemo = "tk:dossiers:recent"

// dossier is one Kamerstuk dossier as the completion offers it.
type dossier struct {
	Number string // 36200-VII
	Title  string
}

// RecentDossiersRequest asks for the PageSize dossiers changed last
// (newest first where the service has GewijzigdOp, else highest number
// first), live ones only where it has Verwijderd.
func RecentDossiersRequest(e *Entity) adapters.Request {
	var pairs []string
	if v := e.Name(fVerwijderd); v != "" {
		pairs = append(pairs, "$filter", v+" eq false")
	}
	order := e.Name(fNummer) + " desc," + e.Name(fID) + " desc"
	if g := e.Name(fGewijzigdOp); g != "" {
		order = g + " desc," + order
	}
	pairs = append(pairs, "$select", e.selectList(), "$orderby", order, "$top", strconv.Itoa(PageSize))
	return adapters.Request{Method: "GET", Path: e.root + "/" + e.Set + "?" + odataQuery(pairs...)}
}

// ParseDossiers reads the answer to RecentDossiersRequest; a row without a
// valid number or addition is left out (it could not be asked for).
func ParseDossiers(e *Entity, body []byte) ([]dossier, error) {
	rows, _, err := parseListBody(body)
	if err != nil {
		return nil, err
	}
	out := []dossier{}
	for _, r := range rows {
		n, t := r.str(e, fNummer), strings.ToUpper(r.str(e, fToevoeging))
		if !dossierNummerRE.MatchString(n) || (t != "" && !dossierToevoegingRE.MatchString(t)) {
			continue
		}
		if t != "" {
			n += "-" + t
		}
		out = append(out, dossier{Number: n, Title: mcpkit.Clip(adapters.Squash(r.str(e, fTitel)), 200)})
	}
	return out, nil
}

// DossierVocabulary completes a Kamerstuk dossier number.
func DossierVocabulary() *mcpkit.Vocabulary {
	return &mcpkit.Vocabulary{Platform: platforms.TK, Values: func(ctx context.Context, env mcpkit.Env) []mcpkit.Choice {
		get := env.Getter(ctx, platforms.TK)
		v, ok := env.Memoised(ctx, DossiersMemo, func() (any, error) {
			s, err := SchemaOf(env.Lists(), Root(env), env.Now(), get)
			if err != nil {
				return nil, err
			}
			e, err := s.Entity("Kamerstukdossier")
			if err != nil {
				return nil, err
			}
			body, err := get(RecentDossiersRequest(e))
			if err != nil {
				return nil, err
			}
			ds, err := ParseDossiers(e, body)
			if err != nil {
				return nil, &adapters.ParseError{Err: err}
			}
			env.Lists().Put(DossiersMemo, ds, env.Now())
			return ds, nil
		})
		if !ok {
			return nil
		}
		var out []mcpkit.Choice
		for _, d := range v.([]dossier) {
			out = append(out, mcpkit.Choice{Value: d.Number, Match: []string{d.Number, strings.ReplaceAll(d.Number, "-", " "), d.Title}})
		}
		return out
	}}
}

// ParseDossier reads a dossier argument as tk_votes and dossier_timeline
// take it: the number and its addition (36200-VII, 36200 VII, 36200), or
// the error that says what to write.
func ParseDossier(s string) (number, addition string, err error) {
	s = strings.TrimSpace(s)
	if n, t, ok := strings.Cut(s, " "); ok && !strings.Contains(s, "-") {
		s = n + "-" + strings.TrimSpace(t)
	}
	d, err := adapters.ParseDossier(s, "")
	if err != nil {
		return "", "", err
	}
	return d.Number, d.Addition, nil
}
