package inbound

import (
	"context"
	"sync/atomic"
	"time"
)

// Config is a zone's limits.
type Config struct {
	Connector Limit // the zone as a whole (one MCP endpoint)
	Session   Limit // each MCP session the connector issued
	Address   Limit // each client address, sessions or not (above Session)
	MaxKeys   int   // sessions plus addresses held at most (memory cap)
}

// Client names who sent a request: the keys of its per-key buckets.
type Client struct {
	// Session is the key of the MCP session the connector issued, or ""
	// for a request without one (before initialize, a stateless client,
	// an app, a made-up id).
	Session string
	// Address is the key of the client address; every request has one.
	Address string
}

// Zone is one connector: its own bucket plus a bucket per session and per
// address. Zones share the process bucket passed to Allow.
type Zone struct {
	connector Bucket
	keys      *Keyed
	session   atomic.Pointer[Limit]
	address   atomic.Pointer[Limit]
	global    atomic.Pointer[Global] // session and address buckets in a shared store, or nil
}

// NewZone returns a zone with every bucket full.
func NewZone(cfg Config) *Zone {
	z := &Zone{keys: NewKeyed(cfg.MaxKeys)}
	z.Configure(cfg)
	return z
}

// Configure changes the zone's limits in place, keeping every bucket's
// fill (a config reload hands out no fresh burst).
func (z *Zone) Configure(cfg Config) {
	z.connector.SetLimit(cfg.Connector)
	s, a := cfg.Session, cfg.Address
	z.session.Store(&s)
	z.address.Store(&a)
	z.keys.SetMaxKeys(cfg.MaxKeys)
}

// Keys returns the zone's session and address buckets.
func (z *Zone) Keys() *Keyed { return z.keys }

// SetGlobal keeps the session and address buckets in a shared store from
// now on (nil: in this process again). The local buckets keep their fill
// for a switch back.
func (z *Zone) SetGlobal(g *Global) { z.global.Store(g) }

// Global returns the shared-store buckets in use, or nil.
func (z *Zone) Global() *Global { return z.global.Load() }

// Allow judges one request of client c at now; process is the shared
// process bucket (nil for none). The request is counted in every layer if
// every layer lets it pass, and in none otherwise.
//
// A request with a session passes its session's bucket and its address's
// bucket: sessions divide their address's room, they never multiply it
// (docs/rules.md, "Who a client is"), so one address opening many sessions still gets one
// address's rate. A session alone is held to its session's limit, which
// is below the address's.
//
// The layers are tried in turn (session, address, connector, process).
// Each layer that lets the request pass reserves its token with one atomic
// step; once a layer refuses, the later layers are only looked at (to
// compute the longest wait), and the reservations made are given back. A
// request refused at its own keys, the usual case of a flooding client,
// thus writes nothing shared.
func (z *Zone) Allow(now time.Time, process *Bucket, c Client) Decision {
	return z.AllowContext(context.Background(), now, process, c)
}

// AllowContext is Allow; with a shared store (SetGlobal) ctx bounds the
// store's call, and the session and address buckets are global.
func (z *Zone) AllowContext(ctx context.Context, now time.Time, process *Bucket, c Client) Decision {
	if g := z.global.Load(); g != nil {
		return z.allowGlobal(ctx, now, process, c, g)
	}
	t := now.UnixNano()
	var rs [4]result
	var hs [2]uint64
	layers := [4]Layer{LayerSession, LayerAddress, LayerConnector, LayerProcess}
	keys := [2]string{c.Session, c.Address}
	lims := [2]*Limit{z.session.Load(), z.address.Load()}
	refused := false

	for i := range keys {
		switch {
		case keys[i] == "" || lims[i].Unlimited():
			rs[i] = unlimitedResult
		case refused:
			hs[i] = z.keys.Hash(keys[i])
			rs[i] = z.keys.peek(hs[i], t, lims[i])
		default:
			hs[i] = z.keys.Hash(keys[i])
			rs[i] = z.keys.reserve(hs[i], t, lims[i])
			refused = !rs[i].ok
		}
	}
	if refused {
		rs[2] = z.connector.peek(t)
	} else {
		rs[2] = z.connector.reserve(t)
		refused = !rs[2].ok
	}
	switch {
	case process == nil:
		rs[3] = unlimitedResult
	case refused:
		rs[3] = process.peek(t)
	default:
		rs[3] = process.reserve(t)
		refused = !rs[3].ok
	}

	if !refused {
		return allowedDecision(&rs, &layers)
	}
	// Give back what was reserved before the refusal. A reservation exists
	// exactly for the limited layers before the first refusing one.
	for i := range rs {
		if !rs[i].ok {
			break
		}
		switch i {
		case 0, 1:
			z.keys.undo(hs[i], t, rs[i]) // no-op for an unlimited result
		case 2:
			z.connector.undo(rs[2])
		}
	}
	return refusedDecision(&rs, &layers)
}

// allowGlobal is Allow with the session and address buckets in the shared
// store. The local layers go first, so a request they refuse costs the
// store only a look (for the longest wait); a request the store refuses
// gives back what it reserved in them.
func (z *Zone) allowGlobal(ctx context.Context, now time.Time, process *Bucket, c Client, g *Global) Decision {
	t := now.UnixNano()
	var rs [4]result
	layers := [4]Layer{LayerSession, LayerAddress, LayerConnector, LayerProcess}
	rs[2] = z.connector.reserve(t)
	refused := !rs[2].ok
	switch {
	case process == nil:
		rs[3] = unlimitedResult
	case refused:
		rs[3] = process.peek(t)
	default:
		rs[3] = process.reserve(t)
		if !rs[3].ok {
			refused = true
			z.connector.undo(rs[2])
		}
	}
	tier := g.judge(ctx, t, c, [2]*Limit{z.session.Load(), z.address.Load()}, refused, &rs)
	if !refused && (!rs[0].ok || !rs[1].ok) {
		refused = true
		z.connector.undo(rs[2])
		if process != nil {
			process.undo(rs[3])
		}
	}
	var d Decision
	if refused {
		d = refusedDecision(&rs, &layers)
	} else {
		d = allowedDecision(&rs, &layers)
	}
	d.Tier = tier
	return d
}

// refusedDecision names the refusing layers and the longest wait.
func refusedDecision(rs *[4]result, layers *[4]Layer) Decision {
	d := Decision{}
	for i, r := range rs {
		if r.ok {
			continue
		}
		d.Refused |= 1 << layers[i]
		if d.Layer == LayerNone || time.Duration(r.wait) > d.RetryAfter {
			d.Layer = layers[i]
			d.RetryAfter = time.Duration(r.wait)
			d.Limit = r.burst
			d.Reset = time.Duration(r.debt)
		}
	}
	return d
}

func allowedDecision(rs *[4]result, layers *[4]Layer) Decision {
	d := Decision{Allowed: true}
	best, bestRem := -1, 0
	for i := range rs {
		if rs[i].unlimited {
			continue
		}
		if rem := rs[i].remaining(); best < 0 || rem < bestRem {
			best, bestRem = i, rem
		}
	}
	if best >= 0 {
		d.Layer = layers[best]
		d.Limit = rs[best].burst
		d.Remaining = bestRem
		d.Reset = time.Duration(rs[best].debt)
	}
	return d
}
