package platformcache

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/caddyserver/caddy/v2"

	"github.com/besluitbron/besluitbron/platforms"
)

func init() {
	caddy.RegisterModule(AdminAPI{})
}

// AdminAPI serves the caches' admin routes on Caddy's admin endpoint only:
//
//	GET    /besluitbron/cache/            figures of every platform
//	GET    /besluitbron/cache/<platform>  figures of one platform
//	DELETE /besluitbron/cache/<platform>  purge one platform (POST .../purge too)
type AdminAPI struct{}

// CaddyModule returns the Caddy module information.
func (AdminAPI) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "admin.api.platform_cache",
		New: func() caddy.Module { return new(AdminAPI) },
	}
}

// AdminPrefix is where the routes live.
const AdminPrefix = "/besluitbron/cache/"

// Routes returns the admin routes.
func (AdminAPI) Routes() []caddy.AdminRoute {
	return []caddy.AdminRoute{{Pattern: AdminPrefix, Handler: caddy.AdminHandlerFunc(serveAdmin)}}
}

func serveAdmin(w http.ResponseWriter, r *http.Request) error {
	rest := strings.Trim(strings.TrimPrefix(r.URL.Path, AdminPrefix), "/")
	platform, action, _ := strings.Cut(rest, "/")
	if platform == "" {
		if r.Method != http.MethodGet {
			return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("method %s not allowed", r.Method)}
		}
		stats := allStats()
		sort.Slice(stats, func(i, j int) bool { return stats[i].Platform < stats[j].Platform })
		return writeJSON(w, stats)
	}
	if _, ok := platforms.Get(platform); !ok {
		return caddy.APIError{HTTPStatus: http.StatusNotFound, Err: fmt.Errorf("unknown platform %q (want one of %v)", platform, platforms.Keys())}
	}
	s := storeOf(platform)
	if s == nil {
		return caddy.APIError{HTTPStatus: http.StatusNotFound, Err: fmt.Errorf("platform %q has no platform_cache in the running config", platform)}
	}
	switch {
	case action == "" && r.Method == http.MethodGet:
		return writeJSON(w, s.Stats())
	case action == "" && r.Method == http.MethodDelete, action == "purge" && r.Method == http.MethodPost:
		if err := s.Purge(); err != nil {
			return caddy.APIError{HTTPStatus: http.StatusInternalServerError, Err: fmt.Errorf("purging %s: %v", platform, err)}
		}
		return writeJSON(w, map[string]any{"purged": platform, "figures": s.Stats()})
	case action != "" && action != "purge":
		return caddy.APIError{HTTPStatus: http.StatusNotFound, Err: fmt.Errorf("no such cache route %q", r.URL.Path)}
	default:
		return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("method %s not allowed on %s", r.Method, r.URL.Path)}
	}
}

func writeJSON(w http.ResponseWriter, v any) error {
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(v)
}

var _ caddy.AdminRouter = AdminAPI{}
