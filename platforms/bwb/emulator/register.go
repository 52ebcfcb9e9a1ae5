package emulator

import (
	"net/http"

	"github.com/besluitbron/besluitbron/emulators"
)

// The laws are the real samples and OfflineRegulations generated ones,
// deterministic: no seed.
func init() {
	emulators.Register("bwb", func(int64) http.Handler { return New(Config{Generated: OfflineRegulations}) })
}
