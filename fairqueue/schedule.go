package fairqueue

import (
	"container/heap"
	"time"
)

// The scheduler between clients: who goes next (fair choice, deadline
// check), admission, removal, and the queue structures.

// becomeBackloggedLocked tags a client's first waiting call (its head,
// already chosen) and puts the client in the queue structures.
func (b *Budget) becomeBackloggedLocked(c *client, now int64) {
	if c.epoch != b.epoch {
		c.lastFinish, c.epoch = 0, b.epoch
	}
	c.start = max(b.vtime, c.lastFinish)
	c.finish = c.start + c.head.cost/c.weight(b.cfg.Capacity)
	c.since = now
	c.elem = b.waiting.PushBack(c)
	heap.Push(&b.ready, c)
}

// leaveQueueLocked removes a client with nothing queued from the queue
// structures; it becomes idle.
func (b *Budget) leaveQueueLocked(c *client) {
	heap.Remove(&b.ready, c.idx)
	b.waiting.Remove(c.elem)
	c.elem = nil
	heap.Remove(&b.heavy, c.heavyAt)
	c.queuedU = 0 // no float residue
	if c.head != nil {
		b.headNS -= c.head.costNS
		c.head = nil
	}
	c.idle = b.idle.PushBack(c)
	if b.ready.Len() == 0 {
		b.epoch++
		b.vtime = 0
	}
}

// pickLocked chooses the next client: the fair choice, unless that would
// make a waiting client miss its one-call-per-window deadline, in which
// case the client waiting longest.
func (b *Budget) pickLocked(now int64) (*client, bool) {
	if b.ready.Len() == 0 {
		return nil, false
	}
	fair := b.ready[0]
	oldest := b.waiting.Front().Value.(*client)
	if fair == oldest || b.deadlinesHoldLocked(fair, now) {
		return fair, true
	}
	return oldest, false
}

// deadlinesHoldLocked reports whether serving x's head call first still
// lets every other waiting client be served, oldest first, within one
// window of its since. It walks the clients in since order and stops as
// soon as the whole backlog would fit before the next deadline.
func (b *Budget) deadlinesHoldLocked(x *client, now int64) bool {
	W := b.windowNS
	tat := max(b.tat, now) + x.head.costNS
	at := max(now, tat-W)
	rest := b.headNS - x.head.costNS
	for e := b.waiting.Front(); e != nil; e = e.Next() {
		c := e.Value.(*client)
		if c == x {
			continue
		}
		deadline := c.since + W
		if max(at, tat+rest-W) <= deadline {
			return true
		}
		cost := c.head.costNS
		tat += cost
		rest -= cost
		at = max(at, tat-W)
		if at > deadline {
			return false
		}
	}
	return true
}

// dispatchLocked admits every call that can go now and arms the timer for
// the next one.
func (b *Budget) dispatchLocked(now int64, out *[]completion) {
	// Clients that went idle since the last call into the budget may take
	// the count past MaxClients: forget the idle longest first.
	b.trimClientsLocked(b.cfg.MaxClients)
	for {
		c, fair := b.pickLocked(now)
		if c == nil {
			b.setTimerLocked(0)
			return
		}
		if at := b.readyAtLocked(c.head.costNS, now); at > now {
			b.setTimerLocked(at)
			return
		}
		b.admitLocked(c, fair, now, out)
	}
}

// admitLocked admits c's head call.
func (b *Budget) admitLocked(c *client, fair bool, now int64, out *[]completion) {
	w := c.head
	s := w.s
	C := b.cfg.Capacity
	b.takeLocked(w)

	op := b.logLocked(tatOp{at: now, costNS: w.costNS})
	b.tat = max(b.tat, now) + w.costNS
	if c.key != Shared {
		c.used += w.cost
		s.used += w.cost
	}
	c.last, s.last = now, now
	b.admitted++
	b.unitsSpent += w.cost

	// Within the client.
	if c.headFair {
		c.vtime = s.finish
	}
	s.lastFinish = s.finish
	if len(s.queue) > 0 {
		s.start = s.lastFinish
		s.finish = s.start + s.queue[0].cost/s.weight(C)
		s.since = now
		c.waiting.MoveToBack(s.elem)
		heap.Fix(&c.ready, s.idx)
	} else {
		b.sessLeaveLocked(s)
	}

	// Between clients.
	if fair {
		b.vtime = c.finish
	}
	c.lastFinish = c.finish
	b.headNS -= w.costNS
	c.head = nil
	if c.queued > 0 {
		b.setHeadLocked(c, now)
		c.start = c.lastFinish
		c.since = now
		b.waiting.MoveToBack(c.elem)
		b.retagLocked(c)
	} else {
		b.leaveQueueLocked(c)
	}
	if w.timer != nil {
		w.timer.Stop()
	}
	w.state = stAdmitted
	w.adm = Admission{
		Client:  c.key,
		Session: s.key,
		Cost:    w.cost,
		Arrived: time.Unix(0, w.arrived),
		At:      time.Unix(0, now),
		Wait:    time.Duration(now - w.arrived),
		b:       b,
		s:       s,
		op:      op,
	}
	*out = append(*out, completion{w: w, adm: w.adm})
}

// takeLocked unlinks a waiting call from its session's queue, its client's
// arrival list and the counts. It does not touch the scheduling tags.
func (b *Budget) takeLocked(w *waiter) (wasSessHead bool) {
	s := w.s
	c := s.c
	if s.queue[0] == w { // an admission, or the head's hang-up
		wasSessHead = true
		s.queue[0] = nil
		s.queue = s.queue[1:]
	} else {
		// A refusal takes the newest call: look from the end.
		i := len(s.queue) - 1
		for s.queue[i] != w {
			i--
		}
		copy(s.queue[i:], s.queue[i+1:])
		s.queue[len(s.queue)-1] = nil
		s.queue = s.queue[:len(s.queue)-1]
		wasSessHead = i == 0
	}
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		c.oldest = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		c.newest = w.prev
	}
	w.prev, w.next = nil, nil
	c.queued--
	c.queuedU -= w.cost
	b.queued--
	b.queuedU -= w.cost
	if c.queued > 0 {
		heap.Fix(&b.heavy, c.heavyAt)
	}
	return wasSessHead
}

// removeLocked takes a waiting call out of the queue (a hang-up, an
// expiry, a refusal of a full queue's heaviest client).
func (b *Budget) removeLocked(w *waiter, now int64) {
	s := w.s
	c := s.c
	wasSessHead := b.takeLocked(w)
	w.state = stGone
	if w.timer != nil {
		w.timer.Stop()
	}
	switch {
	case len(s.queue) == 0:
		b.sessLeaveLocked(s)
	case wasSessHead:
		s.finish = s.start + s.queue[0].cost/s.weight(b.cfg.Capacity)
		heap.Fix(&c.ready, s.idx)
	}
	switch {
	case c.queued == 0:
		b.leaveQueueLocked(c)
	case w == c.head:
		b.headNS -= w.costNS
		c.head = nil
		b.setHeadLocked(c, now)
		b.retagLocked(c)
	}
}

func (b *Budget) setTimerLocked(at int64) {
	if at == b.timerAt {
		return
	}
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	b.timerAt = at
	if at == 0 {
		return
	}
	d := time.Duration(at - b.clock.Now().UnixNano())
	b.timer = b.clock.AfterFunc(d, b.tick)
}

func (b *Budget) tick() {
	var out []completion
	b.mu.Lock()
	b.timer, b.timerAt = nil, 0
	b.dispatchLocked(b.clock.Now().UnixNano(), &out)
	b.mu.Unlock()
	run(out)
}
