package platforms

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Configurable is a platform with settings of its own, beyond the
// table's row: the Tweede Kamer's OData root, Open Archivaris' assumed
// endpoints. The operator sets them as options of the platform's block
// in the besluitbron app's Caddyfile (platform tk { odata_root /OData/v5 }),
// and an mcp connector or the site may set one for itself as
// <key>_<option> (tk_odata_root). The host keeps the options as given,
// by name, and never reads them: the platform reads them into the value
// its surface and tools take (adapters.Config.Setting), so a new
// platform's settings need no change outside its folder.
type Configurable interface {
	// Options names the platform's options, in the order its
	// documentation lists them.
	Options() []string
	// Settings reads options (an option's name and its arguments, as the
	// Caddyfile gives them) into the value the platform's surface and
	// tools read. No options give the defaults. An unknown option or a
	// bad value is an error that says what to fix, without the
	// platform's key (the caller adds where it was set).
	Settings(options Options) (any, error)
}

// Options are a platform's settings as the operator wrote them: an
// option's name and its arguments (JSON {"odata_root": ["/OData/v5"]}).
type Options map[string][]string

// Over is o with over's options laid on top: an option set in both takes
// over's arguments. Neither is changed.
func (o Options) Over(over Options) Options {
	if len(over) == 0 {
		return o
	}
	out := maps.Clone(o)
	if out == nil {
		out = Options{}
	}
	maps.Copy(out, over)
	return out
}

// SettingsOf reads platform key's options into its settings (Configurable):
// nil for a platform without settings, an error for options given to a
// platform that takes none, or ones it refuses.
func SettingsOf(key string, o Options) (any, error) {
	p, _ := ProviderOf(key)
	c, ok := p.(Configurable)
	if !ok {
		if len(o) > 0 {
			return nil, fmt.Errorf("platform %s takes no option %s", key, strings.Join(slices.Sorted(maps.Keys(o)), ", "))
		}
		return nil, nil
	}
	return c.Settings(o)
}

// HasOption tells whether platform key takes option name.
func HasOption(key, name string) bool {
	p, _ := ProviderOf(key)
	c, ok := p.(Configurable)
	return ok && slices.Contains(c.Options(), name)
}

// OptionOf reads a handler's prefixed option (tk_odata_root) as platform
// key's option name (odata_root); false when no registered platform
// takes it.
func OptionOf(prefixed string) (key, name string, ok bool) {
	key, name, found := strings.Cut(prefixed, "_")
	if !found || !HasOption(key, name) {
		return "", "", false
	}
	return key, name, true
}

// PrefixedOptions lists every platform's options as a handler names
// them (tk_odata_root, oa_search_path, ...), in table order, for the
// handlers' errors and documentation.
func PrefixedOptions() []string {
	var out []string
	for _, p := range Each[Configurable]() {
		key := p.(Provider).Platform().Key
		for _, name := range p.Options() {
			out = append(out, key+"_"+name)
		}
	}
	return out
}

// AllSettings reads every configurable platform's options in byKey (the
// besluitbron app's platform blocks, or a handler's own laid over them),
// defaults where none are given: the values adapters.Config.Setting
// answers. An error names the platform.
func AllSettings(byKey map[string]Options) (map[string]any, error) {
	out := map[string]any{}
	for key, o := range byKey {
		if _, ok := Get(key); !ok && len(o) > 0 {
			return nil, fmt.Errorf("unknown platform %q", key)
		}
	}
	for _, p := range Each[Configurable]() {
		key := p.(Provider).Platform().Key
		v, err := p.Settings(byKey[key])
		if err != nil {
			return nil, fmt.Errorf("platform %s: %w", key, err)
		}
		out[key] = v
	}
	for key, o := range byKey {
		if _, ok := out[key]; !ok && len(o) > 0 {
			if _, err := SettingsOf(key, o); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
