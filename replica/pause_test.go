package replica

import (
	"context"
	"errors"
	"testing"
)

// A paused gate holds the harvest until it resumes or its context ends,
// and asks the gate behind it only then.
func TestPauseHoldsTheGate(t *testing.T) {
	var p Pause
	var asked int
	gate := p.Gate(func(context.Context) error { asked++; return nil })
	if err := gate(context.Background()); err != nil || asked != 1 || p.Paused() {
		t.Fatalf("running: %v, asked %d", err, asked)
	}
	p.Pause()
	p.Pause() // twice is once
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- gate(ctx) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || asked != 1 || !p.Paused() {
		t.Fatalf("paused, context ended: %v, asked %d", err, asked)
	}
	go func() { done <- gate(context.Background()) }()
	p.Resume()
	p.Resume() // twice is once
	if err := <-done; err != nil || p.Paused() {
		t.Fatalf("resumed: %v", err)
	}
	if asked != 2 {
		t.Fatalf("the gate behind was asked %d times, want 2 (never while paused)", asked)
	}
}
