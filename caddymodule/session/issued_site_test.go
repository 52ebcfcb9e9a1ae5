package session

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/redistest"
)

// slash56 is the i-th address of the n-th /64 of one /56
// (2001:db8:5600::/56 holds 2001:db8:5600:0::/64 to 2001:db8:5600:ff::/64).
func slash56(n, i int) string { return fmt.Sprintf("2001:db8:5600:%x::%x", n, i+1) }

// TestSlash56CannotFlushRegistry is issue 31, point 8: from the 256 /64s
// of one /56, each /64 minting past its address share, a client used to
// fill the default registry (256 × 1,000 ids > 100,000) and push out every
// other address's sessions. Now the /56's site (its /48) holds at most
// its share, so an honest session from another address, though the least
// recently seen of all, survives with every other address's ids, and so
// does the /56's own established session, issued before the flood and
// used after it.
func TestSlash56CannotFlushRegistry(t *testing.T) {
	g, clock := newTestRegistry(DefaultMaxIDs)
	siteShare := DefaultMaxIDs / SiteShareDivisor
	g.IssueTo("honest", "raad", "192.0.2.7", 0)
	const others, perOther = 90, DefaultMaxIDs / AddrShareDivisor
	for a := range others { // ninety other addresses at their full share
		for i := range perOther {
			g.IssueTo(fmt.Sprintf("other-%d-%d", a, i), "raad", fmt.Sprintf("198.18.%d.1", a), 0)
		}
	}
	g.IssueTo("own", "raad", slash56(0x17, 0), 0)
	clock.Advance(time.Hour)

	const perSlash64 = 1100 // past the address share of 1,000
	minted := 0
	for i := range perSlash64 {
		for n := range 256 {
			g.IssueTo("flood-"+strconv.Itoa(minted), "raad", slash56(n, i), 0)
			minted++
		}
	}
	if minted <= 2*DefaultMaxIDs {
		t.Fatalf("minted %d ids; the test wants far more than the registry holds", minted)
	}
	clock.Advance(time.Minute)
	if !g.Has("own") {
		t.Error("the /56's own established session was pushed out by its flood")
	}
	if !g.Has("honest") {
		t.Fatal("another address's established session was pushed out by a flood from one /56")
	}
	for a := range others {
		for i := range perOther {
			if id := fmt.Sprintf("other-%d-%d", a, i); !g.Has(id) {
				t.Fatalf("%s of another address was pushed out", id)
			}
		}
	}
	if got, want := g.Len(), 1+others*perOther+siteShare; got != want {
		t.Errorf("registry holds %d ids, want %d (the others, and the site's share of %d)", got, want, siteShare)
	}
	if !g.Has("flood-" + strconv.Itoa(minted-1)) {
		t.Error("the /56's latest session is not live: the site's newest should give way, not the newcomer")
	}
	checkList(t, g)
	checkAddrs(t, g)
}

// The site share counts the /48, not the /64; IPv4 has no site level, and
// an IPv4-mapped address is its IPv4 address.
func TestSiteShareLevels(t *testing.T) {
	g, _ := newTestRegistry(1000) // address share 10, site share 50
	for i := range 200 {
		// Two /48s; in each, 20 /64s minting 5 ids each: 100 per site.
		g.IssueTo("a-"+strconv.Itoa(i), "raad", fmt.Sprintf("2001:db8:a:%x::1", i%20), 0)
		g.IssueTo("b-"+strconv.Itoa(i), "raad", fmt.Sprintf("2001:db8:b:%x::1", i%20), 0)
		// Twenty IPv4 addresses of one /24, 10 ids each: no site cap.
		g.IssueTo("v4-"+strconv.Itoa(i), "raad", "198.51.100."+strconv.Itoa(i%20), 0)
	}
	count := func(prefix string, n int) (live int) {
		for i := range n {
			if g.HasLocal(prefix + strconv.Itoa(i)) {
				live++
			}
		}
		return live
	}
	if a, b, v4 := count("a-", 200), count("b-", 200), count("v4-", 200); a != 50 || b != 50 || v4 != 200 {
		t.Errorf("live: site a %d, site b %d, IPv4 %d; want 50, 50 (each site's share), 200", a, b, v4)
	}
	for i := range 49 {
		if !g.HasLocal("a-" + strconv.Itoa(i)) {
			t.Errorf("a-%d, among the site's first, gave way before its newest", i)
		}
	}

	for i := range 15 {
		addr := "203.0.113.9"
		if i%2 == 1 {
			addr = "::ffff:203.0.113.9"
		}
		g.IssueTo("m-"+strconv.Itoa(i), "raad", addr, 0)
	}
	if got := count("m-", 15); got != 10 {
		t.Errorf("one IPv4 address in both forms holds %d ids, want one address's share of 10", got)
	}
	checkList(t, g)
	checkAddrs(t, g)
}

