package session

import (
	"net/netip"
	"strconv"
	"testing"
)

// checkAddrs verifies the per-address and per-site lists against the
// map: every id with an address (a site) is in that group's list exactly
// once, newest first, no group holds more than its share, and the counts
// match.
func checkAddrs(t *testing.T, g *Registry) {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	for level, groups := range g.groups {
		seen := 0
		for key, a := range groups {
			n := 0
			for e := a.newest; e != nil; e = e.in[level].older {
				m := e.in[level]
				if g.ids[e.id] != e || m.key != key || (m.older != nil && m.older.in[level].newer != e) {
					t.Fatalf("level %d, group %s: list broken at %q", level, key, e.id)
				}
				n++
			}
			if n != a.n || n == 0 || n > g.share[level] {
				t.Fatalf("level %d, group %s: %d ids listed, count %d, share %d", level, key, n, a.n, g.share[level])
			}
			seen += n
		}
		for _, e := range g.ids {
			if e.in[level].key != "" {
				seen--
			}
		}
		if seen != 0 {
			t.Fatalf("level %d: the lists and the map disagree by %d ids", level, seen)
		}
	}
}

// TestAddressHoldsAtMostItsShare: an address minting ids past its share
// loses its own newest each time; the ids of other addresses, and its own
// first ones, stay. An IPv6 /64 is one address; a trusted source and ids
// issued without an address count against no share.
func TestAddressHoldsAtMostItsShare(t *testing.T) {
	g, _ := newTestRegistry(1000) // share: 10
	g.IssueTo("honest", "raad", "192.0.2.7", 0)
	for i := range 5000 {
		g.IssueTo("flood-"+strconv.Itoa(i), "raad", "198.51.100.9", 0)
		g.IssueTo("v6-"+strconv.Itoa(i), "raad", "2001:db8:1:2::"+strconv.FormatInt(int64(i), 16), 0)
	}
	checkList(t, g)
	checkAddrs(t, g)
	if !g.Has("honest") {
		t.Fatal("another address's session was evicted")
	}
	for _, prefix := range []string{"flood-", "v6-"} {
		for i := range 9 {
			if !g.Has(prefix + strconv.Itoa(i)) {
				t.Errorf("%s%d, among the address's first, was evicted before its newest", prefix, i)
			}
		}
		if !g.Has(prefix+"4999") || g.Has(prefix+"4998") {
			t.Errorf("%s: want the latest id live and the one before it given way", prefix)
		}
	}
	if got := g.Len(); got != 1+10+10 {
		t.Errorf("registry holds %d ids, want 21 (1 + two shares of 10)", got)
	}

	// Removing an id frees its place in the share.
	if !g.Remove("flood-0", "raad") {
		t.Fatal("remove")
	}
	g.IssueTo("flood-new", "raad", "198.51.100.9", 0)
	if !g.Has("flood-1") || !g.Has("flood-4999") || !g.Has("flood-new") {
		t.Error("after a remove, the address's next id should take the free place")
	}
	checkAddrs(t, g)

	// A trusted source, and ids issued without an address, have no share.
	g.SetTrusted([]netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")})
	for i := range 50 {
		g.IssueTo("gw-"+strconv.Itoa(i), "raad", "203.0.113.5", 0)
		g.Add("plain-"+strconv.Itoa(i), "raad")
	}
	if !g.Has("gw-0") || !g.Has("gw-49") || !g.Has("plain-0") {
		t.Error("a trusted source's or an address-less id was given way by a share")
	}
	checkList(t, g)
	checkAddrs(t, g)
}

// At the registry's cap, the least recently seen id goes as before, and
// its address's list stays consistent.
func TestShareAndCapTogether(t *testing.T) {
	g, _ := newTestRegistry(100) // share: 1
	for i := range 300 {
		g.IssueTo("a"+strconv.Itoa(i), "raad", "10.0.0."+strconv.Itoa(i%250), 0)
	}
	if g.Len() != 100 {
		t.Fatalf("len %d", g.Len())
	}
	checkList(t, g)
	checkAddrs(t, g)
}
