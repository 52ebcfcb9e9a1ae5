package subrequest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/subcall"
)

// panicking stands in for a platform route whose handler ends its answer
// by panicking: /abort as platform_proxy does on a failed body copy,
// /boom with a value of its own (a bug), /big writes past the recorder's
// cap and ignores the error.
type panicking struct{}

func (panicking) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.subrequest_test_panic", New: func() caddy.Module { return panicking{} }}
}

func (panicking) ProxiedPlatform() string { return "obv" }

func (panicking) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte("part of an answer"))
	switch r.URL.Path {
	case "/platforms/obv/abort":
		panic(http.ErrAbortHandler)
	case "/platforms/obv/boom":
		panic("boom")
	case "/platforms/obv/big":
		chunk := make([]byte, 1<<20)
		for range subcall.MaxAnswerBytes>>20 + 1 {
			_, _ = w.Write(chunk)
		}
	}
	return nil
}

func (*panicking) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next()
	return nil
}

func init() {
	caddy.RegisterModule(panicking{})
	httpcaddyfile.RegisterHandlerDirective("subrequest_test_panic", func(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
		return panicking{}, nil
	})
}

// TestDoRecoversTheRoutesPanics: a route that panics (the abort
// platform_proxy raises on a failed copy, or anything else) fails that
// sub-request with an error; Do runs in goroutines of its own (the
// fan-out, the maintenance), where the panic would end the process.
func TestDoRecoversTheRoutesPanics(t *testing.T) {
	port := testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin off
	order subrequest_test_panic before respond
}
http://:%d {
	subrequest_test_panic
}`, port))
	srvs := ServersFor("obv")
	if len(srvs) != 1 {
		t.Fatalf("%d servers carry obv", len(srvs))
	}
	o := Origin{Server: srvs[0], Host: fmt.Sprintf("127.0.0.1:%d", port)}
	for path, want := range map[string]error{"/abort": subcall.ErrAborted, "/boom": subcall.ErrAborted, "/big": subcall.ErrAnswerTooLarge, "/fine": nil} {
		done := make(chan error, 1)
		go func() { // as the fan-out runs it
			_, err := Do(context.Background(), o, "obv", adapters.Request{Path: path})
			done <- err
		}()
		err := <-done
		if !errors.Is(err, want) || (path == "/boom" && !strings.Contains(fmt.Sprint(err), "boom")) {
			t.Errorf("%s: error %v, want %v", path, err, want)
		}
	}
	// An abort while the caller has gone (a search's deadline) says so,
	// so the caller does not blame the platform.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Do(ctx, o, "obv", adapters.Request{Path: "/abort"}); !errors.Is(err, context.Canceled) || !errors.Is(err, subcall.ErrAborted) {
		t.Errorf("abort after the caller went: %v", err)
	}
}
