package globalbudget

import (
	"context"
	"testing"
)

func (cl *cluster) dump(t testing.TB) {
	b0 := cl.bs[0]
	c := b0.store.Client()
	ctx := context.Background()
	for _, k := range b0.keys {
		t.Logf("%s: pttl %v", k, c.PTTL(ctx, k).Val())
	}
	t.Logf("bucket %v", c.HGetAll(ctx, b0.keys[0]).Val())
	t.Logf("flows %v", c.HGetAll(ctx, b0.keys[2]).Val())
	t.Logf("clients %v", c.HGetAll(ctx, b0.keys[3]).Val())
	t.Logf("inst %v", c.HGetAll(ctx, b0.keys[4]).Val())
	t.Logf("now %d", cl.clock.Now().UnixMicro())
	for i, b := range cl.bs {
		b.mu.Lock()
		t.Logf("inst %d %s: fb=%v timerAt=%d busy=%v flows=%d dirty=%d queued=%d", i, b.me, b.fb != nil, b.timerAt, b.busy, len(b.q.flows), len(b.q.dirty), b.q.queued)
		for _, f := range b.q.flows {
			t.Logf("   flow %s %s/%s n=%d reg=%v", f.id, f.client, f.session, len(f.q), f.registered)
		}
		b.mu.Unlock()
		d, err := b.decide(cl.clock.Now().UnixMicro(), nil)
		t.Logf("   decide: %+v %v", d, err)
	}
}
