package ori

import (
	"time"

	"github.com/besluitbron/besluitbron/adapters"
)

// Names names the organisations of a _search answer's hits:
// has_organization_name holds an Organization object's id, looked up
// through get once and remembered in memo for adapters.MemoTTL (an id
// without an Organization object as "", so a page of such hits does not
// ask again for every search). A failed lookup costs only the names: the
// hits then carry the source key of their index; err says why.
func Names(memo *adapters.Memo, now time.Time, body []byte, get func(adapters.Request) ([]byte, error)) (map[string]string, error) {
	names := map[string]string{}
	var missing []string
	for _, id := range OrganisationIDs(body) {
		if v, ok := memo.Get("ori-org:"+id, now); ok {
			names[id], _ = v.(string)
			continue
		}
		missing = append(missing, id)
	}
	if len(missing) == 0 {
		return names, nil
	}
	r, err := OrganisationsRequest(missing)
	if err != nil {
		return names, err
	}
	b, err := get(r)
	if err != nil {
		return names, err
	}
	found, err := ParseOrganisations(b)
	if err != nil {
		return names, err
	}
	for _, id := range missing {
		memo.Put("ori-org:"+id, found[id], now)
		names[id] = found[id]
	}
	return names, nil
}

// Fetch returns the document id with its organisation's name, as every
// surface (ori_fetch, the reader) shows it. A document the index does
// not hold is adapters.ErrNoDocument.
func Fetch(memo *adapters.Memo, now time.Time, id string, get func(adapters.Request) ([]byte, error)) (adapters.Document, error) {
	r, err := DocumentRequest(id)
	if err != nil {
		return adapters.Document{}, &adapters.InvalidError{Err: err}
	}
	body, err := get(r)
	if err != nil {
		return adapters.Document{}, err
	}
	names, _ := Names(memo, now, body, get)
	return ParseDocument(body, names)
}
