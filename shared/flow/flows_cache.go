package flow

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	"github.com/syncassist/syncassist/shared/bounded"
)

// CachedFlows is a Store whose Flows are kept for TTL per tenant in the process, for the
// executor: a change event then reads no flow definitions from the table while they are
// fresh (issue 37 §3). Everything else goes to the Store it wraps. A flow put or deleted
// in this process (any DynamoStore's PutFlow or DeleteFlow) is seen at once; one changed
// by another function (the flow settings Lambdas) reaches a warm executor within TTL, the
// lag the platform allows a cached tenant configuration. The settings routes keep reading
// the table, so an editor sees its own change. A TTL of 0 reads every time.
type CachedFlows struct {
	Store
	cache bounded.Expiring[string, []Flow]
}

// NewCachedFlows is s with its Flows kept for ttl per tenant (now: the clock, nil for the
// system's).
func NewCachedFlows(s Store, ttl time.Duration, now func() time.Time) *CachedFlows {
	c := &CachedFlows{Store: s}
	c.cache.TTL, c.cache.Now, c.cache.Gen = ttl, now, &flowsGen
	return c
}

// flowsGen moves on whenever this process puts or deletes a flow.
var flowsGen atomic.Uint64

// Flows implements Store. Errors are not cached.
func (c *CachedFlows) Flows(ctx context.Context, tenantID string) ([]Flow, error) {
	flows, err := c.cache.Get(tenantID, func() ([]Flow, error) {
		flows, err := c.Store.Flows(ctx, tenantID)
		return slices.Clone(flows), err
	})
	return slices.Clone(flows), err
}

// PutFlow implements Store.
func (c *CachedFlows) PutFlow(ctx context.Context, tenantID string, f Flow) error {
	defer flowsGen.Add(1)
	return c.Store.PutFlow(ctx, tenantID, f)
}

// DeleteFlow implements Store.
func (c *CachedFlows) DeleteFlow(ctx context.Context, tenantID, id string) error {
	defer flowsGen.Add(1)
	return c.Store.DeleteFlow(ctx, tenantID, id)
}
