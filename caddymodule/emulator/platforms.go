package emulator

import (
	"net/http"

	bwb "github.com/besluitbron/besluitbron/platforms/bwb/emulator"
	cvdr "github.com/besluitbron/besluitbron/platforms/cvdr/emulator"
	oa "github.com/besluitbron/besluitbron/platforms/oa/emulator"
	ob "github.com/besluitbron/besluitbron/platforms/ob/emulator"
	obv "github.com/besluitbron/besluitbron/platforms/obv/emulator"
	opentk "github.com/besluitbron/besluitbron/platforms/opentk/emulator"
	ori "github.com/besluitbron/besluitbron/platforms/ori/emulator"
	rechtspraak "github.com/besluitbron/besluitbron/platforms/rechtspraak/emulator"
	tk "github.com/besluitbron/besluitbron/platforms/tk/emulator"
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
