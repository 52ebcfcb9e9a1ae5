package reader

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/registry"
	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/platforms"
	obad "github.com/besluitbron/besluitbron/platforms/ob"
	ob "github.com/besluitbron/besluitbron/platforms/ob/emulator"
	obvad "github.com/besluitbron/besluitbron/platforms/obv"
	obv "github.com/besluitbron/besluitbron/platforms/obv/emulator"
	oriad "github.com/besluitbron/besluitbron/platforms/ori"
	oriemu "github.com/besluitbron/besluitbron/platforms/ori/emulator"
	rsad "github.com/besluitbron/besluitbron/platforms/rechtspraak"
	rechtspraak "github.com/besluitbron/besluitbron/platforms/rechtspraak/emulator"
	tkad "github.com/besluitbron/besluitbron/platforms/tk"
	tkemu "github.com/besluitbron/besluitbron/platforms/tk/emulator"
)

// at is the tests' clock; nothing moves it.
var at = fakeclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))

var now = at.Now

// house serves each platform's emulator on its own server, as the offline
// house does; the Getter asks them over HTTP and counts the requests.
type house struct {
	urls  map[string]string
	calls map[string]int
}

func newHouse(t *testing.T) *house {
	h := &house{urls: map[string]string{}, calls: map[string]int{}}
	for key, handler := range map[string]http.Handler{
		platforms.OBV:         obv.New(obv.Config{Seed: 1, Clock: at, NoRateLimit: true}),
		platforms.OB:          ob.New(ob.Config{Seed: 1, Clock: at}),
		platforms.Rechtspraak: rechtspraak.New(rechtspraak.Config{Seed: 1, Clock: at}),
	} {
		srv := httptest.NewServer(handler)
		t.Cleanup(srv.Close)
		h.urls[key] = srv.URL
	}
	return h
}

func (h *house) get(ctx context.Context, platform string, r adapters.Request) ([]byte, error) {
	h.calls[platform]++
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	req, err := http.NewRequestWithContext(ctx, method, h.urls[platform]+r.Path, bytes.NewReader(r.Body))
	if err != nil {
		return nil, err
	}
	if r.ContentType != "" {
		req.Header.Set("Content-Type", r.ContentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return nil, adapters.Classify(platform, resp.StatusCode, false, 0, false, nil)
	}
	return body, err
}

func (h *house) firstHit(t *testing.T, platform string, r adapters.Request, parse func([]byte) (adapters.Page, error)) adapters.Hit {
	t.Helper()
	body, err := h.get(context.Background(), platform, r)
	if err != nil {
		t.Fatal(err)
	}
	p, err := parse(body)
	if err != nil || len(p.Hits) == 0 {
		t.Fatalf("%s search: %v, %d hits", platform, err, len(p.Hits))
	}
	return p.Hits[0]
}

// A hit of a search is read in full through the Getter, with the same
// parsers the MCP fetch tools use.
func TestFetchThroughTheEmulators(t *testing.T) {
	h := newHouse(t)
	rd := &Reader{Get: h.get, Surfaces: registry.Surfaces(registry.Settings{LinkBases: func(string) []string { return []string{h.urls[platforms.OB]} }}), Clock: at}
	ctx := context.Background()

	sr, _ := obvad.SearchRequest(obvad.SearchParams{Query: "besluit", Limit: 5})
	hit := h.firstHit(t, platforms.OBV, sr, obvad.ParseSearch)
	d, err := rd.Fetch(ctx, platforms.OBV, hit.ID, hit.Type)
	if err != nil || d.Title == "" {
		t.Fatalf("obv %s: %v %+v", hit.ID, err, d)
	}

	rr, _ := rsad.SearchRequest(rsad.SearchParams{Limit: 5})
	rbody, err := h.get(ctx, platforms.Rechtspraak, rr)
	if err != nil {
		t.Fatal(err)
	}
	page, err := rsad.ParseSearch(rbody, rsad.SearchParams{Limit: 5})
	if err != nil || len(page.Hits) == 0 {
		t.Fatalf("rechtspraak search: %v", err)
	}
	d, err = rd.Fetch(ctx, platforms.Rechtspraak, page.Hits[0].ID, "")
	if err != nil || d.Text == "" {
		t.Fatalf("rechtspraak %s: %v, text %d chars", page.Hits[0].ID, err, len(d.Text))
	}
	// The reader names the document as a resource, as the fan-out does.
	if want := rd.Surfaces[platforms.Rechtspraak].URI(page.Hits[0].ID, ""); d.URI != want || !strings.HasPrefix(d.URI, "besluitbron://rechtspraak/") {
		t.Errorf("rechtspraak %s: uri %q, want %q", page.Hits[0].ID, d.URI, want)
	}

	or, _ := obad.SearchRequest(obad.SearchParams{Query: "besluit", Limit: 5})
	obody, err := h.get(ctx, platforms.OB, or)
	if err != nil {
		t.Fatal(err)
	}
	opage, _, err := obad.ParseSearch(obody)
	if err != nil || len(opage.Hits) == 0 {
		t.Fatalf("ob search: %v", err)
	}
	d, err = rd.Fetch(ctx, platforms.OB, opage.Hits[0].ID, "")
	if err != nil || d.Title == "" {
		t.Fatalf("ob %s: %v", opage.Hits[0].ID, err)
	}
	if want := "besluitbron://ob/" + opage.Hits[0].ID; d.URI != want {
		t.Errorf("ob %s: uri %q, want %q", opage.Hits[0].ID, d.URI, want)
	}
}

// A bad id or platform is refused before any request; a document the
// platform does not know is a 404.
func TestRefusals(t *testing.T) {
	h := newHouse(t)
	rd := &Reader{Get: h.get, Surfaces: registry.Surfaces(registry.Settings{}), Clock: at}
	ctx := context.Background()
	for _, c := range []struct{ platform, id string }{
		{platforms.OBV, ""},
		{platforms.OBV, strings.Repeat("x", 501)},
		{platforms.Rechtspraak, "not-an-ecli"},
		{"nope", "1"},
		{platforms.OA, "1"},
	} {
		_, err := rd.Fetch(ctx, c.platform, c.id, "")
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s %q: %v, want ErrInvalid", c.platform, c.id, err)
		}
	}
	if n := h.calls[platforms.OBV] + h.calls[platforms.Rechtspraak]; n != 0 {
		t.Errorf("refusals asked the platforms %d times", n)
	}
	_, err := rd.Fetch(ctx, platforms.Rechtspraak, "ECLI:NL:HR:1999:AA0001", "")
	if err == nil {
		t.Fatal("an unknown ECLI was found")
	}
	if !NotFound(err) {
		t.Errorf("unknown ECLI: %v, want a 404", err)
	}
}

