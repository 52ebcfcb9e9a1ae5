package inbound

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"
)

const (
	shardBits  = 6
	shardCount = 1 << shardBits
)

// Keyed holds one token bucket per key (session or client address) in
// sharded maps. A key costs one map slot of 16 bytes (a 64-bit hash of the
// key and its theoretical arrival time), never the key's text. A key whose
// bucket is full carries no information and is dropped by Sweep; a key
// that was refused is never stored. Past the cap, inserting a key first
// drops the full buckets of its shard and then evicts the keys nearest to
// a full bucket (an evicted key starts again with a full bucket).
//
// Two keys whose 64-bit hashes collide share a bucket; among a million
// keys the chance of any collision is about 3 in 100 million.
type Keyed struct {
	seed     maphash.Seed
	perShard atomic.Int64
	evicted  atomic.Uint64
	shards   [shardCount]keyShard
}

type keyShard struct {
	mu sync.Mutex
	m  map[uint64]int64 // key hash -> theoretical arrival time (unix ns)
	_  [48]byte         // keep shards on separate cache lines
}

// NewKeyed returns a keyed layer holding at most maxKeys keys.
func NewKeyed(maxKeys int) *Keyed {
	k := &Keyed{seed: maphash.MakeSeed()}
	for i := range k.shards {
		k.shards[i].m = make(map[uint64]int64)
	}
	k.SetMaxKeys(maxKeys)
	return k
}

// SetMaxKeys changes the cap in place. A lower cap is enforced as keys are
// inserted and by the next Sweep.
func (k *Keyed) SetMaxKeys(n int) {
	per := int64(n+shardCount-1) / shardCount
	k.perShard.Store(max(per, 1))
}

// MaxKeys returns the cap (rounded up to a multiple of the shard count).
func (k *Keyed) MaxKeys() int { return int(k.perShard.Load()) * shardCount }

// Hash returns the key's hash, the only form in which it is stored.
func (k *Keyed) Hash(key string) uint64 { return maphash.String(k.seed, key) }

func (k *Keyed) shard(h uint64) *keyShard { return &k.shards[h>>(64-shardBits)] }

func (k *Keyed) reserve(h uint64, now int64, l *Limit) result {
	s := k.shard(h)
	s.mu.Lock()
	tat, found := s.m[h]
	next, r := gcra(tat, now, l)
	if r.ok {
		if !found && int64(len(s.m)) >= k.perShard.Load() {
			k.evicted.Add(uint64(s.makeRoom(now, k.perShard.Load())))
		}
		s.m[h] = next
	}
	s.mu.Unlock()
	return r
}

func (k *Keyed) peek(h uint64, now int64, l *Limit) result {
	s := k.shard(h)
	s.mu.Lock()
	tat := s.m[h]
	s.mu.Unlock()
	_, r := gcra(tat, now, l)
	return r
}

func (k *Keyed) undo(h uint64, now int64, r result) {
	if !r.ok || r.unlimited {
		return
	}
	s := k.shard(h)
	s.mu.Lock()
	if tat, ok := s.m[h]; ok {
		if tat -= r.every; tat <= now {
			delete(s.m, h) // a full bucket: nothing to remember
		} else {
			s.m[h] = tat
		}
	}
	s.mu.Unlock()
}

// makeRoom frees at least one slot in a shard at its cap: it drops the
// full buckets, and if that is not enough, the eighth of the keys nearest
// to a full bucket (one pass pays for many inserts). It returns how many
// keys it evicted (full buckets are not counted: they lose nothing).
func (s *keyShard) makeRoom(now, capacity int64) int {
	var sum float64
	for h, tat := range s.m {
		if tat <= now {
			delete(s.m, h)
			continue
		}
		sum += float64(tat - now)
	}
	if int64(len(s.m)) < capacity {
		return 0
	}
	target := capacity - capacity/8 - 1
	mean := int64(sum / float64(len(s.m)))
	evicted := 0
	for pass := 0; pass < 2 && int64(len(s.m)) > target; pass++ {
		for h, tat := range s.m {
			if int64(len(s.m)) <= target {
				break
			}
			if pass == 1 || tat-now <= mean {
				delete(s.m, h)
				evicted++
			}
		}
	}
	return evicted
}

// Sweep drops every key whose bucket is full at now (an idle key), and
// evicts keys over the cap. It returns the number of keys left.
func (k *Keyed) Sweep(now time.Time) int {
	t := now.UnixNano()
	capacity := k.perShard.Load()
	n := 0
	for i := range k.shards {
		s := &k.shards[i]
		s.mu.Lock()
		for h, tat := range s.m {
			if tat <= t {
				delete(s.m, h)
			}
		}
		if int64(len(s.m)) > capacity {
			k.evicted.Add(uint64(s.makeRoom(t, capacity+1)))
		}
		n += len(s.m)
		s.mu.Unlock()
	}
	return n
}

// Len returns the number of keys held.
func (k *Keyed) Len() int {
	n := 0
	for i := range k.shards {
		s := &k.shards[i]
		s.mu.Lock()
		n += len(s.m)
		s.mu.Unlock()
	}
	return n
}

// Evicted returns how many keys were dropped over the cap while their
// bucket was not yet full.
func (k *Keyed) Evicted() uint64 { return k.evicted.Load() }
