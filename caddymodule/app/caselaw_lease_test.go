package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/redistest"
	"github.com/besluitbron/besluitbron/platforms/rechtspraak/caselaw"
	"github.com/besluitbron/besluitbron/sharedstore"
)

// One instance holds the case-law lease at a time; another takes it once
// it expires and at once when it is released; the lease and the published
// progress carry TTLs.
func TestCaseLawLeaseOneHolderTakeoverRelease(t *testing.T) {
	store := redistest.Open(t, sharedstore.Options{})
	of := func() *sharedstore.Store { return store }
	clk := fakeclock.New(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))
	a, b := newCaseLawLease(of, "2015-01-01", clk), newCaseLawLease(of, "2015-01-01", clk)
	other := newCaseLawLease(of, "", clk) // another scope, another lease
	ctx := context.Background()
	prefix := strings.TrimSuffix(store.Key(""), ":")

	if !a.hold(ctx) || b.hold(ctx) {
		t.Fatal("want a to take the lease and b to be refused")
	}
	if a.role() != caselaw.Leader || b.role() != caselaw.Follower {
		t.Fatalf("roles a %v b %v, want leader and follower", a.role(), b.role())
	}
	if !other.hold(ctx) {
		t.Fatal("a lease of another scope was refused")
	}
	// By its own clock a holder stops leading when its lease may have
	// lapsed in Redis, and leads again once it renews.
	clk.Advance(caseLawLeaseTTL)
	if a.role() != caselaw.Follower {
		t.Fatalf("a holder whose lease ran out by its clock is %v, want follower", a.role())
	}
	if !a.hold(ctx) || a.role() != caselaw.Leader {
		t.Fatal("the holder could not renew its lease")
	}
	key := a.key(store)
	keys := redistest.Keys(t, prefix)
	if ttl := keys[key]; ttl <= 0 || ttl > caseLawLeaseTTL {
		t.Fatalf("lease %s has TTL %v, want at most %v", key, ttl, caseLawLeaseTTL)
	}

	// The TTL runs out (a crashed holder renews no more): removing the key
	// is what Redis does then.
	if err := store.Client().Del(ctx, key).Err(); err != nil {
		t.Fatal(err)
	}
	if !b.hold(ctx) {
		t.Fatal("b could not take the expired lease")
	}
	if a.hold(ctx) || a.role() != caselaw.Follower {
		t.Fatal("a renewed a lease b holds")
	}

	// The leader publishes; the others read it back.
	pub := caselaw.Published{PassStart: time.Date(2026, 6, 1, 12, 0, 0, 123, time.UTC), Pages: 7}
	if err := (caseLawBoard{lease: b}).Publish(ctx, pub); err != nil {
		t.Fatal(err)
	}
	got, err := caseLawBoard{lease: a}.Published(ctx)
	if err != nil || !got.PassStart.Equal(pub.PassStart) || got.Pages != 7 || got.Complete {
		t.Fatalf("published %+v, read %+v (%v)", pub, got, err)
	}
	if got, _ := (caseLawBoard{lease: other}).Published(ctx); !got.PassStart.IsZero() {
		t.Fatalf("another scope reads %+v", got)
	}

	// Released (the instance stops): a takes it at once; b's release of a
	// lease it no longer holds changes nothing.
	b.release(ctx)
	if b.role() != caselaw.Follower || !a.hold(ctx) {
		t.Fatal("a could not take the released lease")
	}
	b.release(ctx)
	if b.hold(ctx) {
		t.Fatal("b's release removed a's lease")
	}
	for k, ttl := range redistest.Keys(t, prefix) {
		if ttl <= 0 {
			t.Fatalf("key %s has no TTL", k)
		}
	}
}

// Without a store that answers, an instance harvests alone.
func TestCaseLawLeaseWithoutStoreIsAlone(t *testing.T) {
	l := newCaseLawLease(func() *sharedstore.Store { return nil }, "", nil)
	if l.hold(context.Background()) || l.role() != caselaw.Alone {
		t.Fatalf("without a store the role is %v, want alone", l.role())
	}
}

// keep holds the lease at once, renews it every caseLawLeaseRenew on the
// lease's clock (so it still leads when a first hold would have lapsed),
// and releases it when its context ends.
func TestCaseLawLeaseKeepRenewsAndReleases(t *testing.T) {
	store := redistest.Open(t, sharedstore.Options{})
	of := func() *sharedstore.Store { return store }
	clk := fakeclock.New(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))
	a, b := newCaseLawLease(of, "", clk), newCaseLawLease(of, "", clk)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.keep(ctx); close(done) }()
	// Once keep waits on the clock, its hold is done.
	sleeping := func() { clk.AwaitTimer() }

	sleeping()
	if a.role() != caselaw.Leader || b.hold(ctx) {
		t.Fatalf("keep did not take the lease: a is %v", a.role())
	}
	clk.Advance(caseLawLeaseTTL) // the first hold's term, by the clock
	sleeping()
	if a.role() != caselaw.Leader {
		t.Fatalf("after a renewal a is %v, want leader", a.role())
	}
	cancel()
	<-done
	if !b.hold(context.Background()) {
		t.Fatal("keep did not release the lease when its context ended")
	}
}
