package sharedstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/internal/redistest"
	"github.com/besluitbron/besluitbron/sharedstore"
)

// eventually polls cond (bounded): it waits for an event, not for time.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestKeysAndTags(t *testing.T) {
	s := redistest.Open(t, sharedstore.Options{})
	if k := s.Tagged("obv", "tat"); !strings.HasPrefix(k, "{bbtest-") || !strings.HasSuffix(k, ":obv}:tat") {
		t.Fatalf("Tagged = %q", k)
	}
	if k := s.Key("s", "alles", "id"); !strings.HasSuffix(k, ":s:alles:id") {
		t.Fatalf("Key = %q", k)
	}
}

func TestBadURLsSayWhatToWrite(t *testing.T) {
	for _, u := range []string{"", "localhost:6379", "http://x:1", "redis://"} {
		_, err := sharedstore.Open(sharedstore.Options{URL: u})
		if err == nil || !strings.Contains(err.Error(), "redis://") {
			t.Errorf("Open(%q) = %v, want an error naming redis://", u, err)
		}
	}
	if _, err := sharedstore.Open(sharedstore.Options{URL: redistest.URL(), Prefix: "a{b}"}); err == nil {
		t.Error("a prefix with braces was accepted")
	}
}

func TestDegradesOnCutAndRejoins(t *testing.T) {
	p := redistest.NewProxy(t)
	// The cut refuses and closes connections, so a call through it fails
	// at once; the timeout only bounds a call the busy machine is slow
	// to answer, and must not be what fails the first one.
	s := redistest.Open(t, sharedstore.Options{URL: p.URL(), ProbeEvery: 10 * time.Millisecond, Timeout: 5 * time.Second, Instances: 3})
	rejoined := make(chan struct{}, 4)
	s.OnRejoin(func() { rejoined <- struct{}{} })
	set := func() error {
		return s.Do(context.Background(), func(ctx context.Context, c redis.UniversalClient) error {
			return c.Set(ctx, s.Key("x"), "1", time.Minute).Err()
		})
	}
	if err := set(); err != nil || !s.Healthy() {
		t.Fatalf("first call: %v, healthy %v", err, s.Healthy())
	}
	p.Cut()
	if err := set(); err == nil {
		t.Fatal("a call through a cut proxy succeeded")
	}
	if s.Healthy() || s.Status().Mode != "degraded" {
		t.Fatalf("after a failed call: %+v", s.Status())
	}
	if err := set(); err != sharedstore.ErrDegraded {
		t.Fatalf("while degraded Do = %v, want ErrDegraded at once", err)
	}
	p.Restore()
	select {
	case <-rejoined:
	case <-time.After(10 * time.Second):
		t.Fatal("never rejoined")
	}
	st := s.Status()
	if !s.Healthy() || st.Rejoins != 1 || st.Degradations != 1 || st.Instances != 3 {
		t.Fatalf("after rejoin: %+v", st)
	}
	if err := set(); err != nil {
		t.Fatal(err)
	}
}

func TestNilIsAnAnswerNotTrouble(t *testing.T) {
	s := redistest.Open(t, sharedstore.Options{})
	err := s.Do(context.Background(), func(ctx context.Context, c redis.UniversalClient) error {
		return c.Get(ctx, s.Key("absent")).Err()
	})
	if err != redis.Nil || !s.Healthy() {
		t.Fatalf("Get of an absent key: %v, healthy %v", err, s.Healthy())
	}
}

func TestPubSubReachesEveryInstance(t *testing.T) {
	a := redistest.Open(t, sharedstore.Options{})
	b := redistest.Open(t, sharedstore.Options{URL: redistest.URL(), Prefix: strings.TrimSuffix(a.Key(""), ":")})
	got := make(chan string, 2)
	unsub := b.Subscribe(b.Channel("purge", "obv"), func(p string) { got <- p })
	defer unsub()
	// The subscription is set up asynchronously: publish until heard.
	eventually(t, "the notice", func() bool {
		_ = a.Publish(context.Background(), a.Channel("purge", "obv"), "gen-2")
		select {
		case p := <-got:
			return p == "gen-2"
		case <-time.After(20 * time.Millisecond):
			return false
		}
	})
}

// A caller whose own context ends during a call (a hang-up, a search's
// deadline) does not make the store degraded: Redis answered nothing
// wrong. (go-redis observes a deadline mid-call, a bare cancellation only
// between calls: the store's own timeout bounds those.)
func TestCallerDeadlineIsNotRedisTrouble(t *testing.T) {
	p := redistest.NewProxy(t)
	s := redistest.Open(t, sharedstore.Options{URL: p.URL(), Timeout: 5 * time.Second})
	p.Slow(200 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	err := s.Do(ctx, func(ctx context.Context, c redis.UniversalClient) error { return c.Ping(ctx).Err() })
	cancel()
	if err == nil {
		t.Fatal("a slowed call finished within the caller's 20 ms")
	}
	if !s.Healthy() {
		t.Fatalf("the caller's own deadline made the store degraded: %v", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	_ = s.Do(ctx, func(ctx context.Context, c redis.UniversalClient) error { return c.Ping(ctx).Err() })
	if !s.Healthy() {
		t.Fatal("a caller that had gone made the store degraded")
	}
	p.Restore()
}
