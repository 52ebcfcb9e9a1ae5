package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// query holds the parsed options of one (possibly nested) request.
type query struct {
	d       *Data
	ver     *apiVersion
	typ     *entityType
	filter  node
	sel     []int // nil = all
	selSrc  []string
	orderby []orderKey
	top     int // -1 = not given
	skip    int
	count   bool
	expand  []expandItem
}

type orderKey struct {
	pos  int
	kind kind
	desc bool
	// path is a property reached through single-valued navigation
	// properties (Agendapunt/Activiteit/Datum), nil for an own one.
	path *pathNode
}

type expandItem struct {
	name string
	nav  navDef
	q    *query
}

// option is one query option in request order.
type option struct{ key, val string }

var knownOptions = map[string]bool{"$filter": true, "$select": true, "$orderby": true, "$top": true, "$skip": true,
	"$count": true, "$expand": true, "$format": true, "$skiptoken": true}

func parseOptions(raw string) ([]option, error) {
	var out []option
	seen := map[string]bool{}
	for _, part := range strings.Split(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		k, err1 := url.QueryUnescape(k)
		v, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			return nil, qerr("The query string of the request URI is not valid: %s.", part)
		}
		if strings.HasPrefix(k, "$") {
			if !knownOptions[k] {
				return nil, qerr("The query parameter '%s' is not supported.", k)
			}
			if seen[k] {
				return nil, qerr("Query option '%s' was specified more than once, but it must be specified at most once.", k)
			}
			seen[k] = true
		}
		out = append(out, option{k, v})
	}
	return out, nil
}

func optionMap(opts []option) map[string]string {
	m := map[string]string{}
	for _, o := range opts {
		m[o.key] = o.val
	}
	return m
}

// buildQuery parses the options that apply to entity type t.
func (h *handler) buildQuery(v *apiVersion, t *entityType, m map[string]string) (*query, error) {
	q := &query{d: h.data, ver: v, typ: t, top: -1}
	if f, ok := m["$filter"]; ok {
		if strings.TrimSpace(f) == "" {
			return nil, qerr("The value for OData query '$filter' cannot be empty.")
		}
		n, err := parseFilterIn(f, t, v)
		if err != nil {
			return nil, err
		}
		q.filter = n
	}
	if s, ok := m["$select"]; ok {
		for _, name := range strings.Split(s, ",") {
			name = strings.TrimSpace(name)
			if name == "*" {
				q.sel, q.selSrc = nil, nil
				break
			}
			p, ok := t.pos[name]
			if !ok {
				return nil, qerr("The query specified in the URI is not valid. Could not find a property named '%s' on type '%s'.", name, t.typeName())
			}
			q.sel = append(q.sel, p)
			q.selSrc = append(q.selSrc, name)
		}
	}
	if s, ok := m["$orderby"]; ok {
		for _, part := range strings.Split(s, ",") {
			f := strings.Fields(part)
			if len(f) == 0 || len(f) > 2 {
				return nil, qerr("The query specified in the URI is not valid. Syntax error in $orderby '%s'.", s)
			}
			var k orderKey
			if strings.Contains(f[0], "/") {
				n, err := parseFilterIn(f[0]+" eq null", t, v)
				if err != nil {
					return nil, err
				}
				pn, ok := n.(binNode).l.(pathNode)
				if !ok {
					return nil, qerr("The query specified in the URI is not valid. Syntax error in $orderby '%s'.", s)
				}
				k = orderKey{kind: pn.prop.kind, path: &pn}
			} else {
				p, ok := t.pos[f[0]]
				if !ok {
					return nil, qerr("The query specified in the URI is not valid. Could not find a property named '%s' on type '%s'.", f[0], t.typeName())
				}
				k = orderKey{pos: p, kind: t.props[p].kind}
			}
			if len(f) == 2 {
				switch f[1] {
				case "asc":
				case "desc":
					k.desc = true
				default:
					return nil, qerr("The query specified in the URI is not valid. Syntax error at position %d in '%s'.", len(f[0])+1, s)
				}
			}
			q.orderby = append(q.orderby, k)
		}
	}
	for _, o := range []string{"$top", "$skip"} {
		s, ok := m[o]
		if !ok {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return nil, qerr("Invalid value '%s' for %s query option found. The %s query option requires a non-negative integer value.", s, o, o)
		}
		if o == "$top" {
			if v.strictTop && n > v.maxTop {
				// ASP.NET OData's own message for its MaxTop setting.
				return nil, qerr("The limit of '%d' for Top query has been exceeded. The value from the incoming request is '%d'.", v.maxTop, n)
			}
			q.top = n
		} else {
			q.skip = n
		}
	}
	if s, ok := m["$count"]; ok {
		switch s {
		case "true":
			q.count = true
		case "false":
		default:
			return nil, qerr("'%s' is not a valid count option.", s)
		}
	}
	if s, ok := m["$expand"]; ok {
		items, err := splitTop(s, ',')
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			it = strings.TrimSpace(it)
			name, nested := it, ""
			if i := strings.IndexByte(it, '('); i >= 0 {
				if !strings.HasSuffix(it, ")") {
					return nil, qerr("The query specified in the URI is not valid. Syntax error in $expand '%s'.", s)
				}
				name, nested = it[:i], it[i+1:len(it)-1]
			}
			nav, ok := navigations()[t.name][name]
			if !ok {
				return nil, qerr("The query specified in the URI is not valid. Could not find a property named '%s' on type '%s'.", name, t.typeName())
			}
			nm := map[string]string{}
			if nested != "" {
				parts, err := splitTop(nested, ';')
				if err != nil {
					return nil, err
				}
				for _, p := range parts {
					k, v, ok := strings.Cut(p, "=")
					if !ok || !knownOptions[strings.TrimSpace(k)] {
						return nil, qerr("The query specified in the URI is not valid. Syntax error in $expand option '%s'.", p)
					}
					nm[strings.TrimSpace(k)] = v
				}
			}
			sub, err := h.buildQuery(v, v.typeByName(nav.target), nm)
			if err != nil {
				return nil, err
			}
			q.expand = append(q.expand, expandItem{name: name, nav: nav, q: sub})
		}
	}
	return q, nil
}

