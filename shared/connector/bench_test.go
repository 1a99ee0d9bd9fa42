package connector_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
)

// BenchmarkClientWrite measures one PATCH with a fresh idempotency key against the fake
// over loopback: request building, JSON both ways and the connection pool.
func BenchmarkClientWrite(b *testing.B) {
	fake, c := startFake(b, connector.SystemHostERP, nil)
	fake.Seed("customer", "C-1", map[string]any{"credit": 1, "name": "Acme"})
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if _, err := c.Write(ctx, write("bench-"+strconv.Itoa(i), map[string]any{"credit": i})); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClientWriteParallel is the same with concurrent writers sharing one client.
func BenchmarkClientWriteParallel(b *testing.B) {
	fake, c := startFake(b, connector.SystemHostERP, nil)
	fake.Seed("customer", "C-1", map[string]any{"credit": 1, "name": "Acme"})
	ctx := context.Background()
	var n atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			if _, err := c.Write(ctx, write("bench-"+strconv.FormatInt(i, 10), map[string]any{"credit": i})); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
