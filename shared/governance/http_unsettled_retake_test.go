package governance_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/governance"
)

// An unsettled approval whose settling approve stopped mid-write (the function ended; it
// is left releasing) is taken over after the release timeout. The take-over judges its
// failure as a settling one's (a release taken over may have sent its write), not by the
// status it read: a refusal leaves it unsettled, never pending, where it could be denied
// while the CRM holds the first release's write.
func TestATakenOverSettlingStaysUnsettled(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.holdOptIn("t1", "C-1")
	h := e.api()
	e.fakes[crm].DelayNext(1, 0)
	e.fakes[crm].DelayNext(1, 800*time.Millisecond) // the PATCH lands, its answer is lost
	if w := approveBy(h, a.ID, 300*time.Millisecond); w.Code != http.StatusBadGateway {
		t.Fatalf("release: %d %s", w.Code, w.Body)
	}
	waitFor(t, func() bool { return e.fakes[crm].WriteCount() == 1 })
	// A settling approve takes it (unsettled → releasing) and its function ends mid-write.
	if _, err := e.records.DecideApproval(context.Background(), "t1", a.ID, governance.StatusUnsettled, governance.StatusReleasing, "victor", e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(governance.DefaultReleaseTimeout + time.Minute)
	e.fakes[crm].FailNext(1, http.StatusTooManyRequests) // the take-over's read is rate limited
	w := serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", approverT1)
	code, _ := problemCode(t, w)
	t.Logf("take-over: %d %s", w.Code, code)
	d := serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/deny", &caller{"t1", "wendy", []string{"approver"}})
	rec, _ := e.fakes[crm].Get("contact", "C-1")
	if got := approvalStatus(t, e, "t1", a.ID); got.Status == governance.StatusDenied {
		t.Fatalf("the approval was denied (%d) while the CRM holds its write (marketingOptIn %v)", d.Code, rec.Fields["marketingOptIn"])
	}
}
