package fairqueue

import (
	"container/heap"
	"container/list"
)

// Clients and their sessions: finding them, the bounds on what is
// remembered, and the choice between one client's sessions.

// tags are a queue member's scheduling state (a client among clients, a
// session within its client).
type tags struct {
	seq        uint64
	since      int64   // start of the current wait: deadline = since + window
	start      float64 // virtual start tag of the head call
	finish     float64 // virtual finish tag of the head call
	lastFinish float64 // finish tag of the last call served
	epoch      uint64
	idx        int           // index in the ready heap, -1 when not backlogged
	elem       *list.Element // element in the waiting list
}

func (t *tags) tag() *tags { return t }

type client struct {
	tags
	key      string
	used     float64
	last     int64 // last arrival or admission
	sessions map[string]*sess
	named    int           // named sessions in sessions (all but "")
	idle     *list.Element // element in Budget.idle while nothing is queued

	queued  int
	queuedU float64
	heavyAt int // index in Budget.heavy, -1 when nothing is queued
	// oldest and newest are the ends of the client's waiting calls in
	// arrival order.
	oldest, newest *waiter
	// head is the call that goes when the client is served next; headFair
	// says whether its session was the fair choice within the client.
	head     *waiter
	headFair bool

	// The sessions' queue: their own virtual time and epoch.
	ready   tagHeap[*sess]
	waiting list.List
	vtime   float64
	sepoch  uint64
}

type sess struct {
	tags
	key   string
	c     *client
	used  float64
	last  int64
	queue []*waiter
}

func (c *client) weight(capacity float64) float64 {
	if c.key == Shared {
		return 1
	}
	return 1 / (1 + c.used/capacity)
}

func (s *sess) weight(capacity float64) float64 {
	if s.c.key == Shared {
		return 1
	}
	return 1 / (1 + s.used/capacity)
}

// lookupLocked returns key's client and session, creating them, and
// forgets what has been idle for Forget. A name past MaxSessions goes to
// the client's own session, so made-up names cannot grow memory.
func (b *Budget) lookupLocked(key Key, now int64) (*client, *sess) {
	forget := int64(b.cfg.Forget)
	b.forgetIdleLocked(now)
	c := b.clients[key.Client]
	if c == nil {
		b.trimClientsLocked(b.cfg.MaxClients - 1)
		b.seq++
		c = &client{key: key.Client, sessions: make(map[string]*sess, 1), last: now, heavyAt: -1}
		c.seq, c.idx = b.seq, -1
		c.idle = b.idle.PushBack(c)
		b.clients[key.Client] = c
	} else if c.queued == 0 && now-c.last >= forget {
		c.used, c.lastFinish = 0, 0
	}
	name := key.Session
	s := c.sessions[name]
	if s == nil && name != "" && c.named >= b.cfg.MaxSessions {
		b.forgetSessionsLocked(c, now)
		if c.named >= b.cfg.MaxSessions {
			name = ""
			s = c.sessions[name]
		}
	}
	if s == nil {
		b.seq++
		s = &sess{key: name, c: c, last: now}
		s.seq, s.idx = b.seq, -1
		c.sessions[name] = s
		b.nsess++
		if name != "" {
			c.named++
		}
	} else if len(s.queue) == 0 && now-s.last >= forget {
		s.used, s.lastFinish = 0, 0
	}
	return c, s
}

// forgetIdleLocked forgets the clients idle for Forget: the idle list is
// in order of last call, so this costs nothing when there is nothing to
// forget.
func (b *Budget) forgetIdleLocked(now int64) {
	forget := int64(b.cfg.Forget)
	for e := b.idle.Front(); e != nil; e = b.idle.Front() {
		c := e.Value.(*client)
		if now-c.last < forget {
			return
		}
		b.dropClientLocked(c)
	}
}

// trimClientsLocked forgets the clients idle longest until at most n are
// remembered or none is idle (clients with calls waiting are never
// forgotten, so the count can pass MaxClients by at most MaxQueue, until
// they go idle).
func (b *Budget) trimClientsLocked(n int) {
	for len(b.clients) > n {
		e := b.idle.Front()
		if e == nil {
			return
		}
		b.dropClientLocked(e.Value.(*client))
	}
}

func (b *Budget) dropClientLocked(c *client) {
	b.idle.Remove(c.idle)
	c.idle = nil
	b.nsess -= len(c.sessions)
	delete(b.clients, c.key)
}

// forgetSessionsLocked forgets c's idle named sessions whose usage is
// forgotten (at most MaxSessions of them: cheap).
func (b *Budget) forgetSessionsLocked(c *client, now int64) {
	forget := int64(b.cfg.Forget)
	for k, s := range c.sessions {
		if k != "" && len(s.queue) == 0 && now-s.last >= forget {
			delete(c.sessions, k)
			c.named--
			b.nsess--
		}
	}
}

