package tk

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
)

// Getter runs one request against the platform and returns the answer's
// body. A non-nil error stops the walk and is returned as is.
type Getter func(adapters.Request) ([]byte, error)

// NextRequest turns an @odata.nextLink (an absolute URL on the platform's
// host) into a request on the same entity set. A link that leaves the
// set's path is refused rather than followed.
func NextRequest(e *Entity, link string) (adapters.Request, error) {
	u, err := url.Parse(link)
	if err != nil {
		return adapters.Request{}, fmt.Errorf("@odata.nextLink %q is not a URL", link)
	}
	want := e.root + "/" + e.Set
	if u.Path != want {
		return adapters.Request{}, fmt.Errorf("@odata.nextLink %q leaves %s: not followed", link, want)
	}
	p := u.EscapedPath()
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	return adapters.Request{Method: "GET", Path: p}, nil
}

// Search runs a document search: one request of at most Limit rows and,
// when the server pages below that (a shorter page with @odata.nextLink),
// its next links until Limit rows are in.
func Search(e *Entity, p SearchParams, get Getter) (adapters.Page, error) {
	req, err := SearchRequest(e, p)
	if err != nil {
		return adapters.Page{}, err
	}
	var rows []row
	var count *int
	next := ""
	for pages := 0; ; pages++ {
		body, err := get(req)
		if err != nil {
			return adapters.Page{}, err
		}
		env, err := parseEnvelope(body)
		if err != nil {
			return adapters.Page{}, err
		}
		got, err := parseRows(env.Value)
		if err != nil {
			return adapters.Page{}, err
		}
		if pages == 0 {
			count = env.Count
		}
		rows = append(rows, got...)
		next = env.NextLink
		if len(rows) >= p.Limit || next == "" || len(got) == 0 || pages+1 == MaxPages {
			break
		}
		if req, err = NextRequest(e, next); err != nil {
			return adapters.Page{}, err
		}
	}
	more := next != ""
	if len(rows) > p.Limit {
		rows, more = rows[:p.Limit], true
	}
	page := adapters.Page{Hits: make([]adapters.Hit, 0, len(rows))}
	for _, r := range rows {
		page.Hits = append(page.Hits, docFromRow(e, r).hit())
	}
	if count != nil {
		page.Total = *count
		page.HasMore = p.Offset+len(rows) < page.Total
	} else {
		page.Total = p.Offset + len(rows)
		page.TotalApprox = true
		page.HasMore = more || len(rows) == p.Limit
	}
	return page, nil
}

// ListRequest asks for one page of an entity set's live rows, ordered by
// Id (unique, so pages neither skip nor repeat rows).
func ListRequest(e *Entity, skip int) adapters.Request {
	q := odataQuery("$filter", e.Name(fVerwijderd)+" eq false", "$select", e.selectList(), "$orderby", e.Name(fID),
		"$top", strconv.Itoa(PageSize), "$skip", strconv.Itoa(skip))
	return adapters.Request{Method: "GET", Path: e.root + "/" + e.Set + "?" + q}
}

// List is a whole entity set as read by ListAll.
type List struct {
	rows []row
	e    *Entity
	// Truncated tells that MaxPages pages did not reach the end.
	Truncated bool
}

// ListAll reads every live row of e's set: pages of PageSize rows by $skip,
// and within a page the server's @odata.nextLink when it pages below that.
func ListAll(e *Entity, get Getter) (List, error) {
	l := List{e: e}
	req := ListRequest(e, 0)
	window := 0 // rows of the current $top window
	for pages := 0; ; pages++ {
		if pages == MaxPages {
			l.Truncated = true
			return l, nil
		}
		body, err := get(req)
		if err != nil {
			return l, err
		}
		got, next, err := parseListBody(body)
		if err != nil {
			return l, err
		}
		l.rows = append(l.rows, got...)
		window += len(got)
		switch {
		case next != "" && len(got) > 0:
			if req, err = NextRequest(e, next); err != nil {
				return l, err
			}
		case window < PageSize || len(got) == 0:
			return l, nil
		default:
			req, window = ListRequest(e, len(l.rows)), 0
		}
	}
}

// parseListBody reads an envelope, or a bare array of entities (as some
// published samples show them).
func parseListBody(body []byte) ([]row, string, error) {
	env, err := parseEnvelope(body)
	if err == nil {
		rows, err := parseRows(env.Value)
		return rows, env.NextLink, err
	}
	var arr []row
	if aerr := json.Unmarshal(body, &arr); aerr == nil && arr != nil {
		return arr, "", nil
	}
	return nil, "", err
}

// ParseList parses one list answer (envelope or bare array) without
// paging, for samples and tests.
func ParseList(e *Entity, body []byte) (List, error) {
	rows, _, err := parseListBody(body)
	return List{rows: rows, e: e}, err
}

// Len is the number of rows read.
func (l List) Len() int { return len(l.rows) }

// Items turns the rows into list items sorted by name. Unless all, rows
// whose end date (DatumInactief) is set and not after now are dropped.
func (l List) Items(all bool, now time.Time) []adapters.Item {
	out := []adapters.Item{}
	for _, r := range l.rows {
		end := r.str(l.e, fInactief)
		if !all && ended(end, now) {
			continue
		}
		it := adapters.Item{Key: r.str(l.e, fID), Label: r.str(l.e, fNaam), Extra: map[string]string{}}
		for _, k := range []string{fAfkorting, fSoort, fZetels, fActief, fInactief, fNaamEN} {
			v := r.str(l.e, k)
			if v == "" {
				continue
			}
			if strings.HasPrefix(k, "datum") {
				v = day(v)
			}
			it.Extra[strings.ReplaceAll(k, "_", "")] = v
		}
		if len(it.Extra) == 0 {
			it.Extra = nil
		}
		out = append(out, it)
	}
	sort.SliceStable(out, func(a, b int) bool { return strings.ToLower(out[a].Label) < strings.ToLower(out[b].Label) })
	return out
}

// ended tells whether an end date is set and not after now. A date
// without a time means midnight in Amsterdam; an unreadable one counts as
// set (the row says it ended, just not legibly).
func ended(v string, now time.Time) bool {
	if v == "" {
		return false
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		if t, err = time.ParseInLocation("2006-01-02", day(v), amsterdam); err != nil {
			return true
		}
	}
	return !t.After(now)
}
