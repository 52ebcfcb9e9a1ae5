package emulator

// The emulators of the platforms the offline build fronts: each registers
// itself (emulators.Register), as each platform does in the product's list.
import _ "github.com/besluitbron/besluitbron/emulators/standard"