// enqueueLocked puts a new call at the end of its session's queue.
func (b *Budget) enqueueLocked(w *waiter, now int64) {
	s := w.s
	c := s.c
	s.queue = append(s.queue, w)
	w.prev = c.newest
	if c.newest != nil {
		c.newest.next = w
	} else {
		c.oldest = w
	}
	c.newest = w
	c.queued++
	c.queuedU += w.cost
	b.queued++
	b.queuedU += w.cost
	if c.queued == 1 {
		b.idle.Remove(c.idle)
		c.idle = nil
		heap.Push(&b.heavy, c)
	} else {
		heap.Fix(&b.heavy, c.heavyAt)
	}
	if len(s.queue) == 1 {
		b.sessBackloggedLocked(s, now)
	}
	switch {
	case c.queued == 1:
		b.setHeadLocked(c, now)
		b.becomeBackloggedLocked(c, now)
	case len(s.queue) == 1:
		// A session joined a waiting client: it may be the fairer choice.
		if b.setHeadLocked(c, now) {
			b.retagLocked(c)
		}
	}
}

// sessBackloggedLocked tags a session's first waiting call and puts the
// session in its client's queue structures.
func (b *Budget) sessBackloggedLocked(s *sess, now int64) {
	c := s.c
	if s.epoch != c.sepoch {
		s.lastFinish, s.epoch = 0, c.sepoch
	}
	s.start = max(c.vtime, s.lastFinish)
	s.finish = s.start + s.queue[0].cost/s.weight(b.cfg.Capacity)
	s.since = now
	s.elem = c.waiting.PushBack(s)
	heap.Push(&c.ready, s)
	b.waitSess++
}

// sessLeaveLocked takes an empty session out of its client's queue
// structures.
func (b *Budget) sessLeaveLocked(s *sess) {
	c := s.c
	heap.Remove(&c.ready, s.idx)
	c.waiting.Remove(s.elem)
	s.elem = nil
	b.waitSess--
	if c.ready.Len() == 0 {
		c.sepoch++
		c.vtime = 0
	}
}

// setHeadLocked chooses which of c's sessions goes when c is served next:
// the fair choice (least finish tag), unless a session has waited a whole
// window, in which case the one waiting longest. It reports whether the
// head call changed.
func (b *Budget) setHeadLocked(c *client, now int64) bool {
	s := c.ready[0]
	fair := true
	if oldest := c.waiting.Front().Value.(*sess); oldest != s && now-oldest.since >= b.windowNS {
		s, fair = oldest, false
	}
	w := s.queue[0]
	c.headFair = fair
	if w == c.head {
		return false
	}
	if c.head != nil {
		b.headNS -= c.head.costNS
	}
	c.head = w
	b.headNS += w.costNS
	return true
}

// retagLocked recomputes a backlogged client's finish tag after its head
// call changed.
func (b *Budget) retagLocked(c *client) {
	c.finish = c.start + c.head.cost/c.weight(b.cfg.Capacity)
	heap.Fix(&b.ready, c.idx)
}

// heavier reports whether a holds more queued work than c.
func heavier(a, c *client) bool {
	if a.queuedU != c.queuedU {
		return a.queuedU > c.queuedU
	}
	return a.queued > c.queued
}

// heavyHeap orders backlogged clients by queued work, most first; among
// equals, the one whose newest call is newest goes first (a full queue
// refuses the latest arrival, sparing calls that waited longer).
type heavyHeap []*client

func (h heavyHeap) Len() int { return len(h) }
func (h heavyHeap) Less(i, j int) bool {
	a, c := h[i], h[j]
	if heavier(a, c) || heavier(c, a) {
		return heavier(a, c)
	}
	if a.newest.arrived != c.newest.arrived {
		return a.newest.arrived > c.newest.arrived
	}
	return a.seq > c.seq
}
func (h heavyHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heavyAt, h[j].heavyAt = i, j
}
func (h *heavyHeap) Push(x any) {
	c := x.(*client)
	c.heavyAt = len(*h)
	*h = append(*h, c)
}
func (h *heavyHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	c.heavyAt = -1
	return c
}

// tagHeap orders backlogged clients (or one client's sessions) by their
// head call's finish tag; ties go to the one waiting longest, then the
// older one.
type tagHeap[T interface{ tag() *tags }] []T

func (h tagHeap[T]) Len() int { return len(h) }

func (h tagHeap[T]) Less(i, j int) bool {
	a, c := h[i].tag(), h[j].tag()
	if a.finish != c.finish {
		return a.finish < c.finish
	}
	if a.since != c.since {
		return a.since < c.since
	}
	return a.seq < c.seq
}

func (h tagHeap[T]) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].tag().idx, h[j].tag().idx = i, j
}

func (h *tagHeap[T]) Push(x any) {
	t := x.(T)
	t.tag().idx = len(*h)
	*h = append(*h, t)
}

func (h *tagHeap[T]) Pop() any {
	old := *h
	t := old[len(old)-1]
	var zero T
	old[len(old)-1] = zero
	*h = old[:len(old)-1]
	t.tag().idx = -1
	return t
}
