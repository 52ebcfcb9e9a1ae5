// Package emulator emulates the Tweede Kamer Gegevensmagazijn offline: the OData
// API in two versions over the same rows, the old /OData/v4/2.0/ and the
// new /OData/v5/ with its renamed fields and 100-row cap (entity sets,
// $metadata, $filter, $select, $orderby, $top/$skip, $count, $expand,
// (guid) addressing, /resource), and the SyncFeed under /SyncFeed/2.0/
// (Atom pages with skiptokens, Entiteiten, Resources).
//
// The data is generated deterministically from Config.Seed on first use:
// 20 fracties (5 inactive), 150 current members and some 180 former ones,
// 41 commissies, ~570 kamerstukdossiers and 8000 documents, each with a
// zaak and its actors, and for most motions and amendments a besluit with
// its agendapunt, "Stemmingen" activiteit and votes. Field names, order
// and JSON types follow the real responses in fixtures/tk.
//
// Config.Feed (feedplan.go) turns the SyncFeed into one a harvester can be
// tested against: the real feed's size, re-sent and deleted documents,
// entries that appear as the clock moves.
package emulator

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/platforms"
)

// Config configures the emulator.
type Config struct {
	// Seed selects the generated data.
	Seed int64
	// Clock is the clock; nil means clock.Wall. The data runs up to its
	// day when the emulator is built.
	Clock clock.Clock
	// Documents is the number of documents; 0 means 8000.
	Documents int
	// Data, when set, is used instead of the process-wide SharedData of
	// (Seed, the day of its clock, Documents), which the OpenTK emulator also uses.
	Data *Data
	// PageSize, when positive and below the version's cap (250 in v4, 100
	// in v5), is the most rows one OData answer holds: tests lower it to
	// drive server-driven paging (@odata.nextLink) with few rows.
	PageSize int
	// Feed shapes the SyncFeed beyond the base data: a long history, re-sent
	// and deleted documents, documents that appear as the clock moves
	// (feedplan.go). The zero value keeps the feed as it always was.
	Feed FeedConfig
}

// MaxTop is the most rows one OData v4 response holds.
const MaxTop = 250

// FeedPageSize is the number of entries on one SyncFeed page.
const FeedPageSize = 250

const feedPrefix = "/SyncFeed/2.0"

type handler struct {
	cfg  Config
	data *Data
	now  func() time.Time

	planOnce  sync.Once
	feedPlanV *feedPlan
}

// Emulator is the emulator's handler with the figures a test compares a
// replica with (FeedCounts, FeedDocuments).
type Emulator struct{ *handler }

// New returns the emulator's handler.
func New(cfg Config) http.Handler { return NewEmulator(cfg) }

// NewEmulator is New with the emulator's own type. The data runs up to the
// day of cfg.Clock now (unless cfg.Data is set): an Emulator made with the
// same Config on the same day holds the same feed as one made by New.
func NewEmulator(cfg Config) *Emulator {
	now := clock.Or(cfg.Clock).Now
	d := cfg.Data
	if d == nil {
		d = SharedData(cfg.Seed, now(), cfg.Documents)
	}
	return &Emulator{&handler{cfg: cfg, data: d, now: now}}
}

// Data is the base data the emulator serves.
func (e *Emulator) Data() *Data { return e.data }

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.EscapedPath()
	if up, err := unescapePath(p); err == nil {
		p = up
	}
	v, rest, isOData := versionOf(p)
	switch {
	case isOData:
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET")
			odataError(w, http.StatusMethodNotAllowed, "The requested resource does not support http method '"+r.Method+"'.")
			return
		}
		h.serveOData(w, r, v, rest)
	case strings.HasPrefix(p, feedPrefix+"/"):
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET")
			http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h.serveFeed(w, r, strings.TrimPrefix(p, feedPrefix+"/"))
	default:
		http.NotFound(w, r)
	}
}

func unescapePath(p string) (string, error) {
	// the path may hold %24count or %28guid%29
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '%' && i+2 < len(p) {
			var v byte
			for _, c := range []byte(p[i+1 : i+3]) {
				v <<= 4
				switch {
				case c >= '0' && c <= '9':
					v |= c - '0'
				case c >= 'a' && c <= 'f':
					v |= c - 'a' + 10
				case c >= 'A' && c <= 'F':
					v |= c - 'A' + 10
				default:
					return "", errBadEscape
				}
			}
			b.WriteByte(v)
			i += 2
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String(), nil
}

type constErr string

func (e constErr) Error() string { return string(e) }

const errBadEscape = constErr("bad escape")

// realHost is the Gegevensmagazijn's host name. The proxy sends it as Host.
var realHost = func() string {
	if p, ok := platforms.Get(platforms.TK); ok && len(p.BaseURLs) > 0 {
		if u, err := url.Parse(p.BaseURLs[0]); err == nil {
			return u.Host
		}
	}
	return "gegevensmagazijn.tweedekamer.nl"
}()

// baseURL is scheme://host of the request: links in answers point there.
// A request that carries the real platform's Host (as the proxy sends it)
// gets the real platform's https links, exactly as upstream would give.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Host, realHost) {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// odataError writes the OData error body the real server sends.
func odataError(w http.ResponseWriter, status int, msg string) {
	body, _ := json.Marshal(map[string]any{"error": map[string]any{"code": "", "message": msg}})
	w.Header().Set("Content-Type", "application/json; odata.metadata=minimal")
	w.Header().Set("OData-Version", "4.0")
	w.WriteHeader(status)
	w.Write(body)
}

func writeJSON(w http.ResponseWriter, buf *bytes.Buffer) {
	w.Header().Set("Content-Type", "application/json; odata.metadata=minimal; odata.streaming=true; IEEE754Compatible=false; charset=utf-8")
	w.Header().Set("OData-Version", "4.0")
	w.Write(buf.Bytes())
}
