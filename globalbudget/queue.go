package globalbudget

import (
	"container/list"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/besluitbron/besluitbron/clock"
	"github.com/besluitbron/besluitbron/fairqueue"
)

// This instance's local queue: its waiting calls by flow (client,
// session), in order, with fairqueue's bounds against made-up names and
// floods. Which flow goes next is Redis's decision (decide.lua); this
// file only keeps the calls and tells the pump which flows changed.

type result struct {
	adm fairqueue.Admission
	err error
	// moved: Redis failed while the call waited; it goes to the local
	// share (or back to Redis after a rejoin).
	moved bool
}

type completion struct {
	w *waiter
	r result
}

// deliver hands results to their callers, never under the budget's lock.
func deliver(out []completion) {
	for _, c := range out {
		c.w.ch <- c.r
	}
}

const (
	stQueued = iota
	stDone
)

type waiter struct {
	f       *flow
	cost    float64
	arrived int64 // µs
	ch      chan result
	state   int
	timer   clock.Timer
	elem    *list.Element // in its client's waiters, arrival order
}

// flow is one session's waiting calls on this instance; its id names it
// in Redis.
type flow struct {
	id              string
	client, session string
	q               []*waiter
	registered      bool // Redis holds it
}

type fkey struct{ client, session string }

// clientInfo is what this instance remembers of a client: its session
// names (bounded), its global usage as of its last admission here, and its
// waiting calls.
type clientInfo struct {
	key     string
	names   map[string]int64 // named session → last call (µs)
	used    float64
	sess    map[string]float64
	last    int64
	queued  int
	queuedU float64
	waiters list.List
}

type queue struct {
	flows   map[fkey]*flow
	byID    map[string]*flow
	dirty   map[*flow]struct{}
	clients map[string]*clientInfo
	seq     uint64
	queued  int
	queuedU float64
}

func (q *queue) init() {
	q.flows = map[fkey]*flow{}
	q.byID = map[string]*flow{}
	q.dirty = map[*flow]struct{}{}
	q.clients = map[string]*clientInfo{}
}

func (q *queue) markDirty(f *flow) { q.dirty[f] = struct{}{} }

func (q *queue) all() []*waiter {
	var out []*waiter
	for _, f := range q.flows {
		out = append(out, f.q...)
	}
	return out
}

func (q *queue) recountLocked() {
	q.queuedU = 0
	for _, c := range q.clients {
		c.queuedU = 0
		for e := c.waiters.Front(); e != nil; e = e.Next() {
			c.queuedU += e.Value.(*waiter).cost
		}
		q.queuedU += c.queuedU
	}
}

// lookupLocked returns key's client, and the session name the call counts
// on: a name past MaxSessions goes to the client's own session ("").
func (b *Budget) lookupLocked(key fairqueue.Key, now int64) (*clientInfo, string) {
	q := &b.q
	forget := b.forgetUS()
	c := q.clients[key.Client]
	if c == nil {
		if len(q.clients) >= b.cfg.MaxClients {
			b.trimClientsLocked(now)
		}
		c = &clientInfo{key: key.Client, names: map[string]int64{}, sess: map[string]float64{}}
		q.clients[key.Client] = c
	} else if now-c.last >= forget {
		c.used = 0
	}
	c.last = now
	name := key.Session
	if name != "" {
		if _, ok := c.names[name]; !ok && len(c.names) >= b.cfg.MaxSessions {
			for k, last := range c.names {
				if now-last >= forget && q.flows[fkey{c.key, k}] == nil {
					delete(c.names, k)
					delete(c.sess, k)
				}
			}
			if len(c.names) >= b.cfg.MaxSessions {
				name = ""
			}
		}
		if name != "" {
			c.names[name] = now
		}
	}
	return c, name
}

// trimClientsLocked forgets the clients idle longest (none with calls
// waiting) until at most 9/10 of MaxClients are left: made-up addresses
// cannot grow memory, and the cost is paid once per tenth.
func (b *Budget) trimClientsLocked(now int64) {
	q := &b.q
	idle := make([]*clientInfo, 0, len(q.clients))
	for _, c := range q.clients {
		if c.queued == 0 {
			idle = append(idle, c)
		}
	}
	sort.Slice(idle, func(i, j int) bool { return idle[i].last < idle[j].last })
	keep := b.cfg.MaxClients * 9 / 10
	for _, c := range idle {
		if len(q.clients) <= keep {
			return
		}
		delete(q.clients, c.key)
	}
}

// enqueueLocked queues a call, refusing the heaviest client's newest call
// when the local queue is full (this one if its own client is the
// heaviest), as fairqueue does.
func (b *Budget) enqueueLocked(key fairqueue.Key, cost float64) (*waiter, []completion) {
	q := &b.q
	now := b.nowUS()
	c, name := b.lookupLocked(key, now)
	cost = math.Min(cost, b.cfg.Capacity)
	w := &waiter{cost: cost, arrived: now, ch: make(chan result, 1)}
	var out []completion
	if b.cfg.MaxQueue > 0 && q.queued >= b.cfg.MaxQueue {
		h := b.heaviestLocked()
		if c.queued > 0 && !heavier(h, c) {
			b.rejected++
			w.state = stDone
			out = append(out, completion{w, result{err: b.rejectionLocked(c, cost, fairqueue.ReasonQueueFull)}})
			return w, out
		}
		victim := h.waiters.Back().Value.(*waiter)
		b.q.removeLocked(victim)
		b.rejected++
		out = append(out, completion{victim, result{err: b.rejectionLocked(h, victim.cost, fairqueue.ReasonQueueFull)}})
	}
	fk := fkey{c.key, name}
	f := q.flows[fk]
	if f == nil {
		q.seq++
		f = &flow{id: b.me + ":" + strconv.FormatUint(q.seq, 36), client: c.key, session: name}
		q.flows[fk] = f
		q.byID[f.id] = f
	}
	w.f = f
	f.q = append(f.q, w)
	if len(f.q) <= 2 {
		q.markDirty(f) // its head or next call changed
	}
	w.elem = c.waiters.PushBack(w)
	c.queued++
	c.queuedU += cost
	q.queued++
	q.queuedU += cost
	if b.cfg.MaxWait > 0 {
		w.timer = b.clock.AfterFunc(b.cfg.MaxWait, func() { b.expire(w) })
	}
	return w, out
}

