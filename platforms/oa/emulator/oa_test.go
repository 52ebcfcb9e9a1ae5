package emulator

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

func newTest(limit bool) (*Emulator, *fakeclock.Clock) {
	c := fakeclock.New(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	return NewEmulator(Config{Seed: 1, Clock: c, NoRateLimit: !limit}), c
}

func get(e http.Handler, target string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
	return rec
}

func decode(t *testing.T, rec *httptest.ResponseRecorder, v any) {
	t.Helper()
	if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
		t.Fatalf("%v: %s", err, rec.Body.String())
	}
}

type searchResp struct {
	Total   int   `json:"total"`
	Page    int   `json:"page"`
	PerPage int   `json:"per_page"`
	Pages   int   `json:"pages"`
	Results []Hit `json:"results"`
}

func TestBadInput(t *testing.T) {
	e, _ := newTest(false)
	for _, c := range []struct {
		path string
		code int
		err  string
	}{
		{"/api/v1/search?government_type=gemeentes", 400, "invalid_government_type"},
		{"/api/v1/search?body=atlantis", 400, "unknown_body"},
		{"/api/v1/search?date_from=1-1-2020", 400, "invalid_date"},
		{"/api/v1/search?date_to=morgen", 400, "invalid_date"},
		{"/api/v1/search?date_from=2021-01-01&date_to=2020-01-01", 400, "invalid_date"},
		{"/api/v1/search?min_pages=0", 400, "invalid_min_pages"},
		{"/api/v1/search?max_pages=x", 400, "invalid_max_pages"},
		{"/api/v1/search?min_pages=10&max_pages=5", 400, "invalid_pages"},
		{"/api/v1/search?page=0", 400, "invalid_page"},
		{"/api/v1/search?per_page=101", 400, "invalid_per_page"},
		{"/api/v1/search?per_page=-1", 400, "invalid_per_page"},
		{"/api/v1/search?sort=newest", 400, "invalid_sort"},
		{"/api/v1/search?q=" + strings.Repeat("a", 501), 400, "query_too_long"},
		{"/api/v1/bodies?government_type=rijk", 400, "invalid_government_type"},
		{"/api/v1/documents/soest-999999", 404, "document_not_found"},
		{"/api/v1/documents/atlantis-000001", 404, "document_not_found"},
		{"/api/v1/documents/soest-1", 404, "document_not_found"},
		{"/api/v1/documents/nonsense", 404, "document_not_found"},
		{"/api/v1/documents/soest-000001/text?page=0", 400, "invalid_page"},
		{"/api/v1/documents/soest-000001/text?page=x", 400, "invalid_page"},
		{"/api/v1/documents/soest-000001/text?page=999", 404, "page_not_found"},
		{"/api/v2/search", 404, "not_found"},
	} {
		rec := get(e, c.path)
		var body struct {
			Error struct{ Code, Message string }
		}
		decode(t, rec, &body)
		if rec.Code != c.code || body.Error.Code != c.err || body.Error.Message == "" {
			t.Errorf("%s: %d %s", c.path, rec.Code, rec.Body.String())
		}
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest("POST", "/api/v1/search", nil))
	if rec.Code != 405 || rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d", rec.Code)
	}
}

func TestSearchFilters(t *testing.T) {
	e, _ := newTest(false)
	var resp searchResp
	decode(t, get(e, "/api/v1/search?q=woningbouw&government_type=gemeente&date_from=2020-01-01&date_to=2023-12-31&min_pages=5&max_pages=30&per_page=50&sort=date_desc"), &resp)
	if resp.Total == 0 || len(resp.Results) == 0 || resp.PerPage != 50 || resp.Pages != (resp.Total+49)/50 {
		t.Fatalf("total %d, %d results, per_page %d, pages %d", resp.Total, len(resp.Results), resp.PerPage, resp.Pages)
	}
	for i, h := range resp.Results {
		if h.GovernmentType != "gemeente" || h.DocumentDate < "2020-01-01" || h.DocumentDate > "2023-12-31" || h.PageCount < 5 || h.PageCount > 30 ||
			!strings.Contains(strings.ToLower(h.Title+" "+h.Snippet), "woningbouw") {
			t.Errorf("hit %+v", h)
		}
		if i > 0 && h.DocumentDate > resp.Results[i-1].DocumentDate {
			t.Errorf("not newest first at %d", i)
		}
	}
	var one searchResp
	decode(t, get(e, "/api/v1/search?body=soest&body=weesp&per_page=100"), &one)
	for _, h := range one.Results {
		if h.Body != "soest" && h.Body != "weesp" {
			t.Errorf("body filter: %+v", h)
		}
	}
	var p2 searchResp
	decode(t, get(e, "/api/v1/search?body=soest&per_page=5&page=2"), &p2)
	var p1 searchResp
	decode(t, get(e, "/api/v1/search?body=soest&per_page=10"), &p1)
	if len(p2.Results) != 5 || p2.Results[0].ID != p1.Results[5].ID {
		t.Errorf("paging: %+v", p2.Results)
	}
	var none searchResp
	decode(t, get(e, "/api/v1/search?q=zzzqqq"), &none)
	if none.Total != 0 || none.Results == nil {
		t.Errorf("no hits: %+v", none)
	}
}

