package wire

import (
	"context"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
)

// A retry's request to the host ERP to re-run the sync is keyed per attempt and carries
// its time, so when a tenant's override holds it for an ownership approval, no later
// retry ever makes that write: the attempt's reason and the release's message say so
// (deny it, have the override changed), instead of "approve it, then retry: the retry
// writes it", which no retry could make true.
func TestAHeldRerunRequestSaysNoRetryWritesIt(t *testing.T) {
	e := newHeldFixEnv(t)
	c := e.hostError(t, "E-marker", "value", nil)
	if err := e.overrides.PutOverrides(context.Background(), "acme", []governance.Entry{
		{Entity: HostSyncErrorRecord, Field: HostRetryRequested, Owner: connector.SystemCRM, Policy: governance.PolicyRequireApproval},
	}); err != nil {
		t.Fatal(err)
	}
	_, held := e.retry(t, c.ID)
	if held.Code != "RETRY_REFUSED" || strings.Contains(held.Reason, "the retry writes it") || !strings.Contains(held.Reason, "Approving it does not let a retry through") {
		t.Fatalf("the held re-run request: %+v", held)
	}
	w := e.release(t)
	if body := w.Body.String(); !strings.Contains(body, "it is never written") || strings.Contains(body, "is retried, which") {
		t.Fatalf("release of the held re-run request: %d %s", w.Code, body)
	}
}
