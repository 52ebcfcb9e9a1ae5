// Package cachestatus is the vocabulary of the Cache-Status header (RFC
// 9211) on BesluitBron's platform routes: the names and details the cache
// writes (package cache) and what its readers (the sub-request contract,
// the MCP connectors, the site) make of a value. Writer and readers share
// this one package, so neither imports the other.
package cachestatus

import "strings"

// Header is RFC 9211's header; Name names BesluitBron's cache in it.
const (
	Header = "Cache-Status"
	Name   = "BesluitBron"
)

// DetailOverBudget is the detail on an answer BesluitBron's own budget
// refused (platform_limit's refusal, which the cache knows by its
// OverBudget method): the MCP connectors tell it from the platform's own
// 429 or 503 by it.
const DetailOverBudget = "over-budget"

// DetailNotStored is the detail on the 504 a stored-only request gets
// when the cache holds no answer it may serve (cache/storedonly.go).
const DetailNotStored = "not-stored"

// Hit tells whether a Cache-Status value names a hit (the bare "hit"
// parameter; a detail that merely says "hit" is not one).
func Hit(cs string) bool {
	for _, part := range strings.Split(cs, ";") {
		if strings.EqualFold(strings.TrimSpace(part), "hit") {
			return true
		}
	}
	return false
}

// Detail returns the value's detail parameter.
func Detail(cs string) string { return Param(cs, "detail=") }

// Param returns the value of the parameter name (given with its "="),
// or "".
func Param(cs, name string) string {
	for _, part := range strings.Split(cs, ";") {
		part = strings.TrimSpace(part)
		if len(part) > len(name) && strings.EqualFold(part[:len(name)], name) {
			return part[len(name):]
		}
	}
	return ""
}

// StaleIfError tells whether the value says a stale copy answered for a
// failed platform (RFC 9211 fwd=stale; the detail says it was served).
func StaleIfError(cs string) bool {
	if Detail(cs) != "stale-if-error" {
		return false
	}
	for _, part := range strings.Split(cs, ";") {
		if strings.EqualFold(strings.TrimSpace(part), "fwd=stale") {
			return true
		}
	}
	return false
}
