package emulator

import (
	"encoding/json"
	"net/url"
	"testing"
)

// A MediaObject's has_organization_name holds the @id of its index's
// Organization object, which names the organisation (ORI's owl.py and
// allmanak_organization.py); a client resolves the id with an ids query.
func TestOrganisationResolvesFromHasOrganizationName(t *testing.T) {
	code, body, _ := call(t, "GET", "/osi_*/_search?"+url.Values{"q": {"@type:MediaObject"}, "size": {"1"}}.Encode(), "")
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	var r struct {
		Hits struct {
			Hits []struct {
				Index  string         `json:"_index"`
				Source map[string]any `json:"_source"`
			} `json:"hits"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(body, &r); err != nil || len(r.Hits.Hits) != 1 {
		t.Fatalf("%v %s", err, body)
	}
	orgID, _ := r.Hits.Hits[0].Source["has_organization_name"].(string)
	if orgID == "" {
		t.Fatalf("no has_organization_name: %s", body)
	}
	code, body, _ = call(t, "POST", "/ori_*,osi_*,owi_*/_search", `{"query":{"ids":{"values":["`+orgID+`"]}},"_source":["name","@type","classification"]}`)
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	r.Hits.Hits = nil
	if err := json.Unmarshal(body, &r); err != nil || len(r.Hits.Hits) != 1 {
		t.Fatalf("ids query for %s: %v %s", orgID, err, body)
	}
	src := r.Hits.Hits[0].Source
	if src["@type"] != "Organization" || src["classification"] != "Province" || src["name"] == orgID || src["name"] == "" || src["collection"] != nil {
		t.Fatalf("organisation source: %v", src)
	}
	// The Organization object carries no MediaObject fields, so a date
	// filter or a document search never returns it.
	code, body, _ = call(t, "POST", "/osi_*/_search", `{"query":{"bool":{"must":[{"ids":{"values":["`+orgID+`"]}}],"filter":[{"range":{"last_discussed_at":{"gte":"2000-01-01"}}}]}}}`)
	if code != 200 || !json.Valid(body) {
		t.Fatalf("%d %s", code, body)
	}
	r.Hits.Hits = nil
	_ = json.Unmarshal(body, &r)
	if len(r.Hits.Hits) != 0 {
		t.Fatalf("organisation matched a date range: %s", body)
	}
	code, body, _ = call(t, "GET", "/"+r0Index(t, orgID)+"/_doc/"+orgID, "")
	if code != 200 {
		t.Fatalf("_doc of the organisation: %d %s", code, body)
	}
}

func r0Index(t *testing.T, orgID string) string {
	t.Helper()
	d := handler0().(*handler).c.lookupID(orgID)
	if d == nil || !d.org {
		t.Fatalf("no organisation %s", orgID)
	}
	return d.idx.name
}
