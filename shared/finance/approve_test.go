package finance_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/finance/financetest"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/identity"
)

func TestApproveAcceptsThroughTheGuard(t *testing.T) {
	f, h := newGuardFixture(t)
	a := f.mustCreate("FA-1", "VB-1")
	h.seed(a)
	f.clock.Advance(time.Minute)

	w := f.approve(approverAlice, a.ID)
	if w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	var raw map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "erpId", "status", "amount", "currency", "vendor", "entity", "description",
		"leaseExpiresAt", "createdAt", "updatedAt", "decidedBy", "decidedAt", "lastError", "fields"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("response lacks %q: %s", k, w.Body)
		}
	}
	for k := range raw {
		if k == "leaseToken" || k == "lease_token" || k == "lease" {
			t.Errorf("response exposes %q", k)
		}
	}
	var v finance.View
	_ = json.Unmarshal(w.Body.Bytes(), &v)
	if v.Status != finance.StatusAccepted || v.DecidedBy == nil || *v.DecidedBy != "alice" || v.DecidedAt == nil ||
		!v.DecidedAt.Equal(t0.Add(time.Minute)) || v.LeaseExpiresAt != nil || *v.ERPID != "VB-1" || v.Amount != "12480.00" {
		t.Fatalf("accepted view %s", w.Body)
	}

	writes := h.fake.Writes()
	if len(writes) != 1 || writes[0].IdempotencyKey != finance.IdempotencyKey(a.ID) || writes[0].Origin != "hosterp" ||
		writes[0].Entity != "vendorBill" || writes[0].ID != "VB-1" {
		t.Fatalf("ERP writes %+v", writes)
	}
	rec, _ := h.fake.Get("vendorBill", "VB-1")
	if rec.Fields["approvalStatus"] != "approved" || rec.Fields["paymentHold"] != false {
		t.Fatalf("ERP record after approve: %+v", rec.Fields)
	}
	if got := f.row(a.ID); got.Status != finance.StatusAccepted || got.Lease != nil {
		t.Fatalf("stored row %+v", got)
	}
	ok := f.auditsOf(finance.ActionApprove)
	if len(ok) != 1 || ok[0].Result != "success" || ok[0].Actor.Actor != "alice" || ok[0].Resource != "finance/FA-1" ||
		details(t, ok[0])["replayed"] != false {
		t.Fatalf("finance.approve audit %+v", ok)
	}
	if cw := f.auditsOf(governance.ActionConnectorWrite); len(cw) != 1 || cw[0].Result != "success" {
		t.Fatalf("the guard's connector.write audit: %+v", cw)
	}
	if calls := f.store.Calls(); calls["BeginAccept"] != 1 || calls["CompleteAccept"] != 1 || calls["Get"] != 1 || calls["Revert"] != 0 {
		t.Fatalf("store calls %v: want one read (four eyes) and one write per stage", calls)
	}
}