// With a shared store the site share holds per instance as the address
// share does: the ids a /56 mints past it are ended in Redis too, so they
// neither pile up there nor stay valid on another instance, and an honest
// session issued on the other instance stays valid on both.
func TestSharedSiteShareEndsGivenWayIDs(t *testing.T) {
	regs, _, prefix := instances(t, 2) // 1,000 ids each: address share 10, site share 50
	one, two := regs[0], regs[1]
	two.IssueTo("honest", "raad", "192.0.2.7", time.Hour)
	if !one.IssuedBy("honest", "raad") {
		t.Fatal("instance 1 does not know the honest session")
	}
	one.IssueTo("own", "raad", slash56(3, 0), time.Hour)
	var minted []string
	for i := range 12 {
		for n := range 32 {
			id := fmt.Sprintf("flood-%d-%d", n, i)
			one.IssueTo(id, "raad", slash56(n, i), time.Hour)
			minted = append(minted, id)
		}
	}
	site := 0
	for k := range redistest.Keys(t, prefix) {
		if k != prefix+":sess:honest" {
			site++
		}
	}
	if site != 50 {
		t.Errorf("Redis holds %d of the /56's sessions after %d mints, want its site share of 50", site, len(minted))
	}
	if !two.IssuedBy("own", "raad") || !one.IssuedBy("own", "raad") {
		t.Error("the /56's first session was ended by its own flood")
	}
	if two.IssuedBy(minted[len(minted)-2], "raad") {
		t.Error("a given-way id is still valid on the other instance")
	}
	if !two.IssuedBy(minted[len(minted)-1], "raad") || !one.IssuedBy("honest", "raad") || !two.IssuedBy("honest", "raad") {
		t.Error("the latest minted or the honest session is not valid everywhere")
	}
}

// BenchmarkIssueTo is one initialize's cost in the registry at its cap
// (DefaultMaxIDs, filled by a hundred IPv4 addresses), under a flood: from
// one IPv4 address past its share, and from the 256 /64s of one /56 in
// turn (past the site's share; before it, past the cap).
func BenchmarkIssueTo(b *testing.B) {
	ids := make([]string, 1<<18)
	for i := range ids {
		ids[i] = fmt.Sprintf("mcp-session-%08d-0000-4000-8000-000000000000", i)
	}
	for _, bc := range []struct {
		name string
		addr func(i int) string
	}{
		{"ipv4-address", func(int) string { return "198.51.100.9" }},
		{"ipv6-slash56", func(i int) string { return slash56(i%256, i/256) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			g, _ := newTestRegistry(DefaultMaxIDs)
			for i := range DefaultMaxIDs {
				g.IssueTo("fill-"+strconv.Itoa(i), "raad", fmt.Sprintf("198.18.%d.1", i%100), 0)
			}
			addrs := make([]string, 4096)
			for i := range addrs {
				addrs[i] = bc.addr(i)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				g.IssueTo(ids[i%len(ids)], "raad", addrs[i%len(addrs)], 0)
			}
		})
	}
}
