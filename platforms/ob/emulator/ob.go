// Package emulator emulates the KOOP SRU 2.0 service of Officiële Bekendmakingen
// (https://repository.overheid.nl/sru) and the FRBR files its records link
// to, offline and deterministically.
//
// The handler serves the platform as seen below its base URL: "/" is the SRU
// endpoint (operation=searchRetrieve|explain). The real full-text files live
// at https://repository.overheid.nl/frbr/..., outside the /sru base, which a
// platform route based at /sru cannot reach; the emulator therefore serves
// them below its base, at /frbr/officielepublicaties/<series>/<year or
// dossier>/<id>/1/<manifestation>/<file>, and every itemUrl it hands out
// points there on the request's own scheme and host.
//
// The catalogue (about 15,000 publications over twenty years: Staatsblad,
// Staatscourant, Kamerstukken, Tractatenblad, Gemeenteblad, Provinciaal blad
// and Waterschapsblad) is built from the seed on the first request; full
// texts are generated per identifier when asked for.
package emulator

import (
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// Defaults of the SRU paging parameters. KOOP documents no figures; these
// are the ones third-party clients observe (1000-row pages work, larger ones
// are cut to 1000).
const (
	DefaultMaximumRecords = 50
	MaxMaximumRecords     = 1000
)

// Config configures the emulator.
type Config struct {
	// Seed selects the generated catalogue.
	Seed int64
	// Clock is the clock (nil = clock.Wall). Publications dated after its
	// now are not yet visible; the catalogue spans the twenty calendar
	// years up to the year of its now at the first request.
	Clock clock.Clock
	// MaxRecords caps maximumRecords (0 = MaxMaximumRecords) without a
	// word: numberOfRecords still counts every match, as public clients
	// report of KOOP's SRU (the replica's harvest must notice).
	MaxRecords int
	// Scale multiplies the publications generated a year (0 = 1: about
	// 15,000 over the twenty years, enough for tests); RealisticScale
	// approaches the platform's size for the figures.
	Scale int
	// DefaultRecords is maximumRecords when a request leaves it out
	// (0 = DefaultMaximumRecords).
	DefaultRecords int
	// Laws are Staatsblad publications of laws with the dossier their
	// metadata names (Go only, timeline.go): a chain test links them to
	// the Kamer's dossiers and the laws' brondata.
	Laws []Law
}

type handler struct {
	cfg  Config
	once sync.Once
	cat  *catalog
}

// New returns the emulator's HTTP handler.
func New(cfg Config) http.Handler {
	cfg.Clock = clock.Or(cfg.Clock)
	if cfg.MaxRecords <= 0 {
		cfg.MaxRecords = MaxMaximumRecords
	}
	if cfg.DefaultRecords <= 0 {
		cfg.DefaultRecords = DefaultMaximumRecords
	}
	if cfg.DefaultRecords > cfg.MaxRecords {
		cfg.DefaultRecords = cfg.MaxRecords
	}
	return &handler{cfg: cfg}
}

func (h *handler) catalog() *catalog {
	h.once.Do(func() {
		// The catalogue is built for the day, not the instant: a
		// correction dated today is not shown until tomorrow, so no
		// modification stamp lies ahead of the clock, and handlers on
		// one day share one catalogue.
		k := catalogKey{h.cfg.Seed, h.cfg.Clock.Now().UTC().Truncate(24 * time.Hour), max(h.cfg.Scale, 1), lawsKey(h.cfg.Laws)}
		h.cat = catalogs.Get(k, func() *catalog { return withLaws(buildCatalog(k.seed, k.day, k.scale), h.cfg.Laws) })
	})
	return h.cat
}

// catalogs holds the catalogue of each seed and day for every handler of
// the process: a catalogue never changes once built, and a test binary
// makes many emulators on the same day.
var catalogs corpus.Shared[catalogKey, *catalog]

type catalogKey struct {
	seed  int64
	day   time.Time // midnight UTC
	scale int
	laws  string // Config.Laws (lawsKey)
}

// visible returns the publications issued on or before today.
func (h *handler) visible() []*pub {
	c := h.catalog()
	today := h.cfg.Clock.Now().Format(time.DateOnly)
	n := sort.Search(len(c.pubs), func(i int) bool { return c.pubs[i].Issued > today })
	return c.pubs[:n]
}

// lookup returns a visible publication by identifier.
func (h *handler) lookup(id string) *pub {
	p := h.catalog().byID[id]
	if p == nil || p.Issued > h.cfg.Clock.Now().Format(time.DateOnly) {
		return nil
	}
	return p
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch p := r.URL.Path; {
	case p == "/" || p == "" || p == "/sru" || p == "/sru/":
		// "/sru" too, so the emulator also works with the host root as the
		// platform's base URL (real layout: /sru and /frbr side by side).
		h.serveSRU(w, r)
	case strings.HasPrefix(p, "/frbr/"):
		h.serveFRBR(w, r)
	default:
		http.NotFound(w, r)
	}
}

// base is the scheme://host the request came in on: links in answers point
// there, so a client following them reaches this emulator (or the proxy in
// front of it).
func base(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
