package emulator

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

const (
	nsAtom = "http://www.w3.org/2005/Atom"
	nsTK   = "http://www.tweedekamer.nl/xsd/tkData/v1-0"
)

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func xmlEsc(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// utcSeconds turns an RFC 3339 stamp into UTC with whole seconds.
func utcSeconds(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return t.UTC().Format("2006-01-02T15:04:05Z")
}

// entityXML writes the content element of one entity. withNS adds the
// namespace declarations (for a standalone document).
func entityXML(b *bytes.Buffer, s *set, i int, withNS bool) {
	entityRowXML(b, s.typ, s.rows[i], withNS)
}

// entityRowXML is entityXML for a row that need not be stored in a set:
// the SyncFeed's generated and deleted versions of a document (feedplan.go).
func entityRowXML(b *bytes.Buffer, t *entityType, r row, withNS bool, links ...feedLink) {
	el := lowerFirst(t.name)
	fmt.Fprintf(b, `<%s`, el)
	if withNS {
		fmt.Fprintf(b, ` xmlns="%s" xmlns:tk="%s"`, nsTK, nsTK)
	} else {
		fmt.Fprintf(b, ` xmlns="%s"`, nsTK)
	}
	fmt.Fprintf(b, ` id="%s" tk:bijgewerkt="%s" tk:verwijderd="%t">`, r[0], utcSeconds(r[t.pos["GewijzigdOp"]].(string)), r[t.pos["Verwijderd"]])
	for p, pr := range t.props {
		switch pr.name {
		case "Id", "GewijzigdOp", "ApiGewijzigdOp", "Verwijderd":
			continue
		}
		v := r[p]
		if v == nil {
			continue
		}
		if strings.HasSuffix(pr.name, "_Id") {
			fmt.Fprintf(b, `<%s ref="%s"/>`, lowerFirst(strings.TrimSuffix(pr.name, "_Id")), v)
			continue
		}
		name := lowerFirst(pr.name)
		var text string
		switch x := v.(type) {
		case string:
			text = x
			if pr.kind == kDate && strings.Contains(x, "T00:00:00") {
				text = x[:10]
			}
		case int:
			text = strconv.Itoa(x)
		case bool:
			text = strconv.FormatBool(x)
		default:
			text = fmt.Sprint(x)
		}
		fmt.Fprintf(b, `<%s>%s</%s>`, name, xmlEsc(text), name)
	}
	for _, l := range links {
		fmt.Fprintf(b, `<%s ref="%s"/>`, l.element, l.ref)
	}
	fmt.Fprintf(b, `</%s>`, el)
}

func feedError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintln(w, msg)
}

func (h *handler) serveFeed(w http.ResponseWriter, r *http.Request, rest string) {
	d := h.data
	d.build()
	base := baseURL(r) + feedPrefix
	switch {
	case rest == "Feed":
		h.feedPage(w, r, base)
	case strings.HasPrefix(rest, "Entiteiten/"):
		id := strings.ToLower(strings.TrimPrefix(rest, "Entiteiten/"))
		t, row, _, ok := h.feedEntity(id)
		if !ok {
			feedError(w, http.StatusNotFound, "Entiteit niet gevonden: "+id)
			return
		}
		var b bytes.Buffer
		b.WriteString(`<?xml version="1.0" encoding="utf-8"?>` + "\n")
		entityRowXML(&b, t, row, true, h.data.feedLinks(t, id)...)
		w.Header().Set("Content-Type", "application/xml; charset=utf-8")
		w.Write(b.Bytes())
	case strings.HasPrefix(rest, "Resources/"):
		id := strings.ToLower(strings.TrimPrefix(rest, "Resources/"))
		_, _, file, ok := h.feedEntity(id)
		if !ok {
			feedError(w, http.StatusNotFound, "Resource niet gevonden: "+id)
			return
		}
		body, ct, ok := file()
		if !ok {
			feedError(w, http.StatusNotFound, "Geen resource bij entiteit "+id)
			return
		}
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		if r.Method != http.MethodHead {
			w.Write(body)
		}
	default:
		feedError(w, http.StatusNotFound, "Not found")
	}
}

// feedEntity finds an entity of the SyncFeed by GUID: its current version
// and its file (ok=false from file when it has none).
func (h *handler) feedEntity(id string) (*entityType, row, func() ([]byte, string, bool), bool) {
	if p := h.plan(); p != nil {
		return p.entity(id, h.now())
	}
	f, ok := h.data.byGUID[id]
	if !ok {
		return nil, nil, nil, false
	}
	return f.set.typ, f.set.rows[f.idx], func() ([]byte, string, bool) { return h.resourceBytes(f.set, f.idx) }, true
}

