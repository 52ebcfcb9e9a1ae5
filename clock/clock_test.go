package clock

import (
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
