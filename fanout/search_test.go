package fanout

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/subcall"
)

var allPlatforms = []string{"obv", "tk", "opentk", "ob", "rechtspraak", "ori", "oa"}

// TestSearchEveryPlatform: one question reaches every platform; each
// answers from its emulator; asked for sort=date, the merged hits run
// newest first with undated last, as before relevance came; TK and OpenTK
// hold the same documents, so their shared document numbers fold into one
// hit each, with a link to the other.
func TestSearchEveryPlatform(t *testing.T) {
	d := &emulatorDoer{}
	e, _ := engine(t, d.do, allPlatforms...)
	var progressed []string
	res := e.Search(context.Background(), Query{Words: "stikstof", Sort: SortDate}, func(o Outcome, hs []Hit) {
		progressed = append(progressed, o.Platform)
		if len(hs) != o.Hits {
			t.Errorf("%s: progress gave %d hits, outcome says %d", o.Platform, len(hs), o.Hits)
		}
	})
	if len(progressed) != len(allPlatforms) {
		t.Errorf("progress called for %v, want each of %v once", progressed, allPlatforms)
	}
	if progressed[0] != "rechtspraak" {
		t.Errorf("skipped platforms are reported first: got %v", progressed)
	}
	sum := 0
	for _, o := range res.Outcomes {
		want := StateAnswered
		if o.Platform == "rechtspraak" {
			want = StateSkipped // no free text, no ECLI, no court
		}
		if o.State != want {
			t.Errorf("%s: state %s (%s), want %s", o.Platform, o.State, o.Error, want)
		}
		if want == StateAnswered && o.Hits == 0 {
			t.Errorf("%s answered no hits", o.Platform)
		}
		sum += o.Hits
	}
	if res.Partial {
		t.Error("partial, though every platform asked answered")
	}
	if res.Sort != SortDate {
		t.Errorf("sort %q, want date as asked", res.Sort)
	}
	folded := 0
	for i, h := range res.Hits {
		folded += len(h.Also)
		if h.Platform == "" || h.PlatformName == "" || h.ID == "" || h.Title == "" {
			t.Errorf("hit %d lacks platform, id or title: %+v", i, h)
		}
		if i > 0 {
			prev, cur := dayOf(res.Hits[i-1].Date), dayOf(h.Date)
			if cur != "" && (prev == "" || prev < cur) {
				t.Errorf("hit %d (%s) after hit %d (%s): not newest first, undated last", i, h.Date, i-1, res.Hits[i-1].Date)
			}
		}
		if e.surfaces[h.Platform].URI != nil && !strings.HasPrefix(h.URI, "besluitbron://"+h.Platform+"/") {
			t.Errorf("hit %s/%s: uri %q, want its besluitbron:// resource", h.Platform, h.ID, h.URI)
		}
		for _, l := range h.Also {
			if e.surfaces[l.Platform].URI != nil && !strings.HasPrefix(l.URI, "besluitbron://"+l.Platform+"/") {
				t.Errorf("hit %s/%s: also %s/%s has uri %q", h.Platform, h.ID, l.Platform, l.ID, l.URI)
			}
			if h.Platform != "tk" || l.Platform != "opentk" || l.ID != h.ID {
				t.Errorf("hit %s/%s folded %+v: only TK and OpenTK share documents here", h.Platform, h.ID, l)
			}
		}
	}
	if folded == 0 {
		t.Error("no TK document was found again on OpenTK: the two emulators share their documents")
	}
	if len(res.Hits)+folded != sum {
		t.Errorf("%d hits + %d folded != %d hits the platforms gave", len(res.Hits), folded, sum)
	}
}

// TestFromCache: answers the cache served make the outcome "cache".
func TestFromCache(t *testing.T) {
	d := &emulatorDoer{cache: "BesluitBron; hit; ttl=500"}
	e, _ := engine(t, d.do, "obv", "ob")
	res := e.Search(context.Background(), Query{Words: "woningbouw"}, nil)
	for _, o := range res.Outcomes {
		if o.State != StateCache {
			t.Errorf("%s: state %s, want cache", o.Platform, o.State)
		}
	}
}

