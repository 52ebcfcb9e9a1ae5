package fanout

import (
	"testing"

	"github.com/besluitbron/besluitbron/caddymodule/platforms"
)

// Every platform of the table has a searcher, and the fan-out searches
// no platform the table lacks: a new platform cannot be left out of
// "one question, every platform" by accident.
func TestEveryPlatformHasASearcher(t *testing.T) {
	for _, k := range platforms.Keys() {
		if searchers[k] == nil {
			t.Errorf("platform %s has no searcher in searchers.go", k)
		}
		if platforms.AuthorityOf(k) == 0 {
			t.Errorf("platform %s has no Authority in the table: the merge cannot rank its hits", k)
		}
	}
	for k := range searchers {
		if _, ok := platforms.Get(k); !ok {
			t.Errorf("searcher for %q, which is not in the table", k)
		}
	}
}
