package policy

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/syncassist/syncassist/shared/bounded"
)

// CachedPolicies keeps each tenant's approval policy for TTL in the process, for the
// diagnosis worker's auto rules: a warm worker reads a tenant's policy once per TTL, not
// once per diagnosis (issue 37 §1). A policy put in this process is seen at once; one put
// by the settings function reaches a warm worker within TTL, the lag the platform allows a
// cached tenant configuration. Nothing is approved on the cached policy alone: an enforced
// rule applies its fix through the approve path, which reads the policy afresh and lets
// the rule's principal approve only what the rule still applies automatically.
type CachedPolicies struct {
	cache    bounded.Expiring[string, Policy]
	policies Policies
}

// policyGen moves on whenever this process puts a policy.
var policyGen atomic.Uint64

// NewCachedPolicies is p's Get with each tenant's policy kept for ttl (now: the clock, nil
// for the system's).
func NewCachedPolicies(p Policies, ttl time.Duration, now func() time.Time) *CachedPolicies {
	c := &CachedPolicies{policies: p}
	c.cache.TTL, c.cache.Now, c.cache.Gen = ttl, now, &policyGen
	return c
}

// Get is Policies.Get, from memory while fresh. Errors are not kept.
func (c *CachedPolicies) Get(ctx context.Context, tenantID string) (Policy, error) {
	return c.cache.Get(tenantID, func() (Policy, error) { return c.policies.Get(ctx, tenantID) })
}