func heavier(a, c *clientInfo) bool {
	if a.queuedU != c.queuedU {
		return a.queuedU > c.queuedU
	}
	return a.queued > c.queued
}

// heaviestLocked returns the client holding the most queued work (a scan:
// only a full queue needs it).
func (b *Budget) heaviestLocked() *clientInfo {
	var h *clientInfo
	for _, c := range b.q.clients {
		if c.queued > 0 && (h == nil || heavier(c, h)) {
			h = c
		}
	}
	return h
}

// rejectionLocked estimates when a call of c would go: its backlog at the
// full refill rate, capped by the starvation bound (one call per window).
func (b *Budget) rejectionLocked(c *clientInfo, cost float64, reason string) *fairqueue.Rejection {
	W := b.cfg.Window
	own := c.queuedU + cost
	d := time.Duration(own / b.cfg.Capacity * float64(W))
	d = min(d, time.Duration(c.queued+1)*W)
	if pu := b.pausedUntil - b.nowUS(); pu > 0 {
		d += time.Duration(pu) * time.Microsecond
	}
	return &fairqueue.Rejection{Reason: reason, RetryAfter: d}
}

func (b *Budget) expire(w *waiter) {
	b.mu.Lock()
	if w.state != stQueued {
		b.mu.Unlock()
		return
	}
	c := b.q.clients[w.f.client]
	b.q.removeLocked(w)
	b.rejected++
	rej := b.rejectionLocked(c, w.cost, fairqueue.ReasonWaitTooLong)
	b.mu.Unlock()
	deliver([]completion{{w, result{err: rej}}})
	b.poke()
}

// removeLocked takes a waiting call out (a hang-up, an expiry, a refusal).
func (q *queue) removeLocked(w *waiter) {
	f := w.f
	for i, x := range f.q {
		if x == w {
			copy(f.q[i:], f.q[i+1:])
			f.q[len(f.q)-1] = nil
			f.q = f.q[:len(f.q)-1]
			if i <= 1 {
				q.markDirty(f)
			}
			break
		}
	}
	q.doneLocked(w)
}

// doneLocked updates the counts for a call that left the queue.
func (q *queue) doneLocked(w *waiter) {
	w.state = stDone
	if w.timer != nil {
		w.timer.Stop()
	}
	if c := q.clients[w.f.client]; c != nil {
		c.waiters.Remove(w.elem)
		c.queued--
		c.queuedU -= w.cost
		if c.queued == 0 {
			c.queuedU = 0
		}
	}
	q.queued--
	q.queuedU -= w.cost
	if q.queued == 0 {
		q.queuedU = 0
	}
}

// popLocked takes f's head call for an admission.
func (q *queue) popLocked(f *flow) *waiter {
	w := f.q[0]
	f.q[0] = nil
	f.q = f.q[1:]
	q.markDirty(f)
	q.doneLocked(w)
	return w
}

// drainLocked ends every waiting call with err (or moves it, when err is
// nil) and forgets the flows: Redis no longer holds them for us (they
// lapse with our heartbeat, or a rejoin drops them).
func (q *queue) drainLocked(err error) []completion {
	var out []completion
	for _, f := range q.flows {
		for _, w := range f.q {
			q.doneLocked(w)
			out = append(out, completion{w, result{err: err, moved: err == nil}})
		}
	}
	q.flows = map[fkey]*flow{}
	q.byID = map[string]*flow{}
	q.dirty = map[*flow]struct{}{}
	return out
}

// update is one flow change for the script.
type update struct {
	del              bool
	id, client, sess string
	cost, next       float64
	f                *flow
	registeredBefore bool
}

// collectLocked takes up to maxBatch changed flows: an upsert for a flow
// with calls (head cost, next cost or -1), a delete for one Redis holds
// that has none left.
func (q *queue) collectLocked() []update {
	var ups []update
	for f := range q.dirty {
		if len(ups) == maxBatch {
			break
		}
		delete(q.dirty, f)
		if len(f.q) == 0 {
			if q.flows[fkey{f.client, f.session}] == f {
				delete(q.flows, fkey{f.client, f.session})
			}
			delete(q.byID, f.id)
			if f.registered {
				ups = append(ups, update{del: true, id: f.id, f: f})
				f.registered = false
			}
			continue
		}
		next := -1.0
		if len(f.q) > 1 {
			next = f.q[1].cost
		}
		ups = append(ups, update{id: f.id, client: f.client, sess: f.session, cost: f.q[0].cost, next: next, f: f, registeredBefore: f.registered})
		f.registered = true
	}
	return ups
}

// useLocked records a client's and session's global usage as the script
// reported it after an admission here.
func (q *queue) useLocked(client, session string, used, sused float64, now int64) {
	c := q.clients[client]
	if c == nil {
		return
	}
	c.used, c.last = used, now
	c.sess[session] = sused
}

func (q *queue) unuseLocked(client, session string, cost float64) {
	c := q.clients[client]
	if c == nil || client == fairqueue.Shared {
		return
	}
	c.used = math.Max(0, c.used-cost)
	if v, ok := c.sess[session]; ok {
		c.sess[session] = math.Max(0, v-cost)
	}
}