// Every failure after the lease: the row is pending again with the error recorded,
// exactly one finance.approve failure names the cause, and the status is the documented
// one.
func TestApproveFailureCauses(t *testing.T) {
	cardFields := json.RawMessage(`{"approvalStatus":"approved","memo":"pay with 4111 1111 1111 1111"}`)
	cases := []struct {
		name       string
		opts       []hostOption
		fake       *financetest.ERP // replaces the guard when set
		erpID      string
		fields     json.RawMessage
		seed       bool
		prepare    func(*hostERP)
		wantStatus int
		wantCode   string
		wantCause  finance.Cause
		wantDetail map[string]any
	}{
		{name: "row without erp_id", erpID: "", wantStatus: 400, wantCode: "missing_erp_id", wantCause: finance.CauseMissingERPID},
		{name: "connector throws (ERP answers 500)", erpID: "VB-1", seed: true,
			prepare:    func(h *hostERP) { h.fake.FailNext(1, http.StatusInternalServerError) },
			wantStatus: 502, wantCode: "erp_update_failed", wantCause: finance.CauseConnectorError,
			wantDetail: map[string]any{"connectorError": "unavailable"}},
		{name: "connector throws (ERP record missing)", erpID: "VB-404", seed: false,
			wantStatus: 502, wantCode: "erp_update_failed", wantCause: finance.CauseConnectorError,
			wantDetail: map[string]any{"connectorError": "not_found"}},
		{name: "connector returns nothing (fake)", erpID: "VB-1", fake: &financetest.ERP{Nothing: true},
			wantStatus: 502, wantCode: "erp_returned_nothing", wantCause: finance.CauseReturnedNothing},
		{name: "connector returns nothing (ERP takes the PATCH but reads back without the update)", erpID: "VB-1",
			opts: []hostOption{withHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet {
					_, _ = w.Write([]byte(`{"links":[],"id":"VB-1"}`))
					return
				}
				w.WriteHeader(http.StatusNoContent)
			}))},
			wantStatus: 502, wantCode: "erp_returned_nothing", wantCause: finance.CauseReturnedNothing},
		{name: "connector not configured", erpID: "VB-1", opts: []hostOption{notConfigured},
			wantStatus: 503, wantCode: "connector_not_configured", wantCause: finance.CauseNotConfigured},
		{name: "governance check unavailable", erpID: "VB-1", opts: []hostOption{manifestsDown},
			wantStatus: 503, wantCode: "connector_unavailable", wantCause: finance.CauseUnavailable},
		{name: "ownership rejected", erpID: "VB-1", seed: true,
			prepare: func(h *hostERP) {
				_ = h.overrides.PutOverrides(context.Background(), tenantID, []governance.Entry{
					{Entity: "vendorBill", Owner: connector.SystemERP2, Policy: governance.PolicyRejectWithAlert}})
			},
			wantStatus: 409, wantCode: "ownership_rejected", wantCause: finance.CauseRefused,
			wantDetail: map[string]any{"refusal": "ownership_rejected"}},
		{name: "every field dropped by source_wins", erpID: "VB-1", seed: true, fields: finance.DefaultFields,
			prepare: func(h *hostERP) {
				_ = h.overrides.PutOverrides(context.Background(), tenantID, []governance.Entry{
					{Entity: "vendorBill", Field: "approvalStatus", Owner: connector.SystemERP2, Policy: governance.PolicySourceWins}})
			},
			wantStatus: 409, wantCode: "ownership_rejected", wantCause: finance.CauseRefused},
		{name: "held for an ownership approval", erpID: "VB-1", seed: true,
			prepare: func(h *hostERP) {
				_ = h.overrides.PutOverrides(context.Background(), tenantID, []governance.Entry{
					{Entity: "vendorBill", Owner: connector.SystemERP2, Policy: governance.PolicyRequireApproval}})
			},
			wantStatus: 409, wantCode: "ownership_approval_required", wantCause: finance.CauseRefused},
		{name: "DLP blocks card data", erpID: "VB-1", seed: true, fields: cardFields,
			wantStatus: 409, wantCode: "dlp_blocked", wantCause: finance.CauseRefused},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, h := newGuardFixture(t, tc.opts...)
			if tc.fake != nil {
				f.svc.ERP = tc.fake
			}
			a := financetest.SampleApproval(tenantID, "FA-1", t0)
			a.ERPID = tc.erpID
			if tc.fields != nil {
				a.Fields = tc.fields
			}
			if _, err := f.mem.Create(context.Background(), a); err != nil {
				t.Fatal(err)
			}
			if tc.seed {
				h.seed(a)
			}
			if tc.prepare != nil {
				tc.prepare(h)
			}
			w := f.approve(approverAlice, a.ID)
			wantProblem(t, w, tc.wantStatus, tc.wantCode)

			got := f.row(a.ID)
			if got.Status != finance.StatusPending || got.Lease != nil || got.LastError == "" {
				t.Fatalf("row after the failure: %+v", got)
			}
			fails := f.auditsOf(finance.ActionApprove)
			if len(fails) != 1 || fails[0].Result != "failure" {
				t.Fatalf("finance.approve records %+v, want one failure", fails)
			}
			d := details(t, fails[0])
			if d["cause"] != string(tc.wantCause) || d["reverted"] != true || d["erpId"] != tc.erpID {
				t.Fatalf("failure details %v, want cause %s", d, tc.wantCause)
			}
			for k, v := range tc.wantDetail {
				if d[k] != v {
					t.Errorf("details[%s] = %v, want %v", k, d[k], v)
				}
			}
			if n := h.fake.WriteCount(); n != 0 {
				t.Fatalf("%d ERP writes applied", n)
			}
			// The row can be approved again once the cause is gone; that is what pending means.
			if _, err := f.mem.BeginAccept(context.Background(), tenantID, a.ID, finance.NewLease(t0, time.Minute), t0); err != nil {
				t.Fatalf("row not approvable again: %v", err)
			}
		})
	}
}

