// Package emulator emulates KOOP's laws (wetten.overheid.nl, the
// Basiswettenbestand) below the platform's route, offline and
// deterministically: the repository's manifests and toestanden at
// /bwb/<id>/manifest.xml and /bwb/<id>/<label>/xml/<item>, and the SRU
// search on the BWB connection at /sru/Search (in reality on another
// host, zoekservice.overheid.nl; platforms mounts it on the
// same route).
//
// It holds the regulations of the real toestanden in
// testdata/fixtures/bwb, each with a history of versions derived from
// the dates in force its parts name (data.go), so a version in force on
// a date can be asked for. docs/emulators.md says where each shape comes
// from.
package emulator

import (
	"crypto/sha512"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/emulators/koopsru"
)

// Defaults of the SRU paging parameters, as the Officiële Bekendmakingen
// emulator's (KOOP documents none).
const (
	DefaultMaximumRecords = 50
	MaxMaximumRecords     = 1000
)

// DefaultPageCap is the most records a page gives when Config names no
// cap: as many as maximumRecords may ask.
const DefaultPageCap = MaxMaximumRecords

// Config configures the emulator.
type Config struct {
	// Clock is the clock (nil = clock.Wall): a manifest's generation time.
	Clock clock.Clock
	// Generated is the number of generated regulations held beside the
	// real samples (generate.go): 0 none, RealisticRegulations the BWB's
	// size.
	Generated int
	// PageCap is the most records a page gives, whatever maximumRecords
	// asks, without a word: numberOfRecords still counts every match (as
	// public clients report of KOOP's SRU). 0 is DefaultPageCap.
	PageCap int
	// Laws are laws made by Staatsblad publications of bills, whose
	// brondata names the publication and the dossier (Go only,
	// timeline.go): a chain test links them to the Kamer's dossiers.
	Laws []Law
}

type handler struct {
	cfg  Config
	once sync.Once
	regs map[string]*regulation
	ids  []string
	err  error
}

// New returns the emulator's HTTP handler.
func New(cfg Config) http.Handler {
	cfg.Clock = clock.Or(cfg.Clock)
	if cfg.PageCap <= 0 {
		cfg.PageCap = DefaultPageCap
	}
	return &handler{cfg: cfg}
}

func (h *handler) load() error {
	h.once.Do(func() {
		if h.regs, h.ids, h.err = loadRegulations(); h.err != nil || (h.cfg.Generated <= 0 && len(h.cfg.Laws) == 0) {
			return
		}
		template, err := data.ReadFile(templateFile)
		if err != nil {
			h.err = err
			return
		}
		for _, law := range h.cfg.Laws { // timeline.go
			reg, err := lawRegulation(template, law)
			if err != nil {
				h.err = err
				return
			}
			h.regs[reg.id] = reg
			h.ids = append(h.ids, reg.id)
		}
		for _, reg := range generate(h.cfg.Generated, template) {
			h.regs[reg.id] = reg
			h.ids = append(h.ids, reg.id) // after the real ones, in order
		}
	})
	return h.err
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if err := h.load(); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	p := r.URL.Path
	switch {
	case p == "/sru/Search":
		h.search(w, r)
	case strings.HasPrefix(p, "/bwb/"):
		parts := strings.Split(strings.TrimPrefix(p, "/bwb/"), "/")
		reg := h.regs[parts[0]]
		switch {
		case reg != nil && len(parts) == 2 && parts[1] == "manifest.xml":
			koopsru.WriteXML(w, r, manifest(reg, h.cfg.Clock.Now()))
		case reg != nil && len(parts) == 4 && parts[2] == "xml":
			for _, v := range reg.versions {
				if v.label == parts[1] && v.item == parts[3] {
					koopsru.WriteXML(w, r, string(v.text()))
					return
				}
			}
			http.NotFound(w, r)
		default:
			http.NotFound(w, r)
		}
	default:
		http.NotFound(w, r)
	}
}

// manifest renders a regulation's manifest in the shape of the real one
// (testdata/fixtures/bwb/manifest-BWBR0045754.xml): element order,
// attributes, the size and SHA-512 of each version's file, times in
// Dutch local time.
func manifest(reg *regulation, now time.Time) string {
	b := &koopsru.XB{}
	latest := reg.versions[len(reg.versions)-1]
	first := reg.versions[0]
	stamp := func(date string) string {
		d, _ := time.Parse(time.DateOnly, date)
		return koopsru.Amsterdam(d.Add(6*time.Hour + 22*time.Minute + 42*time.Second))
	}
	b.Raw(`<?xml version="1.0" encoding="utf-8"?><work xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" label="` +
		reg.id + `" gegenereerd="` + koopsru.Instant(now) + `" _latestItem="` + latest.label + "/xml/" + latest.item + `">`)
	b.Raw("<metadata>")
	b.El("tijdstip_wti_toegevoegd", stamp(first.from))
	b.El("tijdstip_laatste_wijziging_wti", stamp(latest.from))
	b.El("wti_locatie", reg.id+".WTI")
	b.El("datum_inwerkingtreding", first.from)
	b.Raw("</metadata>")
	for i, v := range reg.versions {
		changed := v.from
		if i+1 < len(reg.versions) {
			changed = reg.versions[i+1].from // when its einddatum was set
		}
		body := v.text()
		sum := sha512.Sum512(body)
		b.Raw(`<expression label="` + v.label + `"><metadata>`)
		b.El("datum_inwerkingtreding", v.from)
		b.El("einddatum", v.until)
		b.El("zichtdatum_start", v.from)
		b.El("zichtdatum_eind", openEnd)
		b.El("tijdstip_toegevoegd", stamp(v.modified))
		b.El("tijdstip_laatste_wijziging", stamp(changed))
		b.Raw(`</metadata><manifestation label="xml"><metadata>`)
		b.El("size", strconv.Itoa(len(body)))
		b.El("hashcode", hex.EncodeToString(sum[:]))
		b.Raw(`</metadata><item label="` + v.item + `" _deleted="false" /></manifestation></expression>`)
	}
	b.Raw("</work>")
	return b.String()
}
