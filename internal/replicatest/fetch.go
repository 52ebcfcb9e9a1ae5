package replicatest

import (
	"context"
	"net/http"
	"net/http/httptest"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/replica"
)

// Fetch is an emulator as a harvester's fetch sees it through the
// platform's route, in process: a non-2xx answer becomes the route's
// error for platform (adapters.Classify). asked, when not nil, is called
// before each request (the tests count pages with it).
func Fetch(platform string, emu http.Handler, asked func(adapters.Request)) replica.Fetch {
	return func(_ context.Context, req adapters.Request) ([]byte, http.Header, error) {
		if asked != nil {
			asked(req)
		}
		rec := httptest.NewRecorder()
		emu.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, req.Path, nil))
		if rec.Code/100 != 2 {
			return nil, nil, adapters.Classify(platform, rec.Code, false, 0, false, rec.Body.Bytes())
		}
		return rec.Body.Bytes(), rec.Header(), nil
	}
}
