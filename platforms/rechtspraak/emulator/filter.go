package emulator

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

var (
	reDate     = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	reModified = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?$`)
)

// filter is a search's parameters, resolved to the index's terms.
type filter struct {
	types    []byte // 'U', 'C'; empty: both
	creators []bool // per court: named by a creator; nil: any court
	subjects []bool // per leaf: named itself or by its parent; nil: any area
	hasDate  bool
	dateFrom int32 // days since 1970, inclusive
	dateTo   int32 // inclusive
	modFrom  int64 // unix seconds, inclusive; math.MinInt64 when open
	modTo    int64 // inclusive; math.MaxInt64 when open
	onlyDoc  bool
	replaces string // an LJN, upper case; "" for none
	// replacesSeq is the LJN's number in the index; -1 for an LJN that is
	// not of the index's form (it matches nothing).
	replacesSeq int32
	max, from   int
	descending  bool
}

// errImpossible marks a well-formed date that does not exist (2023-02-30):
// the real service fails on it with a non-XML error page.
type errImpossible struct{ value string }

func (e errImpossible) Error() string { return "impossible date " + e.value }

func parseFilter(q map[string][]string) (*filter, error) {
	f := &filter{max: MaxResults, modFrom: math.MinInt64, modTo: math.MaxInt64}
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
				f.addCreators(vals)
			} else {
				f.addSubjects(vals)
			}
		case "date":
			if len(vals) > 2 {
				return nil, fmt.Errorf("date mag hoogstens twee keer voorkomen")
			}
			var ds []int32
			for _, v := range vals {
				if !reDate.MatchString(v) {
					return nil, fmt.Errorf("ongeldige datum: %q (verwacht JJJJ-MM-DD)", v)
				}
				d, err := time.Parse(time.DateOnly, v)
				if err != nil {
					return nil, errImpossible{v}
				}
				ds = append(ds, epochDay(d))
			}
			f.hasDate = true
			f.dateFrom, f.dateTo = ds[0], ds[len(ds)-1]
		case "modified":
			if len(vals) > 2 {
				return nil, fmt.Errorf("modified mag hoogstens twee keer voorkomen")
			}
			for i, v := range vals {
				if !reModified.MatchString(v) {
					return nil, fmt.Errorf("ongeldige datum/tijd voor modified: %q (verwacht JJJJ-MM-DDTuu:mm:ss)", v)
				}
				t, err := parseModified(v)
				if err != nil {
					return nil, errImpossible{v}
				}
				if i == 0 {
					f.modFrom = t.Unix()
					continue
				}
				if len(v) == len(time.DateOnly) {
					t = t.Add(24*time.Hour - time.Second) // a date as upper bound covers that day
				}
				f.modTo = t.Unix()
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
			f.replacesSeq = -1
			if seq, ok := ljnSeq(f.replaces); ok {
				f.replacesSeq = seq
			}
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

// addCreators marks the courts the creator URIs name; an unknown URI
// names none (and so matches nothing), as on the platform.
func (f *filter) addCreators(uris []string) {
	if f.creators == nil {
		f.creators = make([]bool, len(courts))
	}
	for i, c := range courts {
		if slices.Contains(uris, c.ID) {
			f.creators[i] = true
		}
	}
}

// addSubjects marks the areas the subject URIs name: a second-level area
// itself, a top-level area every area below it.
func (f *filter) addSubjects(uris []string) {
	if f.subjects == nil {
		f.subjects = make([]bool, len(leaves))
	}
	for i, l := range leaves {
		if slices.Contains(uris, l.ID) || slices.Contains(uris, l.Parent) {
			f.subjects[i] = true
		}
	}
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

// match tells whether a visible ruling passes every parameter but
// modified, which the view's span applies.
func (f *filter) match(r *ruling, now int64) bool {
	if len(f.types) > 0 && !slices.Contains(f.types, r.kind) {
		return false
	}
	if f.creators != nil && !f.creators[r.court] {
		return false
	}
	if f.subjects != nil && !f.subjects[r.subject] && (r.subject2 < 0 || !f.subjects[r.subject2]) {
		return false
	}
	if f.hasDate && (r.date < f.dateFrom || r.date > f.dateTo) {
		return false
	}
	if f.onlyDoc {
		if del, doc := r.state(now); !doc || del != 0 {
			return false
		}
	}
	if f.replaces != "" && (!r.is(ljnForm) || r.num != f.replacesSeq) {
		return false
	}
	return true
}
