package bwb

import (
	"testing"

	"github.com/besluitbron/besluitbron/internal/fixture"
)

// BenchmarkArticle parses the larger real toestand and cuts one article
// out of it, as bwb_fetch does on every call (the cache holds the XML).
func BenchmarkArticle(b *testing.B) {
	body := fixture.Read(b, "bwb", "toestand-BWBR0008326_2011-01-01.xml")
	b.SetBytes(int64(len(body)))
	for i := 0; i < b.N; i++ {
		t, err := ParseToestand(body)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := read(t, Version{Label: "2011-01-01_0", From: "2011-01-01", Until: OpenEnd}, FetchParams{Article: "3"}); err != nil {
			b.Fatal(err)
		}
	}
}
