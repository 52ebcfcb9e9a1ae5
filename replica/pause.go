package replica

import (
	"context"
	"sync"
)

// Pause holds a harvest between pages while an operator wants it held
// (the admin API's pause and resume). The index keeps answering; only
// the requests to the platform stop. The zero value runs.
type Pause struct {
	mu      sync.Mutex
	resumed chan struct{} // open while paused; nil while running
}

// Pause holds the harvest before its next page. Pausing a paused
// harvest changes nothing.
func (p *Pause) Pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.resumed == nil {
		p.resumed = make(chan struct{})
	}
}

// Resume lets the harvest go on. Resuming a running harvest changes
// nothing.
func (p *Pause) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.resumed != nil {
		close(p.resumed)
		p.resumed = nil
	}
}

// Paused tells whether the harvest is held.
func (p *Pause) Paused() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.resumed != nil
}

// Gate is next behind the pause: it waits while the harvest is paused
// (or until ctx ends), then asks next (nil: go at once).
func (p *Pause) Gate(next func(context.Context) error) func(context.Context) error {
	return func(ctx context.Context) error {
		for {
			p.mu.Lock()
			resumed := p.resumed
			p.mu.Unlock()
			if resumed == nil {
				break
			}
			select {
			case <-resumed:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if next == nil {
			return nil
		}
		return next(ctx)
	}
}
