package finance_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/finance/financetest"
	"github.com/syncassist/syncassist/shared/identity"
)

// Four eyes: the person who requested an approval in the ERP cannot approve it, whichever
// of their names the ERP recorded and in whatever case; the refusal changes nothing, calls
// no ERP and is audited as denied. Another approver then approves it.
func TestRequesterCannotApprove(t *testing.T) {
	requester := &identity.Principal{Subject: "00u1a2b3", TenantID: tenantID, Roles: []string{identity.RoleApprover},
		Email: "Dana.Payables@Example.com", Username: "dpayables"}
	for _, recorded := range []string{"00U1A2B3", "dana.payables@example.com", " DPayables "} {
		t.Run(recorded, func(t *testing.T) {
			erp := &financetest.ERP{}
			f := newFixture(t, erp)
			a := financetest.SampleApproval(tenantID, "FA-1", f.clock.Now())
			a.ERPID, a.RequestedBy = "VB-1", recorded
			if _, err := f.mem.Create(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			wantProblem(t, f.approve(requester, "FA-1"), http.StatusForbidden, "four_eyes")
			if got := f.row("FA-1"); got.Status != finance.StatusPending || got.Lease != nil || got.LastError != "" {
				t.Fatalf("refused approve changed the row: %+v", got)
			}
			if n := len(erp.Calls()); n != 0 {
				t.Fatalf("refused approve called the ERP %d times", n)
			}
			recs := f.auditsOf(finance.ActionApprove)
			if len(recs) != 1 || recs[0].Result != audit.ResultDenied || details(t, recs[0])["problem"] != "four_eyes" {
				t.Fatalf("finance.approve records %+v", recs)
			}
			if w := f.approve(approverBob, "FA-1"); w.Code != http.StatusOK {
				t.Fatalf("another approver: %d %s", w.Code, w.Body)
			}
		})
	}
}

// The check fails closed: when the row cannot be read, nothing is approved.
func TestFourEyesFailsClosed(t *testing.T) {
	erp := &financetest.ERP{}
	f := newFixture(t, erp)
	f.mustCreate("FA-1", "VB-1")
	f.svc.Store = getFails{f.store}
	w := f.approve(approverBob, "FA-1")
	if w.Code != http.StatusServiceUnavailable {
		t.Fatalf("approve with the row unreadable: %d %s", w.Code, w.Body)
	}
	if got := f.row("FA-1"); got.Status != finance.StatusPending || got.Lease != nil {
		t.Fatalf("row changed: %+v", got)
	}
	if n := len(erp.Calls()); n != 0 {
		t.Fatalf("the ERP was called %d times", n)
	}
}

type getFails struct{ finance.Store }

func (getFails) Get(context.Context, string, string) (finance.Approval, error) {
	return finance.Approval{}, errors.New("dynamodb: connection reset")
}
