package emulator

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func benchSearch(b *testing.B, method, target, body string) {
	h := handler0()
	req := func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, target, strings.NewReader(body)))
		if rec.Code != 200 {
			b.Fatalf("%d %s", rec.Code, rec.Body.String())
		}
	}
	req() // generate the metadata first
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req()
	}
}

// A metadata search over all 330 indices, the cheap idiom.
func BenchmarkSearchAllMetadata(b *testing.B) {
	benchSearch(b, "POST", "/ori_*/_search", `{"query":{"simple_query_string":{"query":"woningbouw","fields":["text","title","description","name"]}},"size":10,"_source":{"excludes":["text","md_text","text_pages"]}}`)
}

// The same search with full texts in the hits.
func BenchmarkSearchAllFullText(b *testing.B) {
	benchSearch(b, "POST", "/ori_*/_search", `{"query":{"simple_query_string":{"query":"woningbouw"}},"size":10}`)
}

// One source, sorted by date.
func BenchmarkSearchOneSource(b *testing.B) {
	benchSearch(b, "GET", "/ori_soest_*/_search?q=MediaObject&sort=last_discussed_at:desc&_source_excludes=text,md_text,text_pages", "")
}
