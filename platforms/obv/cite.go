package obv

import "github.com/besluitbron/besluitbron/adapters"

// Citation is how a council's document on OpenBesluitvorming is cited:
// "<organisation>, <title>, <12 januari 2024>" (date YYYY-MM-DD), each
// part left out when the answer lacks it, the organisation also when the
// title starts with it (adapters.CouncilCitation). A title alone cites
// nothing.
func Citation(org, title, date string) string {
	return adapters.CouncilCitation(org, title, date)
}
