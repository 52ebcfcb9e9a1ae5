package site_test

// The tests read the platforms' table, which the product's list of
// platforms fills in (each platform registers itself in its init).
import _ "github.com/besluitbron/besluitbron/platforms/standard"