// The reader gets a Tweede Kamer document as tk_fetch does: while the
// OData route answers 503, a document asked by GUID comes from the
// SyncFeed (the same document it read through OData before), and one
// asked by number says the platform failed.
func TestTKFetchFallsBackToTheSyncFeed(t *testing.T) {
	var odataDown atomic.Bool
	emu := tkemu.New(tkemu.Config{Seed: 1, Clock: at})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if odataDown.Load() && strings.HasPrefix(r.URL.Path, "/OData/") {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		emu.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	h := &house{urls: map[string]string{platforms.TK: srv.URL}, calls: map[string]int{}}
	rd := &Reader{Get: h.get, Surfaces: registry.Surfaces(registry.Settings{}), Clock: at}
	ctx := context.Background()

	body, err := h.get(ctx, platforms.TK, adapters.Get(tkad.DefaultRoot+"/Document", url.Values{"$top": {"1"}, "$filter": {"Verwijderd eq false"}}))
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Value []struct {
			ID string `json:"Id"`
		} `json:"value"`
	}
	if err := json.Unmarshal(body, &page); err != nil || len(page.Value) != 1 {
		t.Fatalf("a document from OData: %v %s", err, body)
	}
	guid := page.Value[0].ID
	viaOData, err := rd.Fetch(ctx, platforms.TK, guid, "")
	if err != nil {
		t.Fatalf("fetch through OData: %v", err)
	}

	odataDown.Store(true)
	viaFeed, err := rd.Fetch(ctx, platforms.TK, guid, "")
	if err != nil {
		t.Fatalf("fetch by GUID while OData answers 503: %v", err)
	}
	if viaFeed.Meta["via"] != "syncfeed" || viaFeed.ID != viaOData.ID || viaFeed.Title != viaOData.Title || viaFeed.Date != viaOData.Date {
		t.Fatalf("through the SyncFeed %+v, through OData %+v", viaFeed, viaOData)
	}
	_, err = rd.Fetch(ctx, platforms.TK, viaOData.ID, "")
	if adapters.KindOf(err) != adapters.KindUnavailable {
		t.Fatalf("fetch by number while OData answers 503: %v, want the route's 503", err)
	}
}

// The reader names an ORI document's organisation as ori_fetch does (its
// Organization object's name, looked up once), not by its index key.
func TestORIFetchNamesTheOrganisation(t *testing.T) {
	srv := httptest.NewServer(oriemu.New(oriemu.Config{Seed: 1, Clock: at}))
	t.Cleanup(srv.Close)
	h := &house{urls: map[string]string{platforms.ORI: srv.URL}, calls: map[string]int{}}
	rd := &Reader{Get: h.get, Surfaces: registry.Surfaces(registry.Settings{}), Clock: at}
	ctx := context.Background()
	get := func(r adapters.Request) ([]byte, error) { return h.get(ctx, platforms.ORI, r) }

	r, err := oriad.SearchRequest(oriad.SearchParams{Query: "parkeren", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	body, err := get(r)
	if err != nil {
		t.Fatal(err)
	}
	var memo adapters.Memo
	names, err := oriad.Names(&memo, now(), body, get)
	if err != nil || len(names) == 0 {
		t.Fatalf("organisation names: %v %v", names, err)
	}
	unnamed, err := oriad.ParseSearch(body, 0, nil)
	if err != nil || len(unnamed.Hits) != 1 {
		t.Fatalf("search: %v %+v", err, unnamed)
	}
	hit := unnamed.Hits[0]
	d, err := rd.Fetch(ctx, platforms.ORI, hit.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, n := range names {
		want = n
	}
	if d.Source != want || d.Source == hit.Source {
		t.Fatalf("reader's organisation %q; its name is %q, its index key %q", d.Source, want, hit.Source)
	}
	before := h.calls[platforms.ORI]
	if _, err := rd.Fetch(ctx, platforms.ORI, hit.ID, ""); err != nil || h.calls[platforms.ORI] != before+1 {
		t.Fatalf("a second fetch asked %d times (the name is remembered): %v", h.calls[platforms.ORI]-before, err)
	}
}
