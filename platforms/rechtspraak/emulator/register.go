package emulator

import (
	"net/http"

	"github.com/besluitbron/besluitbron/emulators"
)

func init() {
	emulators.Register("rechtspraak", func(seed int64) http.Handler { return New(Config{Seed: seed}) })
}