// TestStalledPlatformKeepsDeadline: one platform never answers (one
// honours its context, one ignores it); the others answer at once. At the
// deadline the search returns with their hits, the stalled ones time out,
// and the answer is partial. Time moves only by the fake clock.
func TestStalledPlatformKeepsDeadline(t *testing.T) {
	d := &emulatorDoer{}
	release := make(chan struct{})
	defer close(release)
	do := func(ctx context.Context, platform string, req adapters.Request) (*subcall.Answer, error) {
		switch platform {
		case "opentk": // waits for the search's end
			<-ctx.Done()
			return nil, ctx.Err()
		case "ob": // a platform call deaf to cancellation
			<-release
			return nil, context.Canceled
		}
		return d.do(ctx, platform, req)
	}
	e, clk := engine(t, do, "obv", "tk", "opentk", "ob")
	answered := make(chan string, 4)
	out := make(chan Result, 1)
	go func() {
		out <- e.Search(context.Background(), Query{Words: "stikstof"}, func(o Outcome, _ []Hit) { answered <- o.Platform })
	}()
	got := map[string]bool{}
	for len(got) < 2 {
		select {
		case k := <-answered:
			got[k] = true
		case <-time.After(30 * time.Second):
			t.Fatalf("obv and tk never answered (got %v)", got)
		}
	}
	select {
	case <-out:
		t.Fatal("the search returned before its deadline while two platforms were busy")
	default:
	}
	// The deadline timer is armed before any platform is asked.
	clk.Advance(e.Deadline())
	var res Result
	select {
	case res = <-out:
	case <-time.After(30 * time.Second):
		t.Fatal("the search did not return at its deadline")
	}
	for k, want := range map[string]string{"obv": StateAnswered, "tk": StateAnswered, "opentk": StateTimeout, "ob": StateTimeout} {
		o := outcomeOfKey(t, res, k)
		if o.State != want {
			t.Errorf("%s: %s (%s), want %s", k, o.State, o.Error, want)
		}
		if want == StateTimeout && (o.TookMS != e.Deadline().Milliseconds() || !strings.Contains(o.Error, "deadline") || o.Reason != ReasonDeadline) {
			t.Errorf("%s: took %d ms, error %q, reason %q: want the deadline", k, o.TookMS, o.Error, o.Reason)
		}
		if want == StateAnswered && o.TookMS != 0 {
			t.Errorf("%s took %d ms on a clock that stood still", k, o.TookMS)
		}
	}
	if !res.Partial || len(res.Hits) == 0 {
		t.Errorf("partial=%v with %d hits: want a partial answer with the others' hits", res.Partial, len(res.Hits))
	}
	// The stalled calls went on after the deadline (their answers would
	// fill the cache) until the grace ends.
	clk.Advance(DefaultGrace)
}

// TestRefusals: BesluitBron's budget (Cache-Status detail=over-budget),
// the platform's own 429, a 500, an unreadable answer and a platform that
// cannot be asked are named apart, each with its reason code.
func TestRefusals(t *testing.T) {
	answers := map[string]*subcall.Answer{
		"obv": {Status: 503, Header: http.Header{"Retry-After": {"17"}}, Cache: "BesluitBron; fwd=miss; detail=over-budget", Body: []byte("over budget")},
		"ob":  {Status: 429, Header: http.Header{"Retry-After": {"5"}}, Cache: "BesluitBron; fwd=miss; fwd-status=429"},
		"ori": {Status: 500, Header: http.Header{}, Body: []byte(`{"error":"search exploded"}`)},
		"oa":  {Status: 200, Header: http.Header{}, Body: []byte("<html>not json</html>")},
	}
	do := func(_ context.Context, platform string, _ adapters.Request) (*subcall.Answer, error) {
		if platform == "opentk" {
			return nil, errors.New("dial tcp: connection refused")
		}
		return answers[platform], nil
	}
	e, _ := engine(t, do, "obv", "ob", "ori", "oa", "opentk")
	res := e.Search(context.Background(), Query{Words: "stikstof"}, nil)
	for k, want := range map[string]struct {
		state  string
		retry  int
		err    string
		reason string
	}{
		"obv":    {StateOverBudget, 17, "BesluitBron's request budget", ReasonBudget},
		"ob":     {StateOverBudget, 5, "answered HTTP 429", ReasonRateLimited},
		"ori":    {StateFailed, 0, "HTTP 500: search exploded", ReasonPlatformError},
		"oa":     {StateFailed, 0, "unexpected form", ReasonUnexpectedAnswer},
		"opentk": {StateFailed, 0, "could not be asked", ReasonUnreachable},
	} {
		o := outcomeOfKey(t, res, k)
		if o.State != want.state || o.RetryAfterSeconds != want.retry || !strings.Contains(o.Error, want.err) || o.Reason != want.reason {
			t.Errorf("%s: %+v, want %s, retry %d, error with %q", k, o, want.state, want.retry, want.err)
		}
	}
	if !res.Partial || len(res.Hits) != 0 {
		t.Errorf("partial=%v hits=%d", res.Partial, len(res.Hits))
	}
}
