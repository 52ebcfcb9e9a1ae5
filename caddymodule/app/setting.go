package app

import (
	"fmt"
	"sync"
)

// Setting is one setting of a shared, reload-surviving object (a pooled
// limiter, say) that several handlers of one config may set. Each config
// stages its value; the value of the config that started last is in
// force.
//
// Within one config an explicit value wins over a default one, and two
// explicit values must agree. The first config that ever stages a value
// applies it at once, since no running config uses the object yet; every
// later config's value applies when that config starts (App.Start), so a
// config that fails to load never changes it.
type Setting[T comparable] struct {
	apply func(T)

	mu      sync.Mutex
	byApp   map[*App]*settingValue[T]
	first   *App // the config that applied at once, while it provisions
	applied bool
}

type settingValue[T comparable] struct {
	v        T
	explicit bool
}

// NewSetting returns a setting that apply puts in force.
func NewSetting[T comparable](apply func(T)) *Setting[T] {
	return &Setting[T]{apply: apply, byApp: map[*App]*settingValue[T]{}}
}

// Stage records the value of one handler of config a. describe names a
// value in the error of two explicit values that differ.
func (s *Setting[T]) Stage(a *App, v T, explicit bool, describe func(T) string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.byApp[a]
	switch {
	case !ok:
		s.byApp[a] = &settingValue[T]{v, explicit}
		a.OnStart(func() { s.applyFor(a) })
		a.onCleanup(func() {
			s.mu.Lock()
			delete(s.byApp, a)
			if s.first == a {
				s.first = nil
			}
			s.mu.Unlock()
		})
	case explicit && old.explicit && old.v != v:
		return fmt.Errorf("set to %s here but to %s in another handler of the same config", describe(v), describe(old.v))
	case explicit && !old.explicit:
		s.byApp[a] = &settingValue[T]{v, true}
	}
	if !s.applied || s.first == a {
		s.applied, s.first = true, a
		s.apply(s.byApp[a].v)
	}
	return nil
}

func (s *Setting[T]) applyFor(a *App) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sv, ok := s.byApp[a]; ok {
		s.apply(sv.v)
	}
	if s.first == a {
		s.first = nil // started: later configs wait for their start
	}
}
