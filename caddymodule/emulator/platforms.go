package emulator

import (
	"net/http"

	"github.com/besluitbron/besluitbron/caddymodule/emulators/bwb"
	"github.com/besluitbron/besluitbron/caddymodule/emulators/cvdr"
	"github.com/besluitbron/besluitbron/caddymodule/emulators/oa"
	"github.com/besluitbron/besluitbron/caddymodule/emulators/ob"
	"github.com/besluitbron/besluitbron/caddymodule/emulators/obv"
	"github.com/besluitbron/besluitbron/caddymodule/emulators/opentk"
	"github.com/besluitbron/besluitbron/caddymodule/emulators/ori"
	"github.com/besluitbron/besluitbron/caddymodule/emulators/rechtspraak"
	"github.com/besluitbron/besluitbron/caddymodule/emulators/tk"
)

// constructors maps a platform key to its emulator, one for each of the
// platforms of the table.
var constructors = map[string]func(seed int64) http.Handler{
	"ori":         func(seed int64) http.Handler { return ori.New(ori.Config{Seed: seed}) },
	"obv":         func(seed int64) http.Handler { return obv.New(obv.Config{Seed: seed}) },
	"tk":          func(seed int64) http.Handler { return tk.New(tk.Config{Seed: seed}) },
	"opentk":      func(seed int64) http.Handler { return opentk.New(opentk.Config{Seed: seed}) },
	"ob":          func(seed int64) http.Handler { return ob.New(ob.Config{Seed: seed}) },
	"rechtspraak": func(seed int64) http.Handler { return rechtspraak.New(rechtspraak.Config{Seed: seed}) },
	"oa":          func(seed int64) http.Handler { return oa.New(oa.Config{Seed: seed}) },
	// Laws and local regulations: the real samples, no seed.
	"bwb":  func(int64) http.Handler { return bwb.New(bwb.Config{}) },
	"cvdr": func(int64) http.Handler { return cvdr.New() },
}
