package rechtspraak

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/caddymodule/emulators/corpus"
)

var (
	reDate     = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	reModified = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?$`)
)

type filter struct {
	types      []byte
	creators   []string
	subjects   []string
	dateFrom   time.Time
	dateTo     time.Time // inclusive
	hasDate    bool
	modFrom    time.Time
	modTo      time.Time // inclusive; zero = open
	hasMod     bool
	onlyDoc    bool
	replaces   string
	max, from  int
	descending bool
}

// errImpossible marks a well-formed date that does not exist (2023-02-30):
// the real service fails on it with a non-XML error page.
type errImpossible struct{ value string }

func (e errImpossible) Error() string { return "impossible date " + e.value }

func parseFilter(q map[string][]string) (*filter, error) {
	f := &filter{max: MaxResults}
	names := make([]string, 0, len(q))
	for n := range q {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		vals := q[name]
		switch strings.ToLower(name) {
		case "type":
			for _, v := range vals {
				switch strings.ToLower(v) {
				case "uitspraak":
					f.types = append(f.types, 'U')
				case "conclusie":
					f.types = append(f.types, 'C')
				default:
					return nil, fmt.Errorf("ongeldige waarde voor type: %q (Uitspraak of Conclusie)", v)
				}
			}
		case "creator", "subject":
			for _, v := range vals {
				if strings.TrimSpace(v) == "" {
					return nil, fmt.Errorf("lege waarde voor %s", name)
				}
			}
			if strings.ToLower(name) == "creator" {
				f.creators = append(f.creators, vals...)
			} else {
				f.subjects = append(f.subjects, vals...)
			}
		case "date":
			if len(vals) > 2 {
				return nil, fmt.Errorf("date mag hoogstens twee keer voorkomen")
			}
			var ds []time.Time
			for _, v := range vals {
				if !reDate.MatchString(v) {
					return nil, fmt.Errorf("ongeldige datum: %q (verwacht JJJJ-MM-DD)", v)
				}
				d, err := time.Parse(time.DateOnly, v)
				if err != nil {
					return nil, errImpossible{v}
				}
				ds = append(ds, d)
			}
			f.hasDate = true
			f.dateFrom, f.dateTo = ds[0], ds[len(ds)-1]
		case "modified":
			if len(vals) > 2 {
				return nil, fmt.Errorf("modified mag hoogstens twee keer voorkomen")
			}
			var ts []time.Time
			for i, v := range vals {
				if !reModified.MatchString(v) {
					return nil, fmt.Errorf("ongeldige datum/tijd voor modified: %q (verwacht JJJJ-MM-DDTuu:mm:ss)", v)
				}
				t, err := parseModified(v)
				if err != nil {
					return nil, errImpossible{v}
				}
				if i == 1 && len(v) == len("2006-01-02") {
					t = t.Add(24*time.Hour - time.Second) // a date as upper bound covers that day
				}
				ts = append(ts, t)
			}
			f.hasMod = true
			f.modFrom = ts[0]
			if len(ts) == 2 {
				f.modTo = ts[1]
			}
		case "return":
			if len(vals) != 1 || !strings.EqualFold(vals[0], "DOC") {
				return nil, fmt.Errorf("ongeldige waarde voor return: %q (alleen DOC)", strings.Join(vals, ","))
			}
			f.onlyDoc = true
		case "replaces":
			if len(vals) != 1 || strings.TrimSpace(vals[0]) == "" {
				return nil, fmt.Errorf("replaces verwacht één LJN")
			}
			f.replaces = strings.ToUpper(strings.TrimSpace(vals[0]))
		case "max":
			n, err := strconv.Atoi(last(vals))
			if err != nil || n < 1 {
				return nil, fmt.Errorf("ongeldige waarde voor max: %q (1 tot en met %d)", last(vals), MaxResults)
			}
			f.max = min(n, MaxResults)
		case "from":
			n, err := strconv.Atoi(last(vals))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("ongeldige waarde voor from: %q", last(vals))
			}
			f.from = n
		case "sort":
			switch strings.ToUpper(last(vals)) {
			case "ASC":
				f.descending = false
			case "DESC":
				f.descending = true
			default:
				return nil, fmt.Errorf("ongeldige waarde voor sort: %q (ASC of DESC)", last(vals))
			}
		default:
			return nil, fmt.Errorf("onbekende parameter: %s", name)
		}
	}
	return f, nil
}

func last(v []string) string { return v[len(v)-1] }

func parseModified(v string) (time.Time, error) {
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", time.DateOnly} {
		if len(v) == len(layout) {
			return time.Parse(layout, v)
		}
	}
	return time.Time{}, fmt.Errorf("bad layout")
}

func (f *filter) match(r *ruling, now time.Time) bool {
	if len(f.types) > 0 && !slices.Contains(f.types, r.Type) {
		return false
	}
	if len(f.creators) > 0 && !slices.Contains(f.creators, r.court().ID) {
		return false
	}
	if len(f.subjects) > 0 && !f.subjectMatch(r) {
		return false
	}
	if f.hasDate && (r.Date.Before(f.dateFrom) || r.Date.After(f.dateTo)) {
		return false
	}
	if f.hasMod {
		m := r.modified(now)
		if m.Before(f.modFrom) || (!f.modTo.IsZero() && m.After(f.modTo)) {
			return false
		}
	}
	if f.onlyDoc {
		if del, doc := r.state(now); !doc || del != 0 {
			return false
		}
	}
	if f.replaces != "" && r.LJN != f.replaces {
		return false
	}
	return true
}

// subjectMatch: a second-level area matches itself, a top-level area all
// areas below it.
func (f *filter) subjectMatch(r *ruling) bool {
	for _, s := range f.subjects {
		for _, si := range []int16{r.Subject, r.Subject2} {
			if si < 0 {
				continue
			}
			if l := leaves[si]; l.ID == s || l.Parent == s {
				return true
			}
		}
	}
	return false
}

func (h *handler) serveSearch(w http.ResponseWriter, r *http.Request) {
	f, err := parseFilter(r.URL.Query())
	if err != nil {
		if imp, ok := err.(errImpossible); ok {
			serverError(w, "Ongeldige datum "+imp.value)
			return
		}
		badRequest(w, err.Error())
		return
	}
	now := h.cfg.Now()
	all := h.index().rulings
	var hits []*ruling
	pending := false // a later modification has not happened yet: reorder
	for _, ru := range all {
		if h.visible(ru, now) && f.match(ru, now) {
			hits = append(hits, ru)
			pending = pending || ru.Modified.After(now)
		}
	}
	if pending {
		sort.SliceStable(hits, func(a, b int) bool {
			x, y := hits[a].modified(now), hits[b].modified(now)
			if !x.Equal(y) {
				return x.Before(y)
			}
			return hits[a].ECLI < hits[b].ECLI
		})
	}
	if f.descending {
		slices.Reverse(hits)
	}
	total := len(hits)
	page := hits[min(f.from, total):min(f.from+f.max, total)]
	writeXML(w, r, http.StatusOK, h.feed(total, page, now))
}

func (h *handler) feed(total int, page []*ruling, now time.Time) string {
	b := &xb{}
	local, off := amsterdam(now)
	b.raw(`<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">`)
	b.raw(`<title type="text">Rechtspraak Open Data (Uitspraken)</title>`)
	b.raw(`<subtitle type="text">Aantal gevonden ECLI's: ` + strconv.Itoa(total) + `</subtitle>`)
	b.el("id", "uuid:"+h.uuid()+";id="+strconv.FormatInt(h.feedID.Add(1), 10))
	b.raw(`<rights type="text">Copyright ` + strconv.Itoa(local.Year()) + ` Rechtspraak.</rights>`)
	b.el("updated", local.Format("2006-01-02T15:04:05")+off)
	for _, ru := range page {
		del, _ := ru.state(now)
		switch del {
		case 'd':
			b.raw(`<entry deleted="doc">`)
		case 'e':
			b.raw(`<entry deleted="ecli">`)
		default:
			b.raw("<entry>")
		}
		b.el("id", ru.ECLI)
		b.elA("title", ru.title(), "type", "text")
		sum := ru.summary(h.cfg.Seed)
		if sum == "" {
			sum = "-"
		}
		b.elA("summary", sum, "type", "text")
		b.el("updated", ru.modified(now).Format("2006-01-02T15:04:05Z"))
		b.raw(`<link rel="alternate" type="text/html" href="https://uitspraken.rechtspraak.nl/InzienDocument?id=` + esc(ru.ECLI) + `" />`)
		b.raw("</entry>")
	}
	b.raw("</feed>")
	return b.String()
}

// uuid is the feed's stable identifier for this seed.
func (h *handler) uuid() string {
	r := corpus.Rand(h.cfg.Seed, "rs-feed")
	a, c := r.Uint64(), r.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xfff, 0x8000|(c>>48)&0x3fff, c&0xffffffffffff)
}
