package emulator

import (
	"testing"
)

// BenchmarkBuildAll measures generating all 330 sources (the cost of the
// first search without an organization).
func BenchmarkBuildAll(b *testing.B) {
	for i := 0; i < b.N; i++ {
		d := newDataset(int64(i))
		d.all()
	}
}

// BenchmarkSearchAll measures a search across all sources once built.
func BenchmarkSearchAll(b *testing.B) {
	e := NewEmulator(Config{Seed: 1, NoRateLimit: true})
	e.data.all()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		get(e, "/api/search?query=woningbouw&limit=24")
	}
}

// BenchmarkDocumentDetail measures one document with its full text.
func BenchmarkDocumentDetail(b *testing.B) {
	e := NewEmulator(Config{Seed: 1, NoRateLimit: true})
	s, _ := e.data.sourceByKey("soest")
	id := s.docs[3].id
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		get(e, "/api/entities/"+id)
	}
}
