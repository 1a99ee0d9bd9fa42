package finance_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/finance/financetest"
)

func TestRejectIsOneConditionalWriteAndNoERPCall(t *testing.T) {
	erp := &financetest.ERP{}
	f := newFixture(t, erp)
	a := f.mustCreate("FA-1", "VB-1")
	f.clock.Advance(time.Minute)

	w := f.call(approverBob, http.MethodPost, base+"/FA-1/reject", `{"reason":"duplicate of FA-0"}`)
	if w.Code != http.StatusOK {
		t.Fatalf("reject: %d %s", w.Code, w.Body)
	}
	var v finance.View
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	if v.Status != finance.StatusRejected || *v.DecidedBy != "bob" || !v.DecidedAt.Equal(t0.Add(time.Minute)) || *v.Note != "duplicate of FA-0" {
		t.Fatalf("rejected view %s", w.Body)
	}
	if calls := f.store.Calls(); len(calls) != 1 || calls["Reject"] != 1 {
		t.Fatalf("store calls %v, want exactly one conditional write (Reject)", calls)
	}
	if n := len(erp.Calls()); n != 0 {
		t.Fatalf("reject called the ERP %d times", n)
	}
	recs := f.auditsOf(finance.ActionReject)
	if len(recs) != 1 || recs[0].Result != "success" || recs[0].Actor.Actor != "bob" || details(t, recs[0])["reason"] != "duplicate of FA-0" {
		t.Fatalf("finance.reject records %+v", recs)
	}
	if got := f.row(a.ID); got.Status != finance.StatusRejected {
		t.Fatalf("stored row %+v", got)
	}

	// Without a body the reason is simply absent.
	f.mustCreate("FA-2", "VB-2")
	if w := f.call(approverBob, http.MethodPost, base+"/FA-2/reject", ""); w.Code != http.StatusOK {
		t.Fatalf("reject without a body: %d %s", w.Code, w.Body)
	}
}

func TestRejectRefusals(t *testing.T) {
	erp := &financetest.ERP{}
	f := newFixture(t, erp)
	rejected := f.mustCreate("FA-1", "VB-1")
	if _, err := f.mem.Reject(context.Background(), tenantID, rejected.ID, "bob", "", t0); err != nil {
		t.Fatal(err)
	}
	accepted := f.mustCreate("FA-2", "VB-2")
	if w := f.approve(approverAlice, accepted.ID); w.Code != http.StatusOK {
		t.Fatal(w.Body)
	}
	held := f.mustCreate("FA-3", "VB-3")
	if _, err := f.mem.BeginAccept(context.Background(), tenantID, held.ID, finance.NewLease(t0, time.Minute), t0); err != nil {
		t.Fatal(err)
	}
	pending := f.mustCreate("FA-4", "VB-4")
	before := len(f.audits.All())
	cases := []struct {
		name, id, body string
		status         int
		code           string
	}{
		{"already rejected", rejected.ID, "", 409, "not_pending"},
		{"accepted", accepted.ID, "", 409, "not_pending"},
		{"being applied", held.ID, "", 409, "lease_held"},
		{"unknown id", "FA-404", "", 404, "not_found"},
		{"malformed id", "FA%2F1", "", 400, "invalid_id"},
		{"malformed body", pending.ID, `{"reason":`, 400, "malformed_json"},
		{"body null", pending.ID, `null`, 400, "malformed_json"},
		{"reason too long", pending.ID, `{"reason":"` + strings.Repeat("x", 1001) + `"}`, 400, "validation_failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wantProblem(t, f.call(approverBob, http.MethodPost, base+"/"+tc.id+"/reject", tc.body), tc.status, tc.code)
		})
	}
	t.Run("operator without the approver role", func(t *testing.T) {
		wantProblem(t, f.call(operatorOnly, http.MethodPost, base+"/"+pending.ID+"/reject", ""), 403, "forbidden")
	})
	t.Run("another tenant's row", func(t *testing.T) {
		wantProblem(t, f.call(otherTenant, http.MethodPost, base+"/"+pending.ID+"/reject", ""), 404, "not_found")
	})
	if got := f.row(pending.ID); got.Status != finance.StatusPending {
		t.Fatalf("refused rejects changed the row: %+v", got)
	}
	if got := f.row(held.ID); got.Status != finance.StatusApplying {
		t.Fatalf("a reject touched the applying row: %+v", got)
	}
	if len(f.audits.All()) != before {
		t.Fatalf("refused rejects were audited as decisions")
	}
	if n := len(erp.Calls()); n != 1 {
		t.Fatalf("ERP calls %d, want only the approve's", n)
	}
}