// splitTop splits s at sep outside parentheses.
func splitTop(s string, sep byte) ([]string, error) {
	var out []string
	depth, start := 0, 0
	inStr := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			inStr = !inStr
		case inStr:
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth < 0 {
				return nil, qerr("The query specified in the URI is not valid. Unbalanced parentheses in '%s'.", s)
			}
		case c == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if depth != 0 {
		return nil, qerr("The query specified in the URI is not valid. Unbalanced parentheses in '%s'.", s)
	}
	return append(out, s[start:]), nil
}

// contextSuffix is the part of @odata.context after the set name.
func (q *query) contextSuffix() string {
	var parts []string
	parts = append(parts, q.selSrc...)
	for _, e := range q.expand {
		parts = append(parts, e.name+"("+e.q.contextSuffix()+")")
	}
	return strings.Join(parts, ",")
}

// apply filters and orders the candidate rows, returning the indexes.
func (q *query) apply(s *set, cand []int) []int {
	var out []int
	pick := func(i int) {
		if q.filter != nil && !evalBool(q.filter, getter{d: q.d, it: rowRef{s, q.typ, i}}) {
			return
		}
		out = append(out, i)
	}
	if cand == nil {
		for i := range s.rows {
			pick(i)
		}
	} else {
		for _, i := range cand {
			pick(i)
		}
	}
	if len(q.orderby) > 0 {
		sort.SliceStable(out, func(a, b int) bool {
			ra, rb := s.rows[out[a]], s.rows[out[b]]
			for _, k := range q.orderby {
				var va, vb any
				if k.path != nil {
					va = evalPath(*k.path, getter{d: q.d, it: rowRef{s, q.typ, out[a]}})
					vb = evalPath(*k.path, getter{d: q.d, it: rowRef{s, q.typ, out[b]}})
				} else {
					va, vb = q.typ.value(ra, k.pos), q.typ.value(rb, k.pos)
				}
				var c int
				switch {
				case va == nil && vb == nil:
					c = 0
				case va == nil:
					c = -1
				case vb == nil:
					c = 1
				default:
					c, _ = compareValues(va, vb, k.kind)
				}
				if k.desc {
					c = -c
				}
				if c != 0 {
					return c < 0
				}
			}
			return false
		})
	} else if q.ver.reverseDefault {
		for a, b := 0, len(out)-1; a < b; a, b = a+1, b-1 {
			out[a], out[b] = out[b], out[a]
		}
	}
	return out
}