// Approve A holds the lease while its ERP call hangs; the lease expires; approve B takes
// the row over and is itself mid-write when A's call returns. A cannot complete and must
// not revert B's lease; its update did reach the ERP, so it audits a success and answers
// 409 with the row's state (B holds it); B then completes. The ERP applied the update
// once: B's call carried the same idempotency key and replayed.
func TestApproveLosesTheRaceToATakeover(t *testing.T) {
	f, h := newGuardFixture(t)
	a := f.mustCreate("FA-1", "VB-1")
	h.seed(a)
	g := newGate(finance.GuardUpdater{Guard: h.guard, Records: h.registry}, 1, 2)
	f.svc.ERP = g

	resA := make(chan *httptest.ResponseRecorder)
	go func() { resA <- f.approve(approverAlice, a.ID) }()
	g.waitEntered(t, 1)
	leaseA := *f.row(a.ID).Lease

	f.clock.Advance(finance.DefaultLeaseTTL + time.Second)
	resB := make(chan *httptest.ResponseRecorder)
	go func() { resB <- f.approve(approverBob, a.ID) }()
	g.waitEntered(t, 2)
	leaseB := *f.row(a.ID).Lease
	if leaseB.Token == leaseA.Token || !leaseB.ExpiresAt.After(leaseA.ExpiresAt) {
		t.Fatalf("B did not take a new lease: A %v, B %v", leaseA.ExpiresAt, leaseB.ExpiresAt)
	}

	// A's ERP update goes through (it is applied), then its completion loses.
	g.open(1)
	wA := <-resA
	wantProblem(t, wA, http.StatusConflict, "state_changed")
	if got := f.row(a.ID); got.Status != finance.StatusApplying || got.Lease == nil || got.Lease.Token != leaseB.Token {
		t.Fatalf("A touched B's lease: %+v", got)
	}
	recsA := f.auditsOf(finance.ActionApprove)
	if len(recsA) != 1 || recsA[0].Result != "success" || recsA[0].Actor.Actor != "alice" ||
		details(t, recsA[0])["completion"] != "state_changed" {
		t.Fatalf("after A: finance.approve records %+v", recsA)
	}

	g.open(2)
	if wB := <-resB; wB.Code != http.StatusOK {
		t.Fatalf("B: %d %s", wB.Code, wB.Body)
	}
	if got := f.row(a.ID); got.Status != finance.StatusAccepted || got.DecidedBy != "bob" {
		t.Fatalf("after B: %+v", got)
	}
	if n := h.fake.WriteCount(); n != 1 {
		t.Fatalf("the ERP applied %d updates, want 1", n)
	}
	recs := f.auditsOf(finance.ActionApprove)
	if len(recs) != 2 || recs[1].Result != "success" || details(t, recs[1])["replayed"] != true {
		t.Fatalf("finance.approve records %+v: want A's update, then B's success replayed by the ERP", recs)
	}
}

// The race can also be lost to the sweep: the lease expires while the ERP call hangs (a
// paused process: the call itself is bounded well inside the lease) and the sweep returns
// the row to pending. The update did reach the ERP, so the approve takes the row again and
// records it accepted; nothing is written twice.
func TestApproveLosesTheRaceToTheSweep(t *testing.T) {
	f, h := newGuardFixture(t)
	a := f.mustCreate("FA-1", "VB-1")
	h.seed(a)
	g := newGate(finance.GuardUpdater{Guard: h.guard, Records: h.registry}, 1)
	f.svc.ERP = g

	res := make(chan *httptest.ResponseRecorder)
	go func() { res <- f.approve(approverAlice, a.ID) }()
	g.waitEntered(t, 1)
	f.clock.Advance(finance.DefaultLeaseTTL + time.Second)
	n, err := f.svc.SweepExpiredLeases(context.Background(), tenantID, f.clock.Now())
	if err != nil || n != 1 {
		t.Fatalf("sweep: %d, %v", n, err)
	}
	g.open(1)
	// The update reached the ERP: the approve takes the row again and records it.
	if w := <-res; w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	got := f.row(a.ID)
	if got.Status != finance.StatusAccepted || got.DecidedBy != "alice" || got.AppliedBy != "alice" {
		t.Fatalf("row %+v, want accepted by alice", got)
	}
	recs := f.auditsOf(finance.ActionApprove)
	if len(recs) != 1 || recs[0].Result != "success" {
		t.Fatalf("finance.approve records %+v", recs)
	}
	if exp := f.auditsOf(finance.ActionLeaseExpired); len(exp) != 1 {
		t.Fatalf("lease_expired records %+v", exp)
	}
	wantProblem(t, f.approve(approverBob, a.ID), http.StatusConflict, "not_pending")
	if n := h.fake.WriteCount(); n != 1 {
		t.Fatalf("the ERP applied %d updates, want 1", n)
	}
}

