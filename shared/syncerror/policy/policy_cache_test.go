package policy_test

import (
	"context"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// countingDocs counts the reads of the approval policy's document.
type countingDocs struct {
	*syncerrortest.ClaimStore
	reads int
}

func (c *countingDocs) GetDoc(ctx context.Context, tenantID, key string) (syncerror.Doc, error) {
	if key == syncerror.DocPolicy {
		c.reads++
	}
	return c.ClaimStore.GetDoc(ctx, tenantID, key)
}

// The worker's policy is read once per TTL; a policy put in this process is seen at once,
// one put by another process (another store on the same table) after TTL.
func TestCachedPoliciesReadOncePerTTLAndSeeThisProcesssPuts(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	docs := &countingDocs{ClaimStore: syncerrortest.NewClaimStore()}
	c := policy.NewCachedPolicies(policy.Policies{Docs: docs}, 10*time.Second, func() time.Time { return now })
	get := func() policy.Policy {
		t.Helper()
		p, err := c.Get(ctx, "t1")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if get(); get().Version != 0 || docs.reads != 1 {
		t.Fatalf("%d reads for two gets, want 1", docs.reads)
	}
	put, err := policy.Policies{Docs: docs.ClaimStore}.Put(ctx, "t1", policy.DefaultPolicy(), now)
	if err != nil {
		t.Fatal(err)
	}
	if got := get(); got.Version != put.Version || docs.reads != 2 {
		t.Fatalf("after a put in this process: version %d after %d reads, want %d after 2", got.Version, docs.reads, put.Version)
	}
	now = now.Add(11 * time.Second)
	if get(); docs.reads != 3 {
		t.Fatalf("after TTL: %d reads, want 3", docs.reads)
	}
}
