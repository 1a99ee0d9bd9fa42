package connector

import (
	"context"
	"sync"
	"time"
)

// SetJitter replaces the backoff's random pick, so tests can make the wait predictable.
func SetJitter(c *Client, f func(ceiling time.Duration) time.Duration) { c.jitter = f }

// RecordWaits makes c wait no more between attempts and returns the waits it asked for
// since: a test of what the client does not wait for reads them instead of a clock, which
// a loaded machine moves too.
func RecordWaits(c *Client) func() []time.Duration {
	var (
		mu    sync.Mutex
		waits []time.Duration
	)
	c.sleep = func(ctx context.Context, d time.Duration) bool {
		mu.Lock()
		defer mu.Unlock()
		waits = append(waits, d)
		return ctx.Err() == nil
	}
	return func() []time.Duration { mu.Lock(); defer mu.Unlock(); return append([]time.Duration(nil), waits...) }
}

// SetRegistryClock replaces the registry's clock, so tests can step past the TTL.
func SetRegistryClock(r *Registry, now func() time.Time) { r.now = now }

// ShipStationStart is shipstationStart, for the test of its hour around a change of time.
var ShipStationStart = shipstationStart
