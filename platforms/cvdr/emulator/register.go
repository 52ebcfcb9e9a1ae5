package emulator

import (
	"net/http"

	"github.com/besluitbron/besluitbron/emulators"
)

// The local regulations are the real samples and OfflineRegulations
// generated ones, deterministic: no seed.
func init() {
	emulators.Register("cvdr", func(int64) http.Handler { return NewWith(Config{Generated: OfflineRegulations}) })
}
