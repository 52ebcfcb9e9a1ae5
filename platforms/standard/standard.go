// Package standard is the product's list of platforms: importing it
// registers each (platforms.Register, in each platform's init), as
// importing Caddy's modules/standard registers its standard modules.
// Adding a platform is its folder and one line here
// (docs/architecture.md, "Adding a platform").
package standard

import (
	_ "github.com/besluitbron/besluitbron/platforms/bwb"
	_ "github.com/besluitbron/besluitbron/platforms/cvdr"
	_ "github.com/besluitbron/besluitbron/platforms/oa"
	_ "github.com/besluitbron/besluitbron/platforms/ob"
	_ "github.com/besluitbron/besluitbron/platforms/obv"
	_ "github.com/besluitbron/besluitbron/platforms/opentk"
	_ "github.com/besluitbron/besluitbron/platforms/ori"
	_ "github.com/besluitbron/besluitbron/platforms/rechtspraak"
	_ "github.com/besluitbron/besluitbron/platforms/tk"
)
