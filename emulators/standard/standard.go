// Package standard is the list of the platforms' emulators the offline
// build carries (caddymodule/emulator imports it): importing it registers
// each (emulators.Register, in each emulator's init), beside the product's
// list of platforms, platforms/standard.
package standard

import (
	_ "github.com/besluitbron/besluitbron/platforms/bwb/emulator"
	_ "github.com/besluitbron/besluitbron/platforms/cvdr/emulator"
	_ "github.com/besluitbron/besluitbron/platforms/oa/emulator"
	_ "github.com/besluitbron/besluitbron/platforms/ob/emulator"
	_ "github.com/besluitbron/besluitbron/platforms/obv/emulator"
	_ "github.com/besluitbron/besluitbron/platforms/opentk/emulator"
	_ "github.com/besluitbron/besluitbron/platforms/ori/emulator"
	_ "github.com/besluitbron/besluitbron/platforms/rechtspraak/emulator"
	_ "github.com/besluitbron/besluitbron/platforms/tk/emulator"
)
