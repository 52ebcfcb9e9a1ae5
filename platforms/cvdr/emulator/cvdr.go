// Package emulator emulates KOOP's local regulations
// (lokaleregelgeving.overheid.nl, the CVDR) below the platform's route,
// offline: each regulation version's XML at
// /cvdr/CVDR<n>/<v>/xml/CVDR<n>_<v>.xml, and the SRU search on the cvdr
// connection at /sru/Search (in reality on another host,
// zoekservice.overheid.nl; platforms mounts it on the same
// route).
//
// It holds the real regulations of testdata/fixtures/cvdr, byte for
// byte; a search record carries the regulation's own <meta>, as the
// service's records do. docs/emulators.md says where each shape comes
// from.
package emulator

import (
	"bytes"
	"embed"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/besluitbron/besluitbron/emulators/koopsru"
)

// data holds byte copies of testdata/fixtures/cvdr (a test keeps them
// equal).
//
//go:embed data/*.xml
var data embed.FS

// Defaults of the SRU paging parameters, as the Officiële Bekendmakingen
// emulator's (KOOP documents none).
const (
	DefaultMaximumRecords = 50
	MaxMaximumRecords     = 1000
)

// regulation is one version of a local regulation.
type regulation struct {
	number, version string // CVDR<number>_<version>
	body            []byte
	meta            string // its <meta> element, as in the file
	title, creator  string
	orgType         string // the creator's scheme: Gemeente, Provincie, Waterschap
	from, until     string // inwerkingtredingDatum, uitwerkingtredingDatum
	modified        string // dcterms:modified: the replica harvests by it
	words           string // all its text, for the keyword index
	// remake makes a generated regulation's file (generate.go), which is
	// not kept: tens of thousands of them would hold hundreds of megabytes.
	remake func() []byte
}

// file is the regulation's XML.
func (r *regulation) file() []byte {
	if r.body != nil {
		return r.body
	}
	return r.remake()
}

// metaElement is its <meta> element, as in the file.
func (r *regulation) metaElement() string {
	if r.remake == nil {
		return r.meta
	}
	s := string(r.remake())
	return s[strings.Index(s, "<meta") : strings.Index(s, "</meta>")+len("</meta>")]
}

func (r *regulation) id() string { return "CVDR" + r.number + "_" + r.version }
func (r *regulation) path() string {
	return "/cvdr/CVDR" + r.number + "/" + r.version + "/xml/" + r.id() + ".xml"
}

// DefaultPageCap is the most records a page gives when Config names no
// cap: as many as maximumRecords may ask.
const DefaultPageCap = MaxMaximumRecords

// Config configures the emulator.
type Config struct {
	// Generated is the number of generated regulations held beside the
	// real samples (generate.go): 0 none.
	Generated int
	// PageCap is the most records a page gives, whatever maximumRecords
	// asks, without a word: numberOfRecords still counts every match (a
	// public client reports 100 of the CVDR). 0 is DefaultPageCap.
	PageCap int
}

type handler struct {
	cfg    Config
	once   sync.Once
	regs   []*regulation
	byPath map[string]*regulation
	err    error
}

// New returns the emulator of the real samples alone.
func New() http.Handler { return NewWith(Config{}) }

// NewWith returns the emulator as cfg says.
func NewWith(cfg Config) http.Handler {
	if cfg.PageCap <= 0 {
		cfg.PageCap = DefaultPageCap
	}
	return &handler{cfg: cfg}
}

var idRE = regexp.MustCompile(`^(?:CVDR)?([0-9]+)_([0-9]+)$`)

func (h *handler) load() error {
	h.once.Do(func() {
		entries, err := data.ReadDir("data")
		if err != nil {
			h.err = err
			return
		}
		for _, e := range entries {
			body, err := data.ReadFile("data/" + e.Name())
			if err != nil {
				h.err = err
				return
			}
			reg, err := read(body)
			if err != nil {
				h.err = fmt.Errorf("%s: %v", e.Name(), err)
				return
			}
			h.regs = append(h.regs, reg)
		}
		sort.Slice(h.regs, func(a, b int) bool { return h.regs[a].id() < h.regs[b].id() })
		if h.cfg.Generated > 0 {
			template, err := data.ReadFile(templateFile)
			if err != nil {
				h.err = err
				return
			}
			h.regs = append(h.regs, generate(h.cfg.Generated, template)...) // after the real ones, in order
		}
		h.byPath = make(map[string]*regulation, len(h.regs))
		for _, reg := range h.regs {
			h.byPath[reg.path()] = reg
		}
	})
	return h.err
}

// read takes what the emulator searches on out of a regulation's XML.
func read(body []byte) (*regulation, error) {
	var raw struct {
		Kern struct {
			Identifier string `xml:"identifier"`
			Title      string `xml:"title"`
			Creator    struct {
				Name   string `xml:",chardata"`
				Scheme string `xml:"scheme,attr"`
			} `xml:"creator"`
			Modified string `xml:"modified"`
		} `xml:"meta>owmskern"`
		IPM struct {
			From  string `xml:"inwerkingtredingDatum"`
			Until string `xml:"uitwerkingtredingDatum"`
		} `xml:"meta>cvdripm"`
	}
	if err := xml.Unmarshal(body, &raw); err != nil {
		return nil, err
	}
	m := idRE.FindStringSubmatch(strings.TrimSpace(raw.Kern.Identifier))
	if m == nil {
		return nil, fmt.Errorf("identifier %q", raw.Kern.Identifier)
	}
	s := string(body)
	start, end := strings.Index(s, "<meta"), strings.Index(s, "</meta>")
	if start < 0 || end < start {
		return nil, fmt.Errorf("no <meta>")
	}
	_, orgType, _ := strings.Cut(raw.Kern.Creator.Scheme, ":")
	reg := &regulation{number: m[1], version: m[2], body: body, meta: s[start : end+len("</meta>")],
		title: strings.TrimSpace(raw.Kern.Title), creator: strings.TrimSpace(raw.Kern.Creator.Name), orgType: orgType,
		from: strings.TrimSpace(raw.IPM.From), until: strings.TrimSpace(raw.IPM.Until), modified: strings.TrimSpace(raw.Kern.Modified)}
	var words strings.Builder
	dec := xml.NewDecoder(bytes.NewReader(body))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if cd, ok := tok.(xml.CharData); ok {
			words.Write(cd)
			words.WriteString(" ")
		}
	}
	reg.words = words.String()
	return reg, nil
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
	if r.URL.Path == "/sru/Search" {
		h.search(w, r)
		return
	}
	if reg := h.byPath[r.URL.Path]; reg != nil {
		koopsru.WriteXML(w, r, string(reg.file()))
		return
	}
	http.NotFound(w, r)
}
