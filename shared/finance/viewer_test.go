package finance_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/syncassist/syncassist/shared/finance/financetest"
	"github.com/syncassist/syncassist/shared/identity"
)

// The list and the detail say to its requester that an approval is their own (issue 35
// §1): the console then says why instead of offering an Approve the API refuses. Another
// approver sees it as theirs to decide.
func TestViewSaysOwnRequest(t *testing.T) {
	requester := &identity.Principal{Subject: "00u1a2b3", TenantID: tenantID, Roles: []string{identity.RoleApprover},
		Email: "Dana.Payables@Example.com"}
	f := newFixture(t, &financetest.ERP{})
	a := financetest.SampleApproval(tenantID, "FA-1", f.clock.Now())
	a.ERPID, a.RequestedBy = "VB-1", "dana.payables@example.com"
	if _, err := f.mem.Create(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	own := func(p *identity.Principal) (bool, bool) {
		var list struct {
			Items []struct {
				OwnRequest bool `json:"ownRequest"`
			} `json:"items"`
		}
		var one struct {
			OwnRequest bool `json:"ownRequest"`
		}
		wl, wd := f.call(p, http.MethodGet, base, ""), f.call(p, http.MethodGet, base+"/FA-1", "")
		if wl.Code != 200 || wd.Code != 200 || json.Unmarshal(wl.Body.Bytes(), &list) != nil || json.Unmarshal(wd.Body.Bytes(), &one) != nil || len(list.Items) != 1 {
			t.Fatalf("list %d %s; detail %d %s", wl.Code, wl.Body, wd.Code, wd.Body)
		}
		return list.Items[0].OwnRequest, one.OwnRequest
	}
	if l, d := own(requester); !l || !d {
		t.Fatalf("the requester is not told it is their own request: list %v, detail %v", l, d)
	}
	if l, d := own(approverBob); l || d {
		t.Fatalf("another approver is told it is their own request: list %v, detail %v", l, d)
	}
}

// The 428 of an approve above the threshold names what the confirmation must say: the
// threshold, the record and the values the approve writes to it.
func TestConfirmationNamesThresholdRecordAndValues(t *testing.T) {
	f := newFixture(t, &financetest.ERP{})
	f.svc.Tenants = f.tenants
	a := financetest.SampleApproval(tenantID, "FA-1", f.clock.Now())
	a.ERPID, a.Amount = "VB-1", "12480.00"
	if _, err := f.mem.Create(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	w := f.call(approverAlice, http.MethodPost, base+"/FA-1/approve", "")
	var p struct {
		Code, Threshold, Amount, Currency, ERPID, Entity string
		Fields                                           map[string]any
	}
	if w.Code != http.StatusPreconditionRequired || json.Unmarshal(w.Body.Bytes(), &p) != nil {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if p.Code != "confirmation_required" || p.Threshold != "10000.00" || p.Amount != "12480.00" || p.ERPID != "VB-1" || p.Entity != a.Entity || len(p.Fields) == 0 {
		t.Fatalf("the problem does not name threshold, record and values: %s", w.Body)
	}
}
