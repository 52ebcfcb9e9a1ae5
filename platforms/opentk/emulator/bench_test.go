package emulator

import "testing"

func BenchmarkSearch(b *testing.B) {
	t := &testing.T{}
	searchReq(t, map[string]string{"q": "stikstof"}) // build the index first
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if rec := searchReq(t, map[string]string{"q": "stikstof motie"}); rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
}

func BenchmarkGetdoc(b *testing.B) {
	t := &testing.T{}
	n := firstNummer(t)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if rec := get(t, "/getdoc/"+n); rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
}
