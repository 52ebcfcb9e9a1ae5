package platformlimit

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/besluitbron/besluitbron/fairqueue"
)

func init() {
	caddy.RegisterModule(Admin{})
}

// Admin is the admin API module admin.api.platform_limit. It serves
//
//	GET /besluitbron/budget/              every platform's budget
//	GET /besluitbron/budget/<platform>    one platform's budget
//
// each with: the capacity and window, the units left, whether it is paused
// (after a platform's 429), the calls, clients and sessions waiting, the
// clients and sessions remembered, the totals (refunded: calls that got
// no answer from the platform and gave their units back), and the heaviest clients'
// usage with their heaviest sessions (?top=N, default 10; client
// addresses and session keys are shown here, on the admin endpoint only).
// With a shared store it also shows this instance's id, the mode
// ("global", or "fallback" while Redis does not answer), the waiting flows
// of all instances, and this instance's own totals (admitted and
// units_spent count what this instance let through).
type Admin struct{}

// CaddyModule returns the Caddy module information.
func (Admin) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "admin.api.platform_limit",
		New: func() caddy.Module { return new(Admin) },
	}
}

// Routes returns the admin routes.
func (Admin) Routes() []caddy.AdminRoute {
	return []caddy.AdminRoute{{Pattern: adminPrefix, Handler: caddy.AdminHandlerFunc(serveAdmin)}}
}

const adminPrefix = "/besluitbron/budget/"

// Status is one platform's budget as the admin API shows it.
type Status struct {
	Platform string `json:"platform"`
	// Instance is this instance's id on the shared store (empty without
	// one); mode (in Stats) says whether Redis decides ("global") or this
	// instance's conservative local share ("fallback").
	Instance string `json:"instance,omitempty"`
	fairqueue.Stats
	Window   string                  `json:"window"`
	Heaviest []fairqueue.ClientUsage `json:"heaviest"`
}

func serveAdmin(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodGet {
		return caddy.APIError{HTTPStatus: http.StatusMethodNotAllowed, Err: fmt.Errorf("method not allowed: use GET")}
	}
	top := 10
	if v := r.URL.Query().Get("top"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 10000 {
			return caddy.APIError{HTTPStatus: http.StatusBadRequest, Err: fmt.Errorf("top must be a number from 0 to 10000, got %q", v)}
		}
		top = n
	}
	want := strings.Trim(strings.TrimPrefix(r.URL.Path, adminPrefix), "/")
	var out []Status
	budgets.Range(func(_, value any) bool {
		b := value.(*pooledBudget)
		p := b.platform
		if want != "" && p != want {
			return true
		}
		st := b.Stats()
		out = append(out, Status{Platform: p, Instance: b.instance, Stats: st, Window: st.Window.String(), Heaviest: b.Heaviest(top)})
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Platform < out[j].Platform })
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if want != "" {
		if len(out) == 0 {
			return caddy.APIError{HTTPStatus: http.StatusNotFound, Err: fmt.Errorf("no budget for platform %q", want)}
		}
		return enc.Encode(out[0])
	}
	return enc.Encode(map[string]any{"time": time.Now().UTC(), "platforms": out})
}

// Interface guards
var _ caddy.AdminRouter = Admin{}
