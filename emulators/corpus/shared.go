package corpus

import "sync"

// Shared keeps the generated data of the last few keys (a seed, a day, a
// size) for the whole process, so that every emulator built with the same
// key serves one copy, generated once. A test binary builds dozens of
// emulators with the same seed and day; generating each one's corpus anew
// cost seconds of every test run.
//
// What it keeps must not change once built: handlers share it, so any
// lazily built part guards itself (a sync.Once, a mutex). The zero value
// keeps DefaultShared keys.
type Shared[K comparable, V any] struct {
	// Max is how many keys it keeps; 0 means DefaultShared. A
	// long-running emulator that is asked on another day gets a new key,
	// and the oldest goes.
	Max int

	mu    sync.Mutex
	built map[K]func() V
	order []K
}

// DefaultShared is how many keys a Shared keeps unless told otherwise.
const DefaultShared = 4

// Get returns the value kept for k, building it with build on first use.
// Concurrent callers of one key wait for the one build; the lock is not
// held while it runs, so other keys build at the same time.
func (s *Shared[K, V]) Get(k K, build func() V) V {
	s.mu.Lock()
	get, ok := s.built[k]
	if !ok {
		if s.built == nil {
			s.built = map[K]func() V{}
		}
		get = sync.OnceValue(build)
		s.built[k] = get
		s.order = append(s.order, k)
		limit := s.Max
		if limit <= 0 {
			limit = DefaultShared
		}
		for len(s.order) > limit {
			delete(s.built, s.order[0])
			s.order = s.order[1:]
		}
	}
	s.mu.Unlock()
	return get()
}
