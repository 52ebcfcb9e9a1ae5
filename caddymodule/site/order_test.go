package site_test

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// orderOnEverySurface: the page, its live stream and GET /search take
// sort. Words rank by relevance unless sort=date asks otherwise; the page
// says which order it uses and links the other one (the same search with
// sort switched); the JSON answer names the order. A sort that is neither
// is refused on each surface, the page in its own language.
func orderOnEverySurface(t *testing.T, h house) {
	orderLine := regexp.MustCompile(`<p class="order" id="order" data-order="(\w+)">[^<]*<a href="([^"]+)" id="order-switch">`)
	form := url.Values{"q": {"stikstof"}, "platform": {"obv", "tk"}}
	page := get(t, h.base+"/search?"+form.Encode(), nil)
	m := orderLine.FindStringSubmatch(page)
	if m == nil || m[1] != "relevance" {
		t.Fatalf("the page with words does not say it ranks by relevance:\n%s", page)
	}
	switched, err := url.Parse(html.UnescapeString(m[2]))
	if err != nil || switched.Path != "/search" || switched.Query().Get("sort") != "date" || switched.Query().Get("q") != "stikstof" ||
		len(switched.Query()["platform"]) != 2 {
		t.Fatalf("the switch link %q is not the same search by date", m[2])
	}
	page = get(t, h.base+switched.String(), nil)
	if m := orderLine.FindStringSubmatch(page); m == nil || m[1] != "date" || !strings.Contains(page, `<option value="date" selected>`) {
		t.Errorf("the switched page does not say it sorts by date, or the form lost the choice:\n%s", page)
	}

	// The live stream orders its lines the same way and says so.
	_, body := fetch(t, h.base+"/search/events?"+form.Encode()+"&sort=date", http.Header{"Accept": {"application/x-ndjson"}})
	lines := strings.Split(strings.TrimSpace(body), "\n")
	var last struct{ HTML string }
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || !strings.Contains(last.HTML, `data-order="date"`) {
		t.Errorf("the live stream's last line does not say date: %v %.300s", err, lines[len(lines)-1])
	}

	for _, c := range []struct{ query, want string }{
		{"q=stikstof&platforms=obv,tk", "relevance"},
		{"q=stikstof&platforms=obv,tk&sort=date", "date"},
		{"organisation=utrecht&platforms=obv", "date"},
	} {
		var res struct{ Sort string }
		if err := json.Unmarshal([]byte(get(t, h.base+"/search?"+c.query, http.Header{"Accept": {"application/json"}})), &res); err != nil || res.Sort != c.want {
			t.Errorf("JSON ?%s: sort %q (%v), want %s", c.query, res.Sort, err, c.want)
		}
	}

	// A bad sort: the page says it in Dutch, the JSON in English with its code.
	status, page := fetch(t, h.base+"/search?q=stikstof&sort=newest", nil)
	if status != http.StatusBadRequest || !strings.Contains(page, "de volgorde „newest” bestaat niet: kies relevantie of datum") {
		t.Errorf("page with sort=newest: HTTP %d\n%s", status, page)
	}
	status, body = fetch(t, h.base+"/search?q=stikstof&sort=newest", http.Header{"Accept": {"application/json"}})
	var refused struct{ Error, Code string }
	if err := json.Unmarshal([]byte(body), &refused); err != nil || status != http.StatusBadRequest || refused.Code != "unknown_sort" ||
		!strings.Contains(refused.Error, `sort "newest" is unknown: use relevance or date`) {
		t.Errorf("JSON with sort=newest: HTTP %d %s", status, body)
	}
	status, body = fetch(t, h.base+"/search/events?q=stikstof&sort=newest", http.Header{"Accept": {"application/x-ndjson"}})
	var live struct{ Error, Code string }
	if err := json.Unmarshal([]byte(body), &live); err != nil || status != http.StatusBadRequest || live.Code != "unknown_sort" ||
		!strings.Contains(live.Error, "de volgorde „newest” bestaat niet") {
		t.Errorf("live stream with sort=newest: HTTP %d %s", status, body)
	}
}
