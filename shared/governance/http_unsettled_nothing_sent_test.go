package governance_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/governance"
)

// A release whose write was never sent (the connector's read before the write got a
// gateway's 504) is not unsettled: nothing can have landed, so it is pending again
// (write_failed), and when the target then refuses every attempt (the integration user
// lost its rights: 403) an approver can still deny it. It used to be unsettled for good:
// every approve answered 502 release_unsettled and deny 409.
func TestAReleaseThatSentNothingCanBeDenied(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.holdOptIn("t1", "C-1")
	h := e.api()
	e.fakes[crm].FailNext(1, http.StatusGatewayTimeout) // the GET of read-compare-write
	w := serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", approverT1)
	code, _ := problemCode(t, w)
	t.Logf("release: %d %s; %d writes at the CRM", w.Code, code, e.fakes[crm].WriteCount())
	if w.Code != http.StatusBadGateway || code != governance.CodeWriteFailed || !strings.Contains(w.Body.String(), "before the write was sent") {
		t.Fatalf("release whose read failed: %d %s", w.Code, w.Body)
	}
	e.fakes[crm].FailNext(10, http.StatusForbidden)
	for range 3 {
		w = serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", approverT1)
		code, _ = problemCode(t, w)
		t.Logf("settle: %d %s", w.Code, code)
	}
	d := serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/deny", &caller{"t1", "wendy", []string{"approver"}})
	got := approvalStatus(t, e, "t1", a.ID)
	if e.fakes[crm].WriteCount() == 0 && got.Status == governance.StatusUnsettled {
		t.Fatalf("nothing was ever sent to the CRM, yet the approval is %s and deny answers %d %s", got.Status, d.Code, d.Body)
	}
	if got.Status != governance.StatusDenied {
		t.Fatalf("deny: %d %s; the approval is %s", d.Code, d.Body, got.Status)
	}
}
