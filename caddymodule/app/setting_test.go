package app

import (
	"strconv"
	"strings"
	"testing"
)

func TestSetting(t *testing.T) {
	var inForce []int
	s := NewSetting(func(v int) { inForce = append(inForce, v) })
	describe := strconv.Itoa
	newApp := func() *App {
		a := new(App)
		if err := provision(t, a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	last := func() int { return inForce[len(inForce)-1] }

	first := newApp()
	if err := s.Stage(first, 1, false, describe); err != nil || last() != 1 {
		t.Fatalf("the first config applies at once: %v %v", inForce, err)
	}
	if err := s.Stage(first, 2, true, describe); err != nil || last() != 2 {
		t.Fatalf("an explicit value of the first config wins over its default: %v %v", inForce, err)
	}
	if err := s.Stage(first, 3, true, describe); err == nil || !strings.Contains(err.Error(), "set to 3 here but to 2") {
		t.Fatalf("two explicit values in one config: %v", err)
	}
	if err := s.Stage(first, 5, false, describe); err != nil || last() != 2 {
		t.Fatalf("a default never replaces an explicit value: %v %v", inForce, err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}

	// A reload: staged, in force when it starts.
	next := newApp()
	if err := s.Stage(next, 7, true, describe); err != nil || last() != 2 {
		t.Fatalf("a provisioned config changed the running one's value: %v %v", inForce, err)
	}
	// A config that fails to load: cleaned up, never started.
	failed := newApp()
	if err := s.Stage(failed, 9, true, describe); err != nil {
		t.Fatal(err)
	}
	_ = failed.Cleanup()
	if last() != 2 || len(s.byApp) != 2 {
		t.Fatalf("the failed config left its value: %v, %d configs remembered", inForce, len(s.byApp))
	}
	if err := next.Start(); err != nil || last() != 7 {
		t.Fatalf("the reloaded config's value: %v %v", inForce, err)
	}
	_ = first.Stop()
	_ = first.Cleanup()
	if len(s.byApp) != 1 {
		t.Errorf("an unloaded config stays remembered: %d", len(s.byApp))
	}
	_ = next.Stop()
}
