package finance_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/finance/financetest"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
	"github.com/syncassist/syncassist/shared/identity"
)

// failingStore fails the named store methods with a transport error.
type failingStore struct {
	finance.Store
	fail map[string]bool
}

var errStoreDown = errors.New("dynamodb: connection reset")

func (s failingStore) BeginAccept(ctx context.Context, tenantID, id string, l finance.Lease, now time.Time) (finance.Approval, error) {
	if s.fail["BeginAccept"] {
		return finance.Approval{}, errStoreDown
	}
	return s.Store.BeginAccept(ctx, tenantID, id, l, now)
}

func (s failingStore) CompleteAccept(ctx context.Context, tenantID, id, token, by string, now time.Time) (finance.Approval, error) {
	if s.fail["CompleteAccept"] {
		return finance.Approval{}, errStoreDown
	}
	return s.Store.CompleteAccept(ctx, tenantID, id, token, by, now)
}

func (s failingStore) MarkApplied(ctx context.Context, tenantID, id, token, by string, at time.Time) error {
	if s.fail["MarkApplied"] {
		return errStoreDown
	}
	return s.Store.MarkApplied(ctx, tenantID, id, token, by, at)
}

// When both the applied marker and the completion fail after the ERP took the update, the
// sweep finds the write in the guard's ledger and completes the row: it never returns a
// written approval to pending. When the ledger cannot be read it leaves the row alone.
func TestSweepChecksTheWriteLedger(t *testing.T) {
	written := func(t *testing.T) (*fixture, *hostERP, finance.Approval) {
		f, h := newGuardFixture(t)
		a := f.mustCreate("FA-1", "VB-1")
		h.seed(a)
		f.svc.Store = failingStore{Store: f.mem, fail: map[string]bool{"MarkApplied": true, "CompleteAccept": true}}
		if w := f.approve(approverAlice, a.ID); w.Code != http.StatusAccepted {
			t.Fatalf("approve: %d %s", w.Code, w.Body)
		}
		if got := f.row(a.ID); got.Status != finance.StatusApplying || !got.AppliedAt.IsZero() {
			t.Fatalf("row %+v: want applying without the marker", got)
		}
		f.svc.Store = f.mem
		f.clock.Advance(finance.DefaultLeaseTTL + time.Minute)
		return f, h, a
	}
	t.Run("ledger says written: completed", func(t *testing.T) {
		f, h, a := written(t)
		if n, err := f.svc.SweepExpiredLeases(context.Background(), tenantID, f.clock.Now()); err != nil || n != 1 {
			t.Fatalf("sweep finished %d: %v", n, err)
		}
		if got := f.row(a.ID); got.Status != finance.StatusAccepted {
			t.Fatalf("after the sweep the written approval is %s, want accepted", got.Status)
		}
		recs := f.auditsOf(finance.ActionApproveCompleted)
		if len(recs) != 1 || details(t, recs[0])["evidence"] != "write_ledger" || len(f.auditsOf(finance.ActionLeaseExpired)) != 0 {
			t.Fatalf("approve_completed records %+v", recs)
		}
		if n := h.fake.WriteCount(); n != 1 {
			t.Fatalf("%d ERP writes, want 1", n)
		}
	})
	t.Run("ledger unreadable: left for the next sweep", func(t *testing.T) {
		f, _, a := written(t)
		f.svc.Ledger = unreadableLedger{}
		if n, err := f.svc.SweepExpiredLeases(context.Background(), tenantID, f.clock.Now()); err == nil || n != 0 {
			t.Fatalf("sweep finished %d: %v; want 0 and the ledger's error", n, err)
		}
		if got := f.row(a.ID); got.Status != finance.StatusApplying {
			t.Fatalf("row %s, want applying (untouched)", got.Status)
		}
	})
}

type unreadableLedger struct{ governance.Ledger }

func (unreadableLedger) Recent(context.Context, string, string, string, time.Time) ([]governance.LedgerEntry, error) {
	return nil, errStoreDown
}

