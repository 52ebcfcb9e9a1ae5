package sharedstore

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// This file carries notices between instances (a purge, a flight's
// answer, a budget's next turn) over Redis pub/sub. A notice is a hint:
// it saves waiting for a poll, and every user of it also polls, since a
// notice sent while the subscription was reconnecting is lost.

// Channel returns the channel name for parts, under the prefix.
func (s *Store) Channel(parts ...string) string { return s.Key(append([]string{"ch"}, parts...)...) }

// Subscribe calls f with every notice published on channel (by any
// instance, this one included) until the returned function is called. f
// runs in the subscription's goroutine: keep it short.
func (s *Store) Subscribe(channel string, f func(payload string)) (unsubscribe func()) {
	sub := &subscriber{f: f}
	s.subMu.Lock()
	first := len(s.subs[channel]) == 0
	s.subs[channel] = append(s.subs[channel], sub)
	if s.ps == nil {
		s.ps = s.client.Subscribe(context.Background(), channel)
		s.bg.Add(1)
		go s.dispatch(s.ps)
	} else if first {
		_ = s.ps.Subscribe(context.Background(), channel)
	}
	s.subMu.Unlock()
	return func() {
		s.subMu.Lock()
		defer s.subMu.Unlock()
		list := s.subs[channel]
		for i, x := range list {
			if x == sub {
				list = append(list[:i:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(s.subs, channel)
			if s.ps != nil {
				_ = s.ps.Unsubscribe(context.Background(), channel)
			}
			return
		}
		s.subs[channel] = list
	}
}

func (s *Store) dispatch(ps *redis.PubSub) {
	defer s.bg.Done()
	ch := ps.Channel(redis.WithChannelHealthCheckInterval(5*time.Second), redis.WithChannelSendTimeout(time.Second))
	for m := range ch {
		s.subMu.Lock()
		list := append([]*subscriber(nil), s.subs[m.Channel]...)
		s.subMu.Unlock()
		for _, sub := range list {
			sub.f(m.Payload)
		}
	}
}

// Publish sends payload on channel (bounded by the store's deadline; an
// error only means the others will find out by polling).
func (s *Store) Publish(ctx context.Context, channel, payload string) error {
	return s.Do(ctx, func(ctx context.Context, c redis.UniversalClient) error {
		return c.Publish(ctx, channel, payload).Err()
	})
}
