// Package replicatest holds what the tests of several replicas share.
package replicatest

import (
	"context"
	"sync"

	"github.com/besluitbron/besluitbron/replica"
)

// MemBoard is a replica.Board in memory, where the app keeps it in Redis:
// the tests of a shared harvest give one to a leader and its followers.
type MemBoard struct {
	mu sync.Mutex
	p  replica.Published
}

// Publish keeps p.
func (b *MemBoard) Publish(_ context.Context, p replica.Published) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.p = p
	return nil
}

// Published is what was published last.
func (b *MemBoard) Published(context.Context) (replica.Published, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.p, nil
}

var _ replica.Board = (*MemBoard)(nil)
