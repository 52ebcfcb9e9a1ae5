package emulator

import (
	"net/http/httptest"
	"testing"
	"time"
)

func benchGet(b *testing.B, target string) {
	h := testHandler()
	get := func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
		if rec.Code != 200 {
			b.Fatalf("%d %s", rec.Code, rec.Body.String())
		}
	}
	get()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		get()
	}
}

// Generating the whole data set (what the first request pays).
func BenchmarkGenerate(b *testing.B) {
	for i := 0; i < b.N; i++ {
		NewData(int64(i), time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC), 0).build()
	}
}

func BenchmarkFilterDocuments(b *testing.B) {
	benchGet(b, "/OData/v4/2.0/Document?$filter=Verwijderd%20eq%20false%20and%20contains(Onderwerp,'stikstof')&$orderby=Datum%20desc&$top=50")
}

func BenchmarkPage250(b *testing.B) {
	benchGet(b, "/OData/v4/2.0/Document?$skip=2500")
}

func BenchmarkSyncFeedPage(b *testing.B) {
	benchGet(b, "/SyncFeed/2.0/Feed?category=Document&skiptoken=15030000")
}

func BenchmarkResourcePDF(b *testing.B) {
	benchGet(b, "/OData/v4/2.0/Document("+guid(1, "Document", 1234)+")/resource")
}
