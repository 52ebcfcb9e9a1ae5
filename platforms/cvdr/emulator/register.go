package emulator

import (
	"net/http"

	"github.com/besluitbron/besluitbron/emulators"
)

// The local regulations are real samples: no seed.
func init() { emulators.Register("cvdr", func(int64) http.Handler { return New() }) }