func TestApproveWhenTheStoreFails(t *testing.T) {
	t.Run("before the lease: nothing happens", func(t *testing.T) {
		erp := &financetest.ERP{}
		f := newFixture(t, erp)
		a := f.mustCreate("FA-1", "VB-1")
		f.svc.Store = failingStore{Store: f.mem, fail: map[string]bool{"BeginAccept": true}}
		wantProblem(t, f.approve(approverAlice, a.ID), http.StatusServiceUnavailable, "temporarily_unavailable")
		if len(erp.Calls()) != 0 || len(f.audits.All()) != 0 || f.row(a.ID).Status != finance.StatusPending {
			t.Fatal("a failed lease write had effects")
		}
	})
	t.Run("at completion: never reverted, answered 202, completed by the sweep", func(t *testing.T) {
		f, h := newGuardFixture(t)
		a := f.mustCreate("FA-1", "VB-1")
		h.seed(a)
		f.svc.Store = failingStore{Store: f.mem, fail: map[string]bool{"CompleteAccept": true}}
		w := f.approve(approverAlice, a.ID)
		var v finance.WrittenView
		if err := json.Unmarshal(w.Body.Bytes(), &v); w.Code != http.StatusAccepted || err != nil ||
			v.Status != finance.StatusApplying || v.ERPAppliedAt == nil || v.Message == "" {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		if got := f.row(a.ID); got.Status != finance.StatusApplying || got.AppliedBy != approverAlice.Subject {
			t.Fatalf("row %+v", got)
		}
		recs := f.auditsOf(finance.ActionApprove)
		if len(recs) != 1 || recs[0].Result != audit.ResultSuccess || details(t, recs[0])["completion"] != "pending" {
			t.Fatalf("finance.approve records %+v", recs)
		}
		f.svc.Store = f.mem
		for _, try := range []*httptest.ResponseRecorder{f.approve(approverAlice, a.ID),
			f.call(approverAlice, http.MethodPost, base+"/FA-1/reject", `{"reason":"no"}`)} {
			wantProblem(t, try, http.StatusConflict, "erp_applied")
		}
		f.clock.Advance(finance.DefaultLeaseTTL + time.Minute)
		if n, err := f.svc.SweepExpiredLeases(context.Background(), tenantID, f.clock.Now()); err != nil || n != 1 {
			t.Fatalf("sweep finished %d: %v", n, err)
		}
		if got := f.row(a.ID); got.Status != finance.StatusAccepted || got.DecidedBy != approverAlice.Subject {
			t.Fatalf("row %+v", got)
		}
		if recs := f.auditsOf(finance.ActionApproveCompleted); len(recs) != 1 || recs[0].Result != audit.ResultSuccess {
			t.Fatalf("finance.approve_completed records %+v", recs)
		}
		if n := h.fake.WriteCount(); n != 1 {
			t.Fatalf("the ERP applied %d updates, want 1", n)
		}
	})
	t.Run("an approve after the lease completes an applied row without a second update", func(t *testing.T) {
		f, h := newGuardFixture(t)
		a := f.mustCreate("FA-1", "VB-1")
		h.seed(a)
		f.svc.Store = failingStore{Store: f.mem, fail: map[string]bool{"CompleteAccept": true}}
		if w := f.approve(approverAlice, a.ID); w.Code != http.StatusAccepted {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		f.svc.Store = f.mem
		f.clock.Advance(finance.DefaultLeaseTTL + time.Second)
		if w := f.approve(approverBob, a.ID); w.Code != http.StatusOK {
			t.Fatalf("%d %s", w.Code, w.Body)
		}
		if got := f.row(a.ID); got.Status != finance.StatusAccepted || got.DecidedBy != approverAlice.Subject || h.fake.WriteCount() != 1 {
			t.Fatalf("row %+v, %d ERP updates", got, h.fake.WriteCount())
		}
	})
}

// The ERP call ends before the request's deadline less the reserve, so reverting or
// completing and the audit still fit in the Lambda's time.
func TestApproveBoundsTheERPCallByTheDeadline(t *testing.T) {
	var got time.Duration
	erp := &financetest.ERP{Before: func(ctx context.Context, _ finance.Approval) {
		d, _ := ctx.Deadline()
		got = time.Until(d)
	}}
	f := newFixture(t, erp)
	a := f.mustCreate("FA-1", "VB-1")
	ctx, cancel := context.WithTimeout(identity.WithAuth(context.Background(), *approverAlice), 30*time.Second)
	defer cancel()
	r := httptest.NewRequest(http.MethodPost, base+"/"+a.ID+"/approve", strings.NewReader(confirmed)).WithContext(ctx)
	f.mux.ServeHTTP(httptest.NewRecorder(), r)
	if got <= 0 || got > 30*time.Second-finance.ERPReserve {
		t.Fatalf("the ERP call had %v of a 30 s request, want at most %v", got, 30*time.Second-finance.ERPReserve)
	}
}

// An approve held for an ownership approval goes through once another approver releases
// the hold, without a second ERP update; one whose hold was denied stays refused.
func TestApproveAfterTheHoldIsDecided(t *testing.T) {
	for _, tc := range []struct {
		decision   string
		wantStatus int
		wantCode   string
		wantWrites int
	}{{"approve", http.StatusOK, "", 1}, {"deny", http.StatusConflict, "ownership_approval_denied", 0}} {
		t.Run(tc.decision, func(t *testing.T) {
			f, h := newGuardFixture(t)
			a := f.mustCreate("FA-1", "VB-1")
			h.seed(a)
			_ = h.overrides.PutOverrides(context.Background(), tenantID, []governance.Entry{
				{Entity: "vendorBill", Owner: connector.SystemERP2, Policy: governance.PolicyRequireApproval}})
			w := f.approve(approverAlice, a.ID)
			wantProblem(t, w, http.StatusConflict, "ownership_approval_required")
			held := h.records.Approvals()
			if len(held) != 1 || held[0].RequestedBy != approverAlice.Subject {
				t.Fatalf("held approvals %+v", held)
			}
			gov := &governance.Service{Records: h.records, Guard: h.guard, Audit: f.svc.Audit.(*audit.Log), Now: f.clock.Now}
			handler := gov.ApproveHandler()
			if tc.decision == "deny" {
				handler = gov.DenyHandler()
			}
			r := httptest.NewRequest(http.MethodPost, "/api/governance/approvals/"+held[0].ID+"/"+tc.decision, nil)
			r.SetPathValue("id", held[0].ID)
			rec := httptest.NewRecorder()
			handler.ServeHTTP(rec, r.WithContext(identity.WithAuth(r.Context(), *approverBob)))
			if rec.Code != http.StatusOK {
				t.Fatalf("%s the hold: %d %s", tc.decision, rec.Code, rec.Body)
			}
			w = f.approve(approverAlice, a.ID)
			if tc.wantCode == "" && w.Code != tc.wantStatus {
				t.Fatalf("approve after the release: %d %s", w.Code, w.Body)
			}
			if tc.wantCode != "" {
				wantProblem(t, w, tc.wantStatus, tc.wantCode)
			}
			if n := h.fake.WriteCount(); n != tc.wantWrites {
				t.Fatalf("the ERP applied %d updates, want %d", n, tc.wantWrites)
			}
		})
	}
}

// throttledLedger fails every ledger append, as a throttled governance table would.
type throttledLedger struct{ governancetest.Ledger }

func (*throttledLedger) Append(context.Context, governance.LedgerEntry) error {
	return errors.New("ProvisionedThroughputExceededException")
}

// throttledAudit fails the guard's connector.write records.
type throttledAudit struct{ audit.Store }

func (a throttledAudit) Put(ctx context.Context, r audit.Record) error {
	if r.ActionKey == governance.ActionConnectorWrite {
		return errors.New("ThrottlingException")
	}
	return a.Store.Put(ctx, r)
}

// A confirmed ERP update whose ledger entry or guard audit record could not be stored is
// an approval that happened: 200, accepted, one update, finance.approve success.
func TestApproveWhenRecordingTheUpdateFails(t *testing.T) {
	for name, opt := range map[string]hostOption{
		"ledger put throttled": func(_ *hostConfigs, d *governance.Deps) { d.Ledger = &throttledLedger{} },
		"audit put throttled": func(_ *hostConfigs, d *governance.Deps) {
			d.Audit = &audit.Log{Store: throttledAudit{d.Audit.Store}, Redactor: d.Audit.Redactor, Now: d.Audit.Now}
		},
	} {
		t.Run(name, func(t *testing.T) {
			f, h := newGuardFixture(t, opt)
			a := f.mustCreate("FA-1", "VB-1")
			h.seed(a)
			if w := f.approve(approverAlice, a.ID); w.Code != http.StatusOK {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			if got := f.row(a.ID); got.Status != finance.StatusAccepted || h.fake.WriteCount() != 1 {
				t.Fatalf("row %+v, %d ERP updates", got, h.fake.WriteCount())
			}
			if recs := f.auditsOf(finance.ActionApprove); len(recs) != 1 || recs[0].Result != audit.ResultSuccess {
				t.Fatalf("finance.approve records %+v", recs)
			}
		})
	}
}
