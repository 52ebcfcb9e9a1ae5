package replica

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/internal/redistest"
	"github.com/besluitbron/besluitbron/sharedstore"
)

// One instance holds a replica's lease at a time; another takes it once
// it expires and at once when it is released; the lease and the published
// progress carry TTLs.
func TestLeaseOneHolderTakeoverRelease(t *testing.T) {
	store := redistest.Open(t, sharedstore.Options{})
	of := func() *sharedstore.Store { return store }
	clk := fakeclock.New(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))
	a, b := NewLease(of, "caselaw", "2015-01-01", clk), NewLease(of, "caselaw", "2015-01-01", clk)
	other := NewLease(of, "caselaw", "", clk) // another scope, another lease
	ctx := context.Background()
	prefix := strings.TrimSuffix(store.Key(""), ":")

	if !a.Hold(ctx) || b.Hold(ctx) {
		t.Fatal("want a to take the lease and b to be refused")
	}
	if a.Role() != Leader || b.Role() != Follower {
		t.Fatalf("roles a %v b %v, want leader and follower", a.Role(), b.Role())
	}
	if !other.Hold(ctx) {
		t.Fatal("a lease of another scope was refused")
	}
	// By its own clock a holder stops leading when its lease may have
	// lapsed in Redis, and leads again once it renews.
	clk.Advance(LeaseTTL)
	if a.Role() != Follower {
		t.Fatalf("a holder whose lease ran out by its clock is %v, want follower", a.Role())
	}
	if !a.Hold(ctx) || a.Role() != Leader {
		t.Fatal("the holder could not renew its lease")
	}
	key := a.key(store)
	keys := redistest.Keys(t, prefix)
	if ttl := keys[key]; ttl <= 0 || ttl > LeaseTTL {
		t.Fatalf("lease %s has TTL %v, want at most %v", key, ttl, LeaseTTL)
	}

	// The TTL runs out (a crashed holder renews no more): removing the key
	// is what Redis does then.
	if err := store.Client().Del(ctx, key).Err(); err != nil {
		t.Fatal(err)
	}
	if !b.Hold(ctx) {
		t.Fatal("b could not take the expired lease")
	}
	if a.Hold(ctx) || a.Role() != Follower {
		t.Fatal("a renewed a lease b holds")
	}

	// The leader publishes; the others read it back.
	pub := Published{PassStart: time.Date(2026, 6, 1, 12, 0, 0, 123, time.UTC), Pages: 7}
	if err := b.Board().Publish(ctx, pub); err != nil {
		t.Fatal(err)
	}
	got, err := a.Board().Published(ctx)
	if err != nil || !got.PassStart.Equal(pub.PassStart) || got.Pages != 7 || got.Complete {
		t.Fatalf("published %+v, read %+v (%v)", pub, got, err)
	}
	if got, _ := other.Board().Published(ctx); !got.PassStart.IsZero() {
		t.Fatalf("another scope reads %+v", got)
	}

	// Released (the instance stops): a takes it at once; b's release of a
	// lease it no longer holds changes nothing.
	b.Release(ctx)
	if b.Role() != Follower || !a.Hold(ctx) {
		t.Fatal("a could not take the released lease")
	}
	b.Release(ctx)
	if b.Hold(ctx) {
		t.Fatal("b's release removed a's lease")
	}
	for k, ttl := range redistest.Keys(t, prefix) {
		if ttl <= 0 {
			t.Fatalf("key %s has no TTL", k)
		}
	}
}

// Without a store that answers, an instance harvests alone.
func TestLeaseWithoutStoreIsAlone(t *testing.T) {
	l := NewLease(func() *sharedstore.Store { return nil }, "caselaw", "", nil)
	if l.Hold(context.Background()) || l.Role() != Alone {
		t.Fatalf("without a store the role is %v, want alone", l.Role())
	}
}

// keep holds the lease at once, renews it every LeaseRenew on the
// lease's clock (so it still leads when a first hold would have lapsed),
// and releases it when its context ends.
func TestLeaseKeepRenewsAndReleases(t *testing.T) {
	store := redistest.Open(t, sharedstore.Options{})
	of := func() *sharedstore.Store { return store }
	clk := fakeclock.New(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC))
	a, b := NewLease(of, "caselaw", "", clk), NewLease(of, "caselaw", "", clk)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Keep(ctx); close(done) }()
	// Once keep waits on the clock, its hold is done.
	sleeping := func() { clk.AwaitTimer() }

	sleeping()
	if a.Role() != Leader || b.Hold(ctx) {
		t.Fatalf("keep did not take the lease: a is %v", a.Role())
	}
	clk.Advance(LeaseTTL) // the first hold's term, by the clock
	sleeping()
	if a.Role() != Leader {
		t.Fatalf("after a renewal a is %v, want leader", a.Role())
	}
	cancel()
	<-done
	if !b.Hold(context.Background()) {
		t.Fatal("keep did not release the lease when its context ended")
	}
}
