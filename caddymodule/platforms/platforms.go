// Package platforms names the seven public platforms BesluitBron fronts:
// their keys, default base URLs and the environment variables that override
// them, and the headers BesluitBron's own modules exchange on a platform
// route. It is Caddy-free, so mechanisms, emulators and the MCP tools share
// one list.
package platforms

import (
	"os"
	"strings"
)

// Platform is one upstream data platform.
type Platform struct {
	// Key is the short name used in paths (/platforms/{key}/...), cache
	// names, budgets and metric labels.
	Key string
	// Name is the platform's public name.
	Name string
	// BaseURLs are the default upstream base URLs, scheme, host and path
	// prefix, in failover order. Only OpenTK has two.
	BaseURLs []string
	// EnvVar overrides BaseURLs; several URLs are separated by spaces.
	EnvVar string
	// OwnLimit tells whether BesluitBron keeps a budget for the platform
	// (design.md §2).
	OwnLimit bool
}

// The keys of the seven platforms.
const (
	ORI         = "ori"
	OBV         = "obv"
	TK          = "tk"
	OpenTK      = "opentk"
	OB          = "ob"
	Rechtspraak = "rechtspraak"
	OA          = "oa"
)

var all = []Platform{
	{Key: ORI, Name: "Open Raadsinformatie", BaseURLs: []string{"https://api.openraadsinformatie.nl/v1/elastic"}, EnvVar: "BESLUITBRON_ORI_URL"},
	{Key: OBV, Name: "OpenBesluitvorming", BaseURLs: []string{"https://openbesluitvorming.nl"}, EnvVar: "BESLUITBRON_OBV_URL", OwnLimit: true},
	{Key: TK, Name: "Tweede Kamer", BaseURLs: []string{"https://gegevensmagazijn.tweedekamer.nl"}, EnvVar: "BESLUITBRON_TK_URL"},
	{Key: OpenTK, Name: "OpenTK", BaseURLs: []string{"https://opentk.nl", "https://berthub.eu/tkconv"}, EnvVar: "BESLUITBRON_OPENTK_URL"},
	{Key: OB, Name: "Officiële Bekendmakingen", BaseURLs: []string{"https://repository.overheid.nl"}, EnvVar: "BESLUITBRON_OB_URL", OwnLimit: true},
	{Key: Rechtspraak, Name: "Rechtspraak", BaseURLs: []string{"https://data.rechtspraak.nl"}, EnvVar: "BESLUITBRON_RECHTSPRAAK_URL", OwnLimit: true},
	{Key: OA, Name: "Open Archivaris", BaseURLs: []string{"https://openarchivaris.nl"}, EnvVar: "BESLUITBRON_OA_URL", OwnLimit: true},
}

// All returns the seven platforms in a fixed order.
func All() []Platform {
	out := make([]Platform, len(all))
	copy(out, all)
	return out
}

// Get returns the platform with the given key.
func Get(key string) (Platform, bool) {
	for _, p := range all {
		if p.Key == key {
			return p, true
		}
	}
	return Platform{}, false
}

// Keys returns the seven keys in a fixed order.
func Keys() []string {
	keys := make([]string, len(all))
	for i, p := range all {
		keys[i] = p.Key
	}
	return keys
}

// URLs returns the platform's base URLs, taking the environment variable
// into account.
func (p Platform) URLs() []string {
	if v := strings.Fields(os.Getenv(p.EnvVar)); len(v) > 0 {
		return v
	}
	return p.BaseURLs
}

// Headers BesluitBron's modules set on a platform route's answers.
const (
	// HeaderQueueWait is set by platform_limit on answers that passed the
	// platform's budget: the time the call waited for room, in
	// milliseconds. The cache never stores it.
	HeaderQueueWait = "Besluitbron-Queue-Wait"
)
