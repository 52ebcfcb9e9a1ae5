package rechtspraak

import (
	"fmt"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
)

// listMemo is the memo key of value list name (List, and the completions
// that read it).
func listMemo(name string) string { return "rechtspraak:" + strings.ToLower(name) }

// List returns one of Lists, parsed, from memo when it was read within
// adapters.MemoTTL, else through get (the platform route) and kept.
func List(memo *adapters.Memo, now time.Time, name string, get func(adapters.Request) ([]byte, error)) ([]adapters.Item, error) {
	key := listMemo(name)
	if v, ok := memo.Get(key, now); ok {
		return v.([]adapters.Item), nil
	}
	r, err := ListRequest(name)
	if err != nil {
		return nil, err
	}
	body, err := get(r)
	if err != nil {
		return nil, err
	}
	items, err := ParseList(body)
	if err != nil {
		return nil, err
	}
	memo.Put(key, items, now)
	return items, nil
}

// UnresolvedError is a value that names no single entry of a list: Near
// holds the labels that contain it (none, or several).
type UnresolvedError struct {
	List  string
	Value string
	Near  []string
}

func (e *UnresolvedError) Error() string {
	what := map[string]string{"Instanties": "court", "Rechtsgebieden": "legal area"}[e.List]
	msg := fmt.Sprintf("%q names no single %s of Rechtspraak's %s list (%d match)", adapters.Cut(e.Value, 60), what, e.List, len(e.Near))
	if len(e.Near) > 0 {
		msg += ": " + strings.Join(e.Near[:min(len(e.Near), 8)], "; ")
	}
	return msg
}

// Resolve turns a court (list Instanties) or a legal area (Rechtsgebieden)
// given as identifier URI, abbreviation, name, or a part of a name that
// fits one entry, into its identifier URI. A value that fits none or
// several is an *UnresolvedError.
func Resolve(memo *adapters.Memo, now time.Time, list, v string, get func(adapters.Request) ([]byte, error)) (string, error) {
	if strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") {
		return v, nil
	}
	it, err := ResolveItem(memo, now, list, v, get)
	return it.Key, err
}

// ResolveItem is Resolve's entry itself: its identifier URI (Key) and its
// name (Label), for a value given as identifier, abbreviation, name or a
// part of a name that fits one entry.
func ResolveItem(memo *adapters.Memo, now time.Time, list, v string, get func(adapters.Request) ([]byte, error)) (adapters.Item, error) {
	items, err := List(memo, now, list, get)
	if err != nil {
		return adapters.Item{}, err
	}
	lv := strings.ToLower(v)
	var near []adapters.Item
	for _, it := range items {
		if it.Key == v || strings.EqualFold(it.Extra["afkorting"], v) || strings.EqualFold(it.Label, v) {
			return it, nil
		}
		if strings.Contains(strings.ToLower(it.Label), lv) {
			near = append(near, it)
		}
	}
	if len(near) == 1 {
		return near[0], nil
	}
	e := &UnresolvedError{List: list, Value: v}
	for _, it := range near {
		e.Near = append(e.Near, it.Label)
	}
	return adapters.Item{}, e
}
