package canonical

import (
	"net/http"
	"testing"

	"github.com/besluitbron/besluitbron/platforms"
)

// BenchmarkKey is the cache's work per hit on top of the lookup: the
// canonical request of an OBV search (a priced path, so limit is
// checked) and its raw key, in a reused buffer.
func BenchmarkKey(b *testing.B) {
	p, _ := platforms.Get(platforms.OBV)
	rules := RulesFor(p)
	r, _ := http.NewRequest(http.MethodGet, "http://localhost/api/search?limit=24&organization=soest&query=begroting", nil)
	r.Header.Set("Accept", "application/json")
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		c, err := Build(r, nil, rules)
		if err != nil {
			b.Fatal(err)
		}
		buf = c.AppendKey(buf[:0], "obv")
	}
}