func (h *handler) writeEntity(buf *bytes.Buffer, s *set, i int, q *query, prefix string) {
	if len(q.expand) == 0 {
		marshalRow(buf, q.typ, s.rows[i], q.sel, prefix)
		return
	}
	marshalRow(buf, q.typ, s.rows[i], q.sel, prefix)
	buf.Truncate(buf.Len() - 1) // reopen the object
	for _, e := range q.expand {
		ts := h.data.set(e.nav.target)
		cand := e.nav.resolve(h.data, i)
		if cand == nil {
			cand = []int{} // none: apply reads nil as every row of the set
		}
		idxs := e.q.apply(ts, cand)
		if e.q.skip > 0 {
			idxs = idxs[min(e.q.skip, len(idxs)):]
		}
		if e.q.top >= 0 && e.q.top < len(idxs) {
			idxs = idxs[:e.q.top]
		}
		if buf.Bytes()[buf.Len()-1] != '{' {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(e.name)
		buf.Write(k)
		buf.WriteByte(':')
		if e.nav.single {
			if len(idxs) == 0 {
				buf.WriteString("null")
			} else {
				h.writeEntity(buf, ts, idxs[0], e.q, "")
			}
			continue
		}
		buf.WriteByte('[')
		for j, x := range idxs {
			if j > 0 {
				buf.WriteByte(',')
			}
			h.writeEntity(buf, ts, x, e.q, "")
		}
		buf.WriteByte(']')
	}
	buf.WriteByte('}')
}

func (h *handler) serveOData(w http.ResponseWriter, r *http.Request, v *apiVersion, rest string) {
	base := baseURL(r) + v.prefix + "/"
	if rest == "" {
		h.serviceDocument(w, v, base)
		return
	}
	if rest == "$metadata" {
		h.metadata(w, v)
		return
	}
	segs := strings.Split(rest, "/")
	head := segs[0]
	name, key, hasKey := head, "", false
	if i := strings.IndexByte(head, '('); i >= 0 {
		if !strings.HasSuffix(head, ")") {
			odataError(w, http.StatusNotFound, "No HTTP resource was found that matches the request URI '"+base+rest+"'.")
			return
		}
		name, key, hasKey = head[:i], head[i+1:len(head)-1], true
	}
	t := v.typeByName(name)
	if t == nil {
		odataError(w, http.StatusNotFound, "No HTTP resource was found that matches the request URI '"+base+rest+"'.")
		return
	}
	s := h.data.set(name)
	opts, err := parseOptions(r.URL.RawQuery)
	if err != nil {
		odataError(w, http.StatusBadRequest, err.Error())
		return
	}
	q, err := h.buildQuery(v, t, optionMap(opts))
	if err != nil {
		odataError(w, http.StatusBadRequest, err.Error())
		return
	}
	if hasKey {
		key = strings.TrimPrefix(key, "Id=")
		if !reGUID.MatchString(key) || len(key) != 36 {
			odataError(w, http.StatusBadRequest, fmt.Sprintf("The key value (%s) from request is not valid. The key value should be format of type 'Edm.Guid'.", key))
			return
		}
		i, ok := s.byID[strings.ToLower(key)]
		if !ok {
			odataError(w, http.StatusNotFound, fmt.Sprintf("Resource not found for the segment '%s'.", head))
			return
		}
		switch {
		case len(segs) == 1:
			var buf bytes.Buffer
			ctx := base + "$metadata#" + name
			if sfx := q.contextSuffix(); sfx != "" {
				ctx += "(" + sfx + ")"
			}
			ctx += "/$entity"
			cj, _ := json.Marshal(ctx)
			h.writeEntity(&buf, s, i, q, `"@odata.context":`+string(cj)+",")
			writeJSON(w, &buf)
		case len(segs) == 2 && strings.EqualFold(segs[1], "resource"):
			h.serveResource(w, r, s, i)
		default:
			odataError(w, http.StatusNotFound, "No HTTP resource was found that matches the request URI '"+base+rest+"'.")
		}
		return
	}
	if len(segs) == 2 && segs[1] == "$count" {
		n := len(q.apply(s, nil))
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("OData-Version", "4.0")
		fmt.Fprintf(w, "%d", n)
		return
	}
	if len(segs) != 1 {
		odataError(w, http.StatusNotFound, "No HTTP resource was found that matches the request URI '"+base+rest+"'.")
		return
	}
	idxs := q.apply(s, nil)
	total := len(idxs)
	page := idxs[min(q.skip, total):]
	limit := v.maxTop
	if h.cfg.PageSize > 0 && h.cfg.PageSize < limit {
		limit = h.cfg.PageSize
	}
	if q.top >= 0 && q.top < limit {
		limit = q.top
	}
	more := len(page) > limit
	if more {
		page = page[:limit]
	}
	var buf bytes.Buffer
	ctx := base + "$metadata#" + name
	if sfx := q.contextSuffix(); sfx != "" {
		ctx += "(" + sfx + ")"
	}
	cj, _ := json.Marshal(ctx)
	buf.WriteString(`{"@odata.context":`)
	buf.Write(cj)
	if q.count {
		fmt.Fprintf(&buf, `,"@odata.count":%d`, total)
	}
	buf.WriteString(`,"value":[`)
	for j, i := range page {
		if j > 0 {
			buf.WriteByte(',')
		}
		h.writeEntity(&buf, s, i, q, "")
	}
	buf.WriteByte(']')
	if more && (q.top < 0 || q.top > len(page)) {
		link := nextLink(base+name, opts, q, len(page))
		lj, _ := json.Marshal(link)
		buf.WriteString(`,"@odata.nextLink":`)
		buf.Write(lj)
	}
	buf.WriteByte('}')
	writeJSON(w, &buf)
}

// nextLink repeats the request's options with $skip advanced (and $top
// reduced), encoded the way the real server does: "$" kept, the rest
// percent-encoded with %20 for spaces.
func nextLink(base string, opts []option, q *query, served int) string {
	var parts []string
	for _, o := range opts {
		if o.key == "$skip" || o.key == "$top" {
			continue
		}
		parts = append(parts, odataEscape(o.key)+"="+odataEscape(o.val))
	}
	if q.top >= 0 {
		parts = append(parts, "$top="+strconv.Itoa(q.top-served))
	}
	parts = append(parts, "$skip="+strconv.Itoa(q.skip+served))
	return base + "?" + strings.Join(parts, "&")
}

func odataEscape(s string) string {
	if strings.HasPrefix(s, "$") {
		return "$" + strings.ReplaceAll(url.QueryEscape(s[1:]), "+", "%20")
	}
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}

func (h *handler) serviceDocument(w http.ResponseWriter, v *apiVersion, base string) {
	type es struct {
		Name string `json:"name"`
		Kind string `json:"kind"`
		URL  string `json:"url"`
	}
	var sets []es
	for _, t := range v.types {
		sets = append(sets, es{t.name, "EntitySet", t.name})
	}
	b, _ := json.Marshal(map[string]any{"@odata.context": base + "$metadata", "value": sets})
	writeJSON(w, bytes.NewBuffer(b))
}

func (h *handler) metadata(w http.ResponseWriter, v *apiVersion) {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>` + "\n")
	b.WriteString(`<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices><Schema Namespace="TK.DA.GGM.OData" xmlns="http://docs.oasis-open.org/odata/ns/edm">`)
	for _, t := range v.types {
		fmt.Fprintf(&b, `<EntityType Name="%s"><Key><PropertyRef Name="Id"/></Key>`, t.name)
		for _, p := range t.props {
			nullable := ""
			if p.name == "Id" || p.name == "Verwijderd" {
				nullable = ` Nullable="false"`
			}
			fmt.Fprintf(&b, `<Property Name="%s" Type="%s"%s/>`, p.name, p.kind.edm(), nullable)
		}
		names := make([]string, 0)
		for n := range navigations()[t.name] {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			nv := navigations()[t.name][n]
			typ := "TK.DA.GGM.OData." + nv.target
			if !nv.single {
				typ = "Collection(" + typ + ")"
			}
			fmt.Fprintf(&b, `<NavigationProperty Name="%s" Type="%s"/>`, n, typ)
		}
		b.WriteString(`</EntityType>`)
	}
	b.WriteString(`<EntityContainer Name="Container">`)
	for _, t := range v.types {
		fmt.Fprintf(&b, `<EntitySet Name="%s" EntityType="TK.DA.GGM.OData.%s"/>`, t.name, t.name)
	}
	b.WriteString(`</EntityContainer></Schema></edmx:DataServices></edmx:Edmx>`)
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("OData-Version", "4.0")
	w.Write([]byte(b.String()))
}

// ---- navigation properties ----

type navDef struct {
	target  string
	single  bool
	resolve func(d *Data, i int) []int
}

var (
	navOnce sync.Once
	navMap  map[string]map[string]navDef
)

func navigations() map[string]map[string]navDef {
	navOnce.Do(func() {
		same := func(d *Data, i int) []int { return []int{i} }
		fk := func(set, target, prop string) func(d *Data, i int) []int {
			return func(d *Data, i int) []int {
				v, _ := d.set(set).get(i, prop).(string)
				if j, ok := d.set(target).byID[v]; ok {
					return []int{j}
				}
				return nil
			}
		}
		rev := func(set, target, prop string) func(d *Data, i int) []int {
			return func(d *Data, i int) []int {
				return d.reverse(target, prop)[d.set(set).rows[i][0].(string)]
			}
		}
		dossierOfDoc := func(d *Data, i int) []int {
			if k := d.docs[i].Dossier; k >= 0 {
				return []int{k}
			}
			return nil
		}
		navMap = map[string]map[string]navDef{
			"Besluit": {
				"Zaak":       {"Zaak", false, func(d *Data, i int) []int { return []int{d.besluitDoc[i]} }},
				"Stemming":   {"Stemming", false, rev("Besluit", "Stemming", "Besluit_Id")},
				"Agendapunt": {"Agendapunt", true, fk("Besluit", "Agendapunt", "Agendapunt_Id")},
			},
			"Stemming": {
				"Besluit": {"Besluit", true, fk("Stemming", "Besluit", "Besluit_Id")},
				"Fractie": {"Fractie", true, fk("Stemming", "Fractie", "Fractie_Id")},
				"Persoon": {"Persoon", true, fk("Stemming", "Persoon", "Persoon_Id")},
			},
			"Agendapunt": {
				"Activiteit": {"Activiteit", true, fk("Agendapunt", "Activiteit", "Activiteit_Id")},
				"Besluit":    {"Besluit", false, rev("Agendapunt", "Besluit", "Agendapunt_Id")},
			},
			"Activiteit": {"Agendapunt": {"Agendapunt", false, rev("Activiteit", "Agendapunt", "Activiteit_Id")}},
			"ZaakActor": {
				"Zaak":      {"Zaak", true, fk("ZaakActor", "Zaak", "Zaak_Id")},
				"Persoon":   {"Persoon", true, fk("ZaakActor", "Persoon", "Persoon_Id")},
				"Fractie":   {"Fractie", true, fk("ZaakActor", "Fractie", "Fractie_Id")},
				"Commissie": {"Commissie", true, fk("ZaakActor", "Commissie", "Commissie_Id")},
			},
			"Zaak": {
				"ZaakActor":        {"ZaakActor", false, rev("Zaak", "ZaakActor", "Zaak_Id")},
				"Document":         {"Document", false, same},
				"Kamerstukdossier": {"Kamerstukdossier", false, dossierOfDoc},
				"Besluit": {"Besluit", false, func(d *Data, i int) []int {
					return d.docBesluiten()[i]
				}},
			},
			"Document": {
				"Zaak":             {"Zaak", false, same},
				"Kamerstukdossier": {"Kamerstukdossier", false, dossierOfDoc},
			},
			"Kamerstukdossier": {
				"Document": {"Document", false, func(d *Data, i int) []int { return d.dossierDocs[i] }},
				"Zaak":     {"Zaak", false, func(d *Data, i int) []int { return d.dossierDocs[i] }},
			},
			"Fractie":      {"FractieZetel": {"FractieZetel", false, rev("Fractie", "FractieZetel", "Fractie_Id")}},
			"FractieZetel": {"Fractie": {"Fractie", true, fk("FractieZetel", "Fractie", "Fractie_Id")}, "FractieZetelPersoon": {"FractieZetelPersoon", false, rev("FractieZetel", "FractieZetelPersoon", "FractieZetel_Id")}},
			"FractieZetelPersoon": {
				"FractieZetel": {"FractieZetel", true, fk("FractieZetelPersoon", "FractieZetel", "FractieZetel_Id")},
				"Persoon":      {"Persoon", true, fk("FractieZetelPersoon", "Persoon", "Persoon_Id")},
			},
			"Persoon":   {"FractieZetelPersoon": {"FractieZetelPersoon", false, rev("Persoon", "FractieZetelPersoon", "Persoon_Id")}},
			"Commissie": {},
		}
	})
	return navMap
}

// reverse maps a foreign-key value to the rows of set that carry it.
func (d *Data) reverse(set, prop string) map[string][]int {
	d.revMu.Lock()
	defer d.revMu.Unlock()
	key := set + "." + prop
	if m, ok := d.rev[key]; ok {
		return m
	}
	if d.rev == nil {
		d.rev = map[string]map[string][]int{}
	}
	s := d.set(set)
	m := map[string][]int{}
	for i := range s.rows {
		if v, ok := s.get(i, prop).(string); ok {
			m[v] = append(m[v], i)
		}
	}
	d.rev[key] = m
	return m
}

func (d *Data) docBesluiten() map[int][]int {
	d.revMu.Lock()
	defer d.revMu.Unlock()
	if d.zaakBesluit == nil {
		d.zaakBesluit = map[int][]int{}
		for b, doc := range d.besluitDoc {
			d.zaakBesluit[doc] = append(d.zaakBesluit[doc], b)
		}
	}
	return d.zaakBesluit
}
