package globalbudget

import (
	"context"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/caddymodule/platformlimit/fairqueue"
)

func TestSmoke(t *testing.T) {
	cl := newCluster(t, 2, fairqueue.Config{Capacity: 10, Window: 10 * time.Second})
	ctx := context.Background()
	for i := 0; i < 10; i++ {
		if _, err := cl.bs[i%2].Acquire(ctx, fairqueue.Key{Client: "a"}, 1); err != nil {
			t.Fatal(err)
		}
	}
	ch := async(ctx, cl.bs[1], fairqueue.Key{Client: "b"}, 1)
	waitFor(t, "queued", func() bool { return cl.bs[1].Stats().Waiting == 1 })
	cl.settle()
	if _, ok := ready(ch); ok {
		t.Fatal("admitted without room")
	}
	cl.advance(time.Second, 100*time.Millisecond)
	g := <-ch
	if g.err != nil {
		t.Fatal(g.err)
	}
	t.Logf("%+v", g.adm)
	t.Logf("%+v", cl.bs[0].Stats())
	t.Logf("used a %v", cl.bs[1].Used("a"))
}
