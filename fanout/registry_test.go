package fanout

import (
	"testing"

	"github.com/besluitbron/besluitbron/platforms"
)

// Every platform of the table has an Authority: the merge ranks a
// document found on several platforms by it (adapters/registry's test
// holds the surfaces to the table).
func TestEveryPlatformHasAnAuthority(t *testing.T) {
	for _, k := range platforms.Keys() {
		if platforms.AuthorityOf(k) == 0 {
			t.Errorf("platform %s has no Authority in the table: the merge cannot rank its hits", k)
		}
	}
}
