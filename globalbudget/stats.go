package globalbudget

import (
	"context"
	"math"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/fairqueue"
)

// Snapshots for the admin status and metrics.

// Stats returns a snapshot: the bucket as Redis holds it now (or the local
// share's, in fallback mode), this instance's queue and totals, and the
// mode.
func (b *Budget) Stats() fairqueue.Stats {
	b.mu.Lock()
	fb := b.fb
	cfg := b.cfg
	st := fairqueue.Stats{
		Capacity:      cfg.Capacity,
		Window:        cfg.Window,
		Waiting:       b.q.queued,
		WaitingUnits:  math.Max(0, b.q.queuedU),
		Clients:       len(b.q.clients),
		Admitted:      b.admitted,
		Rejected:      b.rejected,
		Cancelled:     b.cancelled,
		Refunded:      b.refunded,
		UnitsRefunded: b.unitsRefunded,
		UnitsSpent:    b.unitsSpent,
		Mode:          "global",
		GlobalWaiting: b.globalWaiting,
	}
	for _, c := range b.q.clients {
		if c.queued > 0 {
			st.WaitingClients++
		}
		st.Sessions += len(c.names) + 1
	}
	for _, f := range b.q.flows {
		if len(f.q) > 0 {
			st.WaitingSessions++
		}
	}
	tat := b.lastTat
	pu := b.pausedUntil
	b.mu.Unlock()
	now := b.nowUS()
	if fb != nil {
		fs := fb.budget.Stats()
		st.Mode = "fallback"
		st.Available = fs.Available
		st.Waiting += fs.Waiting
		st.WaitingUnits += fs.WaitingUnits
		st.WaitingClients += fs.WaitingClients
		st.WaitingSessions += fs.WaitingSessions
		st.PausedUntil = fs.PausedUntil
		return st
	}
	_ = b.store.Do(context.Background(), func(ctx context.Context, c redis.UniversalClient) error {
		v, err := c.HMGet(ctx, b.keys[0], "tat", "pu").Result()
		if err != nil {
			return err
		}
		if s, ok := v[0].(string); ok {
			tat, _ = strconv.ParseInt(s, 10, 64)
		} else {
			tat = now
		}
		if s, ok := v[1].(string); ok {
			if p, err := strconv.ParseInt(s, 10, 64); err == nil {
				pu = max(pu, p)
			}
		}
		return nil
	})
	W := float64(cfg.Window.Microseconds())
	debt := float64(max(tat, now) - now)
	st.Available = math.Max(0, cfg.Capacity*(W-debt)/W)
	if pu > now {
		st.PausedUntil = time.UnixMicro(pu)
		st.Available = 0
	}
	return st
}

// Figures are this instance's global-budget figures beyond Stats, for
// metrics and benchmarks.
type Figures struct {
	Mode          string
	Decisions     uint64        // script calls that decided
	DecisionTime  time.Duration // their total round-trip time
	Degradations  uint64        // switches to the local share
	Rejoins       uint64
	LocalAdmitted uint64 // calls admitted by the local share
	LocalUnits    float64
}

// Figures returns this instance's figures.
func (b *Budget) Figures() Figures {
	b.mu.Lock()
	defer b.mu.Unlock()
	f := Figures{Mode: "global", Decisions: b.decisions, DecisionTime: b.decisionTime,
		Degradations: b.degradations, Rejoins: b.rejoins, LocalAdmitted: b.localAdmitted, LocalUnits: b.localUnits}
	if b.fb != nil {
		f.Mode = "fallback"
	}
	return f
}

// Heaviest returns up to n clients this instance knows, heaviest first,
// with their global usage as of their last admission here.
func (b *Budget) Heaviest(n int) []fairqueue.ClientUsage {
	b.mu.Lock()
	now := b.nowUS()
	forget := b.forgetUS()
	C := b.cfg.Capacity
	all := make([]fairqueue.ClientUsage, 0, len(b.q.clients))
	for _, c := range b.q.clients {
		used := c.used
		if c.queued == 0 && now-c.last >= forget {
			used = 0
		}
		cu := fairqueue.ClientUsage{Client: c.key, Used: used, Waiting: c.queued, LastCall: time.UnixMicro(c.last), Share: 1 / (1 + used/C)}
		if c.key == fairqueue.Shared {
			cu.Share = 1
		}
		for name, u := range c.sess {
			waiting := 0
			if f := b.q.flows[fkey{c.key, name}]; f != nil {
				waiting = len(f.q)
			}
			cu.Sessions = append(cu.Sessions, fairqueue.SessionUsage{Session: name, Used: u, Waiting: waiting, Share: 1 / (1 + u/C)})
		}
		all = append(all, cu)
	}
	b.mu.Unlock()
	return fairqueue.HeaviestFirst(all, n)
}

// Used returns a client's global usage (from Redis; this instance's last
// view of it while Redis does not answer).
func (b *Budget) Used(client string) float64 {
	u, _ := b.usage(client, "")
	return u
}

// SessionUsed returns a session's global usage within its client.
func (b *Budget) SessionUsed(key fairqueue.Key) float64 {
	_, s := b.usage(key.Client, key.Session)
	return s
}

func (b *Budget) usage(client, session string) (used, sused float64) {
	now := b.nowUS()
	forget := b.forgetUS()
	err := b.store.Do(context.Background(), func(ctx context.Context, c redis.UniversalClient) error {
		v, err := c.HMGet(ctx, b.uprefix+client, "u", "t", "s:"+session, "t:"+session).Result()
		if err != nil {
			return err
		}
		f := func(i int) float64 {
			s, _ := v[i].(string)
			x, _ := strconv.ParseFloat(s, 64)
			return x
		}
		if now-int64(f(1)) < forget {
			used = f(0)
		}
		if now-int64(f(3)) < forget {
			sused = f(2)
		}
		return nil
	})
	if err != nil {
		b.mu.Lock()
		if c := b.q.clients[client]; c != nil {
			used, sused = c.used, c.sess[session]
		}
		b.mu.Unlock()
	}
	return used, sused
}