func TestDocumentAndText(t *testing.T) {
	e, _ := newTest(false)
	var resp searchResp
	decode(t, get(e, "/api/v1/search?body=soest&min_pages=3&per_page=1"), &resp)
	h := resp.Results[0]
	var d Document
	rec := get(e, h.URL)
	decode(t, rec, &d)
	if d.ID != h.ID || d.PageCount != h.PageCount || d.Body.Key != "soest" || !strings.HasSuffix(d.TextURL, "/text?page=1") {
		t.Fatalf("%+v", d)
	}
	total := 0
	next := d.TextURL
	for pages := 0; next != ""; pages++ {
		var page struct {
			ID          string
			Page, Pages int
			Text        string
			Next        *string
		}
		decode(t, get(e, next), &page)
		if page.Page != pages+1 || page.Pages != d.PageCount || len(page.Text) < 500 {
			t.Fatalf("page %+v", page)
		}
		total += len(page.Text)
		next = ""
		if page.Next != nil {
			next = *page.Next
		}
	}
	if total < 3*1000 {
		t.Errorf("full text %d bytes", total)
	}
	if get(e, d.TextURL).Body.String() != get(e, d.TextURL).Body.String() {
		t.Error("text not deterministic")
	}
}

func TestBodies(t *testing.T) {
	e, _ := newTest(false)
	var b struct {
		Total  int
		Bodies []Body
	}
	decode(t, get(e, "/api/v1/bodies"), &b)
	if b.Total != 330 || len(b.Bodies) != 330 {
		t.Errorf("%d bodies", b.Total)
	}
	decode(t, get(e, "/api/v1/bodies?government_type=waterschap"), &b)
	if b.Total != 13 {
		t.Errorf("%d water boards", b.Total)
	}
	for _, x := range b.Bodies {
		if x.GovernmentType != "waterschap" || x.DocumentCount < 40 {
			t.Errorf("%+v", x)
		}
	}
}

func TestRateLimit(t *testing.T) {
	e, c := newTest(true)
	for i := 0; i < LimitPerMinute; i++ {
		rec := get(e, "/api/v1/bodies?government_type=provincie")
		if rec.Code != 200 || rec.Header().Get("X-RateLimit-Remaining") != strconv.Itoa(LimitPerMinute-1-i) {
			t.Fatalf("call %d: %d %v", i, rec.Code, rec.Header())
		}
		if i == 59 {
			c.Advance(30 * time.Second) // the second half comes 30 s later
		}
	}
	rec := get(e, "/api/v1/bodies")
	if rec.Code != 429 || rec.Header().Get("Retry-After") != "30" || !strings.Contains(rec.Body.String(), "rate_limited") {
		t.Fatalf("121st call: %d %v %s", rec.Code, rec.Header(), rec.Body.String())
	}
	c.Advance(30 * time.Second) // the first 60 calls leave the window
	for i := 0; i < 60; i++ {
		if rec := get(e, "/api/v1/bodies?government_type=provincie"); rec.Code != 200 {
			t.Fatalf("after the window moved, call %d: %d", i, rec.Code)
		}
	}
	if rec := get(e, "/api/v1/bodies"); rec.Code != 429 {
		t.Fatalf("window full again: %d", rec.Code)
	}
	// Another client has its own window.
	req := httptest.NewRequest("GET", "/api/v1/bodies?government_type=provincie", nil)
	req.Header.Set("X-Forwarded-For", "203.0.113.9")
	rr := httptest.NewRecorder()
	e.ServeHTTP(rr, req)
	if rr.Code != 200 {
		t.Errorf("other client: %d", rr.Code)
	}
	if e.Limited() != 2 || e.EmulatorStats()["rate_limited"] != int64(2) {
		t.Errorf("limited %d", e.Limited())
	}
	e.ResetEmulator()
	if rec := get(e, "/api/v1/bodies?government_type=provincie"); rec.Code != 200 || e.Limited() != 0 {
		t.Errorf("after reset: %d", rec.Code)
	}
}
