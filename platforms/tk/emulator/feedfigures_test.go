//go:build figures

package emulator

import (
	"bytes"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

// TestFigures400kDocuments pages the Document category of a feed the size
// of the real one (about 400,000 Documents, LawGraph) with a re-sent block
// the size of OpenDataPortaal issue 127, and reports time and memory.
// Run: go test -tags figures -run Figures -v ./platforms/tk/emulator/
func TestFigures400kDocuments(t *testing.T) {
	var m0 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	start := time.Now()
	h := NewEmulator(Config{Seed: 1, Clock: fakeclock.New(fixedNow()),
		Feed: FeedConfig{Documents: 400_000, Resent: 25_000, Deleted: 2_000}})
	want := h.FeedCounts()
	built := time.Since(start)
	var entries, pages int
	token := int64(0)
	for {
		code, body, _ := do(t, h, "GET", "/SyncFeed/2.0/Feed?category=Document&skiptoken="+strconv.FormatInt(token, 10))
		mustOK(t, code, body)
		pages++
		n := bytes.Count(body, []byte("<entry>"))
		if n == 0 {
			break
		}
		entries += n
		s := string(body)
		i := strings.Index(s, `<link rel="next" href="`)
		href := s[i+len(`<link rel="next" href="`):]
		href = href[:strings.IndexByte(href, '"')]
		next, err := strconv.ParseInt(href[strings.LastIndex(href, "=")+1:], 10, 64)
		if err != nil || next <= token {
			t.Fatalf("next %q after %d", href, token)
		}
		token = next
	}
	paged := time.Since(start) - built
	var m1 runtime.MemStats
	runtime.ReadMemStats(&m1)
	if entries != want.Entries || want.Documents != 400_000 || want.Live != 398_000 || token != want.LastToken {
		t.Errorf("paged %d entries up to %d; counts %+v", entries, token, want)
	}
	ids := 0
	idStart := time.Now()
	h.FeedDocuments(func(string, bool) bool { ids++; return true })
	t.Logf("counts %+v", want)
	t.Logf("base data and plan %v; %d pages (%d entries) in %v (%v a page); FeedDocuments %d ids in %v",
		built, pages, entries, paged, paged/time.Duration(pages), ids, time.Since(idStart))
	t.Logf("heap in use %d MB (was %d MB), allocated in all %d MB",
		m1.HeapInuse>>20, m0.HeapInuse>>20, (m1.TotalAlloc-m0.TotalAlloc)>>20)
}
