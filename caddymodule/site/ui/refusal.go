package ui

import (
	"strconv"
	"strings"
)

// QueryProblem is one thing wrong with a question the engine refused:
// its code (fanout.Code*) and parameters, which the page says in its own
// language (the texts query.<code> in i18n.go, with {field}, {value},
// {other} and {limit} in them); Error is the engine's English text, shown
// only for a code the page does not know yet.
type QueryProblem struct {
	Code, Field, Value, Other string
	Limit                     int
	Error                     string
}

// RefusalText is the sentence for a refused question ("Deze vraag klopt
// niet: ..."), every problem in the page's language. fallback, the
// engine's English text, is used when the engine named no problem.
func (p Page) RefusalText(problems []QueryProblem, fallback string) string {
	var parts []string
	for _, qp := range problems {
		parts = append(parts, p.problemText(qp))
	}
	if len(parts) == 0 {
		parts = append(parts, fallback)
	}
	return p.F("error.bad", strings.Join(parts, "; "))
}

func (p Page) problemText(qp QueryProblem) string {
	s, ok := messages[p.Lang]["query."+qp.Code]
	if !ok {
		if s, ok = messages[NL]["query."+qp.Code]; !ok {
			return qp.Error
		}
	}
	field := qp.Field
	if t, ok := messages[p.Lang]["field."+qp.Field]; ok {
		field = t
	}
	return strings.NewReplacer("{field}", field, "{value}", qp.Value, "{other}", qp.Other,
		"{limit}", strconv.Itoa(qp.Limit)).Replace(s)
}
