package app

import (
	"github.com/besluitbron/besluitbron/adapters/registry"
	"github.com/besluitbron/besluitbron/platforms"
)

// A platform's own settings (platforms.Configurable: the Tweede Kamer's
// OData root, Open Archivaris' endpoints) are options of its block,
// kept here as given (PlatformConfig.Options) and read by the platform
// at Provision; the app never reads them itself.

// PlatformOptions are the options of every platform block, by key, for a
// handler that lays its own over them (mcp's tk_odata_root).
func (a *App) PlatformOptions() map[string]platforms.Options {
	out := map[string]platforms.Options{}
	for key, c := range a.Platforms {
		if c != nil && len(c.Options) > 0 {
			out[key] = c.Options
		}
	}
	return out
}

// SettingsOver reads the platforms' settings from this config's options
// with over's laid on top (a connector's or the site's own, by key); nil
// over gives the config's own, read once at Provision.
func (a *App) SettingsOver(over map[string]platforms.Options) (map[string]any, error) {
	if len(over) == 0 && a.settings != nil {
		return a.settings, nil
	}
	byKey := a.PlatformOptions()
	for key, o := range over {
		byKey[key] = byKey[key].Over(o)
	}
	return platforms.AllSettings(byKey)
}

// AdapterSettings are this config's settings as the platforms' surfaces
// take them (adapters/registry), for a surface (connector, site) that
// offers platforms ps and reads the platforms' settings values
// (SettingsOver).
func (a *App) AdapterSettings(ps []string, values map[string]any) registry.Settings {
	if values == nil {
		values = a.settings
	}
	return registry.Settings{Values: values, Replicas: a.Replicas(),
		LinkBases: a.LinkBaseURLs, Offered: ps}
}

// PlatformOption reads a handler's Caddyfile option <key>_<option>
// (tk_odata_root) with its arguments into opts, as the handlers' own
// platform options (mcp, the site) are kept; false when name is no
// registered platform's option. Whether the arguments do is the
// platform's to say (platforms.SettingsOf), at Validate.
func PlatformOption(opts *map[string]platforms.Options, name string, args []string) bool {
	key, opt, ok := platforms.OptionOf(name)
	if !ok {
		return false
	}
	if *opts == nil {
		*opts = map[string]platforms.Options{}
	}
	if (*opts)[key] == nil {
		(*opts)[key] = platforms.Options{}
	}
	(*opts)[key][opt] = args
	return true
}