func TestFiftyConcurrentApprovesWriteTheERPOnce(t *testing.T) {
	f, h := newGuardFixture(t)
	a := f.mustCreate("FA-1", "VB-1")
	h.seed(a)
	// A slow ERP answer keeps the winner in applying while the others arrive.
	h.fake.Delay(20 * time.Millisecond)

	const n = 50
	codes := make(chan *httptest.ResponseRecorder, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			<-start
			codes <- f.approve(approverAlice, a.ID)
		})
	}
	close(start)
	wg.Wait()
	close(codes)
	byStatus := map[int]int{}
	byCode := map[string]int{}
	for w := range codes {
		byStatus[w.Code]++
		if w.Code != http.StatusOK {
			byCode[problemOf(t, w).Code]++
		}
	}
	if byStatus[http.StatusOK] != 1 || byStatus[http.StatusConflict] != n-1 {
		t.Fatalf("statuses %v, want one 200 and %d 409", byStatus, n-1)
	}
	if byCode["lease_held"]+byCode["not_pending"] != n-1 {
		t.Fatalf("409 codes %v", byCode)
	}
	if got := h.fake.WriteCount(); got != 1 {
		t.Fatalf("the ERP applied %d updates, want 1", got)
	}
	// One write is three requests to NetSuite: the read of read-compare-write, the PATCH
	// (204, no body) and the read-back.
	if reqs := h.fake.Requests(); reqs != 3 {
		t.Fatalf("the ERP received %d requests, want the 3 of one write: losers must not call it", reqs)
	}
	if got := f.row(a.ID); got.Status != finance.StatusAccepted {
		t.Fatalf("row %+v", got)
	}
	if recs := f.auditsOf(finance.ActionApprove); len(recs) != 1 || recs[0].Result != "success" {
		t.Fatalf("finance.approve records %+v", recs)
	}
}

// A crash between the ERP update and completeAccept leaves the row applying with the ERP
// updated. Until the lease expires nobody may approve; after it, a retry takes the lease
// over, finds the update in the guard's write ledger and completes the row without
// calling the ERP (or the sweep does the same).
func TestCrashAfterTheERPUpdateIsCompletedByARetry(t *testing.T) {
	for _, viaSweep := range []bool{false, true} {
		name := "retry takes the expired lease over"
		if viaSweep {
			name = "the sweep finds the write in the ledger and completes the row"
		}
		t.Run(name, func(t *testing.T) {
			f, h := newGuardFixture(t)
			a := f.mustCreate("FA-1", "VB-1")
			h.seed(a)
			crashed := false
			f.svc.Hooks.AfterERPUpdate = func(context.Context, finance.Approval) {
				if !crashed {
					crashed = true
					panic("lambda killed")
				}
			}
			func() {
				defer func() {
					if recover() == nil {
						t.Fatal("the hook did not stop the approve")
					}
				}()
				f.approve(approverAlice, a.ID)
			}()
			if got := f.row(a.ID); got.Status != finance.StatusApplying || got.Lease == nil {
				t.Fatalf("after the crash: %+v", got)
			}
			if h.fake.WriteCount() != 1 {
				t.Fatalf("the crash came before the ERP update")
			}
			wantProblem(t, f.approve(approverBob, a.ID), http.StatusConflict, "lease_held")

			f.clock.Advance(finance.DefaultLeaseTTL + time.Second)
			if viaSweep {
				if n, err := f.svc.SweepExpiredLeases(context.Background(), tenantID, f.clock.Now()); err != nil || n != 1 {
					t.Fatalf("sweep: %d %v", n, err)
				}
				// The crash came before the marker; the guard's ledger still has the write. The
				// decision is the approver's whose lease it was, not the schedule's.
				if got := f.row(a.ID); got.Status != finance.StatusAccepted || got.DecidedBy != approverAlice.Subject {
					t.Fatalf("after the sweep: %+v", got)
				}
				if n := h.fake.WriteCount(); n != 1 {
					t.Fatalf("the ERP applied %d updates, want 1", n)
				}
				wantProblem(t, f.approve(approverBob, a.ID), http.StatusConflict, "not_pending")
				return
			}
			w := f.approve(approverBob, a.ID)
			if w.Code != http.StatusOK {
				t.Fatalf("retry: %d %s", w.Code, w.Body)
			}
			if n := h.fake.WriteCount(); n != 1 {
				t.Fatalf("the ERP applied %d updates, want 1", n)
			}
			recs := f.auditsOf(finance.ActionApproveCompleted)
			if len(recs) != 1 || recs[0].Result != "success" || recs[0].Actor.Actor != "bob" || details(t, recs[0])["evidence"] != "write_ledger" {
				t.Fatalf("finance.approve_completed records %+v, want bob's on the ledger's evidence", recs)
			}
			if cw := f.auditsOf(governance.ActionConnectorWrite); len(cw) != 1 {
				t.Fatalf("connector.write records %+v, want alice's only", cw)
			}
		})
	}
}

