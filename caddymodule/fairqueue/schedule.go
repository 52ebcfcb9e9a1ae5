package fairqueue

import (
	"container/heap"
	"math"
	"time"
)

// The scheduler: who goes next (fair choice, deadline check), admission
// and the queue structures.

// becomeBackloggedLocked tags a session's first waiting call and puts the
// session in the queue structures.
func (b *Budget) becomeBackloggedLocked(s *session, now int64) {
	if s.epoch != b.epoch {
		s.lastFinish, s.epoch = 0, b.epoch
	}
	s.start = math.Max(b.vtime, s.lastFinish)
	s.finish = s.start + s.queue[0].cost/s.weight(b.cfg.Capacity)
	s.since = now
	s.elem = b.waiting.PushBack(s)
	heap.Push(&b.ready, s)
	b.headNS += s.queue[0].costNS
}

// leaveQueueLocked removes an empty session from the queue structures.
func (b *Budget) leaveQueueLocked(s *session) {
	heap.Remove(&b.ready, s.idx)
	b.waiting.Remove(s.elem)
	s.elem = nil
	if b.ready.Len() == 0 {
		b.epoch++
		b.vtime = 0
	}
}

// pickLocked chooses the next call: the fair choice, unless that would make
// a waiting session miss its one-call-per-window deadline, in which case
// the session waiting longest.
func (b *Budget) pickLocked(now int64) (*session, bool) {
	if b.ready.Len() == 0 {
		return nil, false
	}
	fair := b.ready[0]
	oldest := b.waiting.Front().Value.(*session)
	if fair == oldest || b.deadlinesHoldLocked(fair, now) {
		return fair, true
	}
	return oldest, false
}

// deadlinesHoldLocked reports whether serving x's head call first still
// lets every other waiting session be served, oldest first, within one
// window of its since. It walks the sessions in since order and stops as
// soon as the whole backlog would fit before the next deadline.
func (b *Budget) deadlinesHoldLocked(x *session, now int64) bool {
	W := b.windowNS
	tat := max(b.tat, now) + x.queue[0].costNS
	at := max(now, tat-W)
	rest := b.headNS - x.queue[0].costNS
	for e := b.waiting.Front(); e != nil; e = e.Next() {
		s := e.Value.(*session)
		if s == x {
			continue
		}
		deadline := s.since + W
		if max(at, tat+rest-W) <= deadline {
			return true
		}
		c := s.queue[0].costNS
		tat += c
		rest -= c
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
	for {
		s, fair := b.pickLocked(now)
		if s == nil {
			b.setTimerLocked(0)
			return
		}
		w := s.queue[0]
		if at := b.readyAtLocked(w.costNS, now); at > now {
			b.setTimerLocked(at)
			return
		}
		b.admitLocked(s, fair, now, out)
	}
}

func (b *Budget) admitLocked(s *session, fair bool, now int64, out *[]completion) {
	w := s.queue[0]
	s.queue[0] = nil
	s.queue = s.queue[1:]
	s.queuedU -= w.cost
	b.queued--
	b.queuedU -= w.cost
	b.headNS -= w.costNS

	w.tatBefore = b.tat
	w.op = b.logLocked(tatOp{at: now, costNS: w.costNS})
	b.tat = max(b.tat, now) + w.costNS
	if s.key != Shared {
		s.used += w.cost
	}
	s.last = now
	b.admitted++
	b.unitsSpent += w.cost
	if fair {
		b.vtime = s.finish
	}
	s.lastFinish = s.finish
	if len(s.queue) > 0 {
		s.start = s.lastFinish
		s.finish = s.start + s.queue[0].cost/s.weight(b.cfg.Capacity)
		s.since = now
		b.waiting.MoveToBack(s.elem)
		heap.Fix(&b.ready, s.idx)
		b.headNS += s.queue[0].costNS
	} else {
		b.leaveQueueLocked(s)
	}
	if w.timer != nil {
		w.timer.Stop()
	}
	w.state = stAdmitted
	w.adm = Admission{
		Session: s.key,
		Cost:    w.cost,
		Arrived: time.Unix(0, w.arrived),
		At:      time.Unix(0, now),
		Wait:    time.Duration(now - w.arrived),
	}
	*out = append(*out, completion{w: w, adm: w.adm})
}

// removeLocked takes a waiting call out of its session's queue.
func (b *Budget) removeLocked(w *waiter, now int64) {
	s := w.s
	i := 0
	for i < len(s.queue) && s.queue[i] != w {
		i++
	}
	if i == len(s.queue) {
		return
	}
	wasHead := i == 0
	if wasHead {
		b.headNS -= w.costNS
	}
	copy(s.queue[i:], s.queue[i+1:])
	s.queue[len(s.queue)-1] = nil
	s.queue = s.queue[:len(s.queue)-1]
	s.queuedU -= w.cost
	b.queued--
	b.queuedU -= w.cost
	w.state = stGone
	if w.timer != nil {
		w.timer.Stop()
	}
	switch {
	case len(s.queue) == 0:
		b.leaveQueueLocked(s)
	case wasHead:
		s.finish = s.start + s.queue[0].cost/s.weight(b.cfg.Capacity)
		heap.Fix(&b.ready, s.idx)
		b.headNS += s.queue[0].costNS
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

// sessHeap orders backlogged sessions by their head call's finish tag;
// ties go to the session waiting longest, then the older session.
type sessHeap []*session

func (h sessHeap) Len() int { return len(h) }

func (h sessHeap) Less(i, j int) bool {
	a, c := h[i], h[j]
	if a.finish != c.finish {
		return a.finish < c.finish
	}
	if a.since != c.since {
		return a.since < c.since
	}
	return a.seq < c.seq
}

func (h sessHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}

func (h *sessHeap) Push(x any) {
	s := x.(*session)
	s.idx = len(*h)
	*h = append(*h, s)
}

func (h *sessHeap) Pop() any {
	old := *h
	s := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	s.idx = -1
	return s
}
