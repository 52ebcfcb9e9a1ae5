package clock

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
)

// The tests' clock is a Clock; an unset one is the wall clock.
func TestClocks(t *testing.T) {
	var _ Clock = fakeclock.New(time.Time{})
	var _ Clock = Wall{}
	if _, ok := Or(nil).(Wall); !ok {
		t.Error("Or(nil) is not the wall clock")
	}
	fake := fakeclock.New(time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC))
	if Or(fake) != Clock(fake) {
		t.Error("Or changed a clock it was given")
	}
	ran := false
	Or(fake).AfterFunc(time.Minute, func() { ran = true })
	fake.Advance(time.Minute)
	if !ran {
		t.Error("the fake clock's timer did not run")
	}
}

// Sleep returns when the clock has moved on by d, not before, or when its
// context ends.
func TestSleep(t *testing.T) {
	fake := fakeclock.New(time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC))
	slept := make(chan error, 1)
	go func() { slept <- Sleep(context.Background(), fake, time.Minute) }()
	fake.AwaitTimer() // until the goroutine has set its timer
	fake.Advance(59 * time.Second)
	select {
	case err := <-slept:
		t.Fatalf("Sleep returned %v a second early", err)
	default:
	}
	fake.Advance(time.Second)
	if err := <-slept; err != nil {
		t.Fatalf("Sleep: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, fake, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("Sleep with an ended context: %v", err)
	}
	if _, pending := fake.NextTimer(); pending {
		t.Error("Sleep left its timer behind")
	}
}
