package connector

import "time"

// SetJitter replaces the backoff's random pick, so tests can make the wait predictable.
func SetJitter(c *Client, f func(ceiling time.Duration) time.Duration) { c.jitter = f }

// SetRegistryClock replaces the registry's clock, so tests can step past the TTL.
func SetRegistryClock(r *Registry, now func() time.Time) { r.now = now }

// ShipStationStart is shipstationStart, for the test of its hour around a change of time.
var ShipStationStart = shipstationStart
