// nfdelay holds every packet of an NFQUEUE queue for a fixed delay, in
// order: a netem-style delay for kernels without sch_netem (see
// docs/upstream.md). Use it on ingress in both
// namespaces of a veth pair: 25 ms each way = 50 ms round trip.
package main

import (
	"context"
	"flag"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/florianl/go-nfqueue/v2"
)

type item struct {
	id  uint32
	due time.Time
}

func main() {
	q := flag.Uint("queue", 0, "NFQUEUE number")
	delay := flag.Duration("delay", 25*time.Millisecond, "delay per packet")
	flag.Parse()
	cfg := nfqueue.Config{
		NfQueue:      uint16(*q),
		MaxPacketLen: 128,
		MaxQueueLen:  16384,
		Copymode:     nfqueue.NfQnlCopyPacket,
		WriteTimeout: 50 * time.Millisecond,
	}
	nf, err := nfqueue.Open(&cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer nf.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ch := make(chan item, 65536)
	go func() {
		for it := range ch {
			if w := time.Until(it.due); w > 0 {
				time.Sleep(w)
			}
			if err := nf.SetVerdict(it.id, nfqueue.NfAccept); err != nil {
				log.Print(err)
			}
		}
	}()
	err = nf.RegisterWithErrorFunc(ctx, func(a nfqueue.Attribute) int {
		ch <- item{*a.PacketID, time.Now().Add(*delay)}
		return 0
	}, func(e error) int {
		log.Print(e)
		return 0
	})
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("nfdelay: queue %d, %v per packet", *q, *delay)
	<-ctx.Done()
}
