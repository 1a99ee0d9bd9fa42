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
	TTL time.Duration
	Now func() time.Time

	entries bounded.Map[string, cachedFlows]
}

type cachedFlows struct {
	flows   []Flow
	expires time.Time
	gen     uint64
}

// flowsGen moves on whenever this process puts or deletes a flow.
var flowsGen atomic.Uint64

// Flows implements Store. Errors are not cached.
func (c *CachedFlows) Flows(ctx context.Context, tenantID string) ([]Flow, error) {
	if c.TTL <= 0 {
		return c.Store.Flows(ctx, tenantID)
	}
	now, gen := c.now(), flowsGen.Load()
	if e, ok := c.entries.Load(tenantID); ok && e.gen == gen && now.Before(e.expires) {
		return slices.Clone(e.flows), nil
	}
	flows, err := c.Store.Flows(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	c.entries.Store(tenantID, cachedFlows{flows: slices.Clone(flows), expires: now.Add(c.TTL), gen: gen})
	return flows, nil
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

func (c *CachedFlows) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}