// pageEntry is one entry of a SyncFeed page.
type pageEntry struct {
	token     int64
	typ       *entityType
	row       row
	updated   string // the entry's <updated>, UTC whole seconds
	enclosure bool
}

func (h *handler) feedPage(w http.ResponseWriter, r *http.Request, base string) {
	d := h.data
	q := r.URL.Query()
	category := q.Get("category")
	var cat *set
	if category != "" {
		for _, t := range setOrder {
			if strings.EqualFold(t.name, category) {
				cat = d.sets[t.name]
				category = t.name
			}
		}
		if cat == nil {
			feedError(w, http.StatusBadRequest, "Onbekende categorie: "+category)
			return
		}
	}
	var skip int64
	if s := q.Get("skiptoken"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			feedError(w, http.StatusBadRequest, "Ongeldige skiptoken: "+s)
			return
		}
		skip = n
	}
	var page []pageEntry
	if p := h.plan(); p != nil {
		page = p.page(cat, skip, h.now())
	} else {
		start := sort.Search(len(d.feed), func(p int) bool { return d.feed[p].token > skip })
		for p := start; p < len(d.feed) && len(page) < FeedPageSize; p++ {
			if cat == nil || d.feed[p].set == cat {
				f := d.feed[p]
				s, i := f.set, f.idx
				_, _, encl := h.resourceMeta(s, i)
				page = append(page, pageEntry{token: f.token, typ: s.typ, row: s.rows[i],
					updated: utcSeconds(s.rows[i][s.typ.pos["ApiGewijzigdOp"]].(string)), enclosure: encl})
			}
		}
	}
	link := func(token int64) string {
		v := url.Values{}
		if category != "" {
			v.Set("category", category)
		}
		v.Set("skiptoken", strconv.FormatInt(token, 10))
		return base + "/Feed?" + strings.ReplaceAll(v.Encode(), "+", "%20")
	}
	self := base + "/Feed"
	if r.URL.RawQuery != "" {
		self += "?" + r.URL.RawQuery
	}
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>` + "\n")
	fmt.Fprintf(&b, `<feed xmlns="%s" xmlns:tk="%s">`, nsAtom, nsTK)
	b.WriteString("\n  <title type=\"text\">Tweede Kamer der Staten-Generaal SyncFeed</title>")
	fmt.Fprintf(&b, "\n  <id>%s</id>", xmlEsc(self))
	fmt.Fprintf(&b, "\n  <updated>%s</updated>", h.now().UTC().Format("2006-01-02T15:04:05Z"))
	b.WriteString("\n  <author><name>Tweede Kamer der Staten-Generaal</name></author>")
	fmt.Fprintf(&b, "\n  <link rel=\"self\" href=\"%s\"/>", xmlEsc(self))
	if len(page) == 0 {
		fmt.Fprintf(&b, "\n  <link rel=\"resume\" href=\"%s\"/>", xmlEsc(link(skip)))
	} else {
		fmt.Fprintf(&b, "\n  <link rel=\"next\" href=\"%s\"/>", xmlEsc(link(page[len(page)-1].token)))
	}
	for _, e := range page {
		id := e.row[0].(string)
		b.WriteString("\n  <entry>")
		fmt.Fprintf(&b, "\n    <title>%s</title>", id)
		fmt.Fprintf(&b, "\n    <id>%s/Entiteiten/%s</id>", base, id)
		b.WriteString("\n    <author><name>Tweede Kamer der Staten-Generaal</name></author>")
		fmt.Fprintf(&b, "\n    <updated>%s</updated>", e.updated)
		fmt.Fprintf(&b, "\n    <category term=\"%s\"/>", lowerFirst(e.typ.name))
		fmt.Fprintf(&b, "\n    <link rel=\"next\" href=\"%s\"/>", xmlEsc(link(e.token)))
		if e.enclosure {
			fmt.Fprintf(&b, "\n    <link rel=\"enclosure\" href=\"%s/Resources/%s\"/>", base, id)
		}
		b.WriteString("\n    <content type=\"application/xml\">")
		entityRowXML(&b, e.typ, e.row, false, h.data.feedLinks(e.typ, id)...)
		b.WriteString("</content>\n  </entry>")
	}
	b.WriteString("\n</feed>\n")
	w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
	w.Write(b.Bytes())
}

// resourceMeta tells whether row i of s has a file, without building it.
func (h *handler) resourceMeta(s *set, i int) (string, int, bool) {
	if !s.hasResource {
		return "", 0, false
	}
	ct, _ := s.get(i, "ContentType").(string)
	cl, _ := s.get(i, "ContentLength").(int)
	return ct, cl, ct != ""
}
