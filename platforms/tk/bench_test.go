package tk

import (
	"net/http/httptest"
	"testing"
)

// Reading the field names from $metadata: what a tool call would pay on
// every call without the connector's memo.
func BenchmarkResolveMetadata(b *testing.B) {
	rec := httptest.NewRecorder()
	emuHandler.ServeHTTP(rec, httptest.NewRequest("GET", "http://gegevensmagazijn.test"+DefaultRoot+"/$metadata", nil))
	body := rec.Body.Bytes()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		md, err := ParseMetadata(body)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := NewSchema(DefaultRoot, md).Entity("Document"); err != nil {
			b.Fatal(err)
		}
	}
}
