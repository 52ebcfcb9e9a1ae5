package version

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"

	"github.com/caddyserver/caddy/v2"
)

func init() {
	caddy.RegisterModule(Admin{})
}

// Admin is the admin API module admin.api.besluitbron_version, on Caddy's
// admin endpoint only. It serves
//
//	GET /besluitbron/version   {"version": ..., "source": ..., "go": ...}
//
// version is what every new cache entry is stamped with (unless a
// platform_cache sets its own `version`); source says where it came from
// (FromStamp, FromModule or FromBase), so an operator sees at once whether
// a build carries its source's stamp or the shared development default.
type Admin struct{}

// CaddyModule returns the Caddy module information.
func (Admin) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "admin.api.besluitbron_version",
		New: func() caddy.Module { return new(Admin) },
	}
}

// AdminPath is the route.
const AdminPath = "/besluitbron/version"

// Routes returns the admin route.
func (Admin) Routes() []caddy.AdminRoute {
	return []caddy.AdminRoute{{Pattern: AdminPath, Handler: caddy.AdminHandlerFunc(serveAdmin)}}
}

// Status is what the route answers.
type Status struct {
	Version string `json:"version"`
	Source  string `json:"source"`
	Go      string `json:"go"`
}

func serveAdmin(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodGet {
		return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("method %s not allowed: use GET", r.Method)}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	return json.NewEncoder(w).Encode(Status{Version: Current(), Source: Source(), Go: runtime.Version()})
}

// Interface guards
var _ caddy.AdminRouter = Admin{}
