package mcpkit

import "context"

// Choice is one value a completion may offer, and the texts it matches on
// (its key, name, abbreviation).
type Choice struct {
	Value string
	Match []string
}

// Vocabulary is where an argument's values come from: the platform the
// connector must offer for them ("" for a fixed list), and the values.
type Vocabulary struct {
	Platform string
	Values   func(ctx context.Context, env Env) []Choice
}

// Fixed is a vocabulary of a platform package's own list.
func Fixed(platform string, vals []string) *Vocabulary {
	return &Vocabulary{Platform: platform, Values: func(context.Context, Env) []Choice {
		out := make([]Choice, len(vals))
		for i, v := range vals {
			out[i] = Choice{Value: v, Match: []string{v}}
		}
		return out
	}}
}
