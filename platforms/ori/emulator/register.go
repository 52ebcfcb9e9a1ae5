package emulator

import (
	"net/http"

	"github.com/besluitbron/besluitbron/emulators"
)

func init() {
	emulators.Register("ori", func(seed int64) http.Handler { return New(Config{Seed: seed}) })
}
