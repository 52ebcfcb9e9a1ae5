package inbound

import (
	"sync/atomic"
	"time"
)

// Config is a zone's limits.
type Config struct {
	Connector Limit // the zone as a whole (one MCP endpoint)
	Session   Limit // each MCP session the connector issued
	Address   Limit // each client address without a session
	MaxKeys   int   // sessions plus addresses held at most (memory cap)
}

// Zone is one connector: its own bucket plus a bucket per session or
// address. Zones share the process bucket passed to Allow.
type Zone struct {
	connector Bucket
	keys      *Keyed
	session   atomic.Pointer[Limit]
	address   atomic.Pointer[Limit]
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

// Allow judges one request at now: key is its session or address key and
// kind says which (LayerSession or LayerAddress); process is the shared
// process bucket (nil for none). The request is counted in every layer if
// every layer lets it pass, and in none otherwise.
//
// The layers are tried in turn (key, connector, process). Each layer that
// lets the request pass reserves its token with one atomic step; once a
// layer refuses, the later layers are only looked at (to compute the
// longest wait), and the reservations made are given back. A request
// refused at its own key, the usual case of a flooding client, thus
// writes nothing shared.
func (z *Zone) Allow(now time.Time, process *Bucket, key string, kind Layer) Decision {
	t := now.UnixNano()
	var rs [3]result
	layers := [3]Layer{kind, LayerConnector, LayerProcess}
	refused := false

	kl := z.address.Load()
	if kind == LayerSession {
		kl = z.session.Load()
	}
	var h uint64
	if kl.Unlimited() {
		rs[0] = unlimitedResult
	} else {
		h = z.keys.Hash(key)
		rs[0] = z.keys.reserve(h, t, kl)
		refused = !rs[0].ok
	}
	if refused {
		rs[1] = z.connector.peek(t)
	} else {
		rs[1] = z.connector.reserve(t)
		refused = !rs[1].ok
	}
	switch {
	case process == nil:
		rs[2] = unlimitedResult
	case refused:
		rs[2] = process.peek(t)
	default:
		rs[2] = process.reserve(t)
		refused = !rs[2].ok
	}

	if !refused {
		return allowedDecision(&rs, &layers)
	}
	// Give back what was reserved before the refusal. A reservation exists
	// exactly for the layers before the first refusing one.
	for i := range rs {
		if !rs[i].ok {
			break
		}
		switch i {
		case 0:
			if !kl.Unlimited() {
				z.keys.undo(h, t, rs[0])
			}
		case 1:
			z.connector.undo(rs[1])
		}
	}
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

func allowedDecision(rs *[3]result, layers *[3]Layer) Decision {
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
