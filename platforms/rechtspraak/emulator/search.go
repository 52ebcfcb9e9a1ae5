package emulator

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// serveSearch answers /uitspraken/zoeken: the rulings visible at the
// clock that pass the filter, in the order of modification, one page. It
// walks the view's span of the modified window once, counting matches
// for the subtitle and writing out only the page's entries: a page costs
// the same at offset 0 and at offset 100,000.
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
	now := h.cfg.Clock.Now()
	t := now.Unix()
	ix := h.index()
	v := h.viewAt(now)
	lo, hi := v.span(f.modFrom, f.modTo)
	total := 0
	page := make([]*ruling, 0, min(f.max, hi-lo))
	for k := range hi - lo {
		pos := lo + k
		if f.descending {
			pos = hi - 1 - k
		}
		ru := &ix.rulings[v.order[pos]]
		if !f.match(ru, t) {
			continue
		}
		if total >= f.from && len(page) < f.max {
			page = append(page, ru)
		}
		total++
	}
	writeXML(w, r, http.StatusOK, h.feed(total, page, now))
}

func (h *handler) feed(total int, page []*ruling, now time.Time) string {
	ix := h.index()
	t := now.Unix()
	b := &xb{}
	b.Grow(512 + 600*len(page))
	local, off := amsterdam(now)
	b.raw(`<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">`)
	b.raw(`<title type="text">Rechtspraak Open Data (Uitspraken)</title>`)
	b.raw(`<subtitle type="text">Aantal gevonden ECLI's: ` + strconv.Itoa(total) + `</subtitle>`)
	b.el("id", "uuid:"+h.uuid()+";id="+strconv.FormatInt(h.feedID.Add(1), 10))
	b.raw(`<rights type="text">Copyright ` + strconv.Itoa(local.Year()) + ` Rechtspraak.</rights>`)
	b.el("updated", local.Format("2006-01-02T15:04:05")+off)
	for _, ru := range page {
		d := ix.decision(ru)
		del, _ := ru.state(t)
		switch del {
		case 'd':
			b.raw(`<entry deleted="doc">`)
		case 'e':
			b.raw(`<entry deleted="ecli">`)
		default:
			b.raw("<entry>")
		}
		b.el("id", d.ECLI)
		b.elA("title", d.title(), "type", "text")
		sum := d.Summary
		if sum == "" {
			sum = "-"
		}
		b.elA("summary", sum, "type", "text")
		b.el("updated", unixTime(ru.modifiedAt(t)).Format("2006-01-02T15:04:05Z"))
		b.raw(`<link rel="alternate" type="text/html" href="https://uitspraken.rechtspraak.nl/InzienDocument?id=` + esc(d.ECLI) + `" />`)
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