func TestApproveRefusals(t *testing.T) {
	f, h := newGuardFixture(t)
	pending := f.mustCreate("FA-1", "VB-1")
	h.seed(pending)
	accepted := f.mustCreate("FA-2", "VB-2")
	h.seed(accepted)
	if w := f.approve(approverAlice, accepted.ID); w.Code != http.StatusOK {
		t.Fatal(w.Body)
	}
	rejected := f.mustCreate("FA-3", "VB-3")
	if _, err := f.mem.Reject(context.Background(), tenantID, rejected.ID, "bob", "", t0); err != nil {
		t.Fatal(err)
	}
	held := f.mustCreate("FA-4", "VB-4")
	if _, err := f.mem.BeginAccept(context.Background(), tenantID, held.ID, finance.NewLease(t0, time.Minute), t0); err != nil {
		t.Fatal(err)
	}
	writes := h.fake.WriteCount()
	audits := len(f.audits.All())

	check := func(name string, w *httptest.ResponseRecorder, status int, code string) {
		t.Run(name, func(t *testing.T) { wantProblem(t, w, status, code) })
	}
	check("unknown id", f.approve(approverAlice, "FA-404"), 404, "not_found")
	check("another tenant's row", f.approve(otherTenant, pending.ID), 404, "not_found")
	check("malformed id", f.approve(approverAlice, "FA%20one"), 400, "invalid_id")
	check("accepted row", f.approve(approverAlice, accepted.ID), 409, "not_pending")
	check("rejected row", f.approve(approverAlice, rejected.ID), 409, "not_pending")
	check("lease held", f.approve(approverAlice, held.ID), 409, "lease_held")
	check("operator without the approver role", f.approve(operatorOnly, pending.ID), 403, "forbidden")
	check("anonymous", f.approve(nil, pending.ID), 401, "unauthenticated")

	if h.fake.WriteCount() != writes || len(f.audits.All()) != audits {
		t.Fatalf("a refused approve wrote to the ERP or the audit log")
	}
	if got := f.row(pending.ID); got.Status != finance.StatusPending {
		t.Fatalf("refusals changed the pending row: %+v", got)
	}
	alice, _ := identity.Derive(approverAlice, nil)
	if _, err := f.svc.Approve(context.Background(), alice, "FA-404", nil); !errors.Is(err, finance.ErrNotFound) {
		t.Fatalf("service: err=%v", err)
	}
}

// The approver's connection dropping after the ERP update must not leave the row applying:
// the completion does not depend on the caller staying.
func TestApproveCompletesWhenTheCallerLeavesAfterTheERPUpdate(t *testing.T) {
	f, h := newGuardFixture(t)
	a := f.mustCreate("FA-1", "VB-1")
	h.seed(a)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.svc.Hooks.AfterERPUpdate = func(context.Context, finance.Approval) { cancel() }
	r := httptest.NewRequest(http.MethodPost, base+"/FA-1/approve", strings.NewReader(confirmed))
	r = r.WithContext(identity.WithAuth(ctx, *approverAlice))
	w := httptest.NewRecorder()
	f.mux.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if got := f.row(a.ID); got.Status != finance.StatusAccepted {
		t.Fatalf("row %+v", got)
	}
	if recs := f.auditsOf(finance.ActionApprove); len(recs) != 1 || recs[0].Result != "success" {
		t.Fatalf("finance.approve records %+v", recs)
	}
}
