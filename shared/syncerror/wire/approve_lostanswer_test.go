package wire

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
)

// approveLosingTheAnswer approves c on a host ERP that applies the PATCH but answers it
// after the approve's write deadline (a slow vendor): the write lands, its answer is lost.
func approveLosingTheAnswer(t *testing.T, f *hostFixture, id string) *httptest.ResponseRecorder {
	t.Helper()
	if f.op.Assist != nil {
		f.fake.DelayNext(1, 0) // the approve's read of the values before the fix
	}
	f.fake.DelayNext(1, 0)                     // the write's read
	f.fake.DelayNext(1, 1500*time.Millisecond) // the PATCH: applied, answered too late
	r := httptest.NewRequest(http.MethodPost, "/p/"+id+"/approve", nil)
	r.SetPathValue("id", id)
	ctx := identity.WithAuth(r.Context(), identity.Principal{Subject: "alice", TenantID: "acme", Roles: []string{"approver"}})
	ctx, cancel := context.WithTimeout(ctx, decisions.WriteReserve+700*time.Millisecond)
	defer cancel()
	w := httptest.NewRecorder()
	f.op.ApproveHandler().ServeHTTP(w, r.WithContext(ctx))
	return w
}

// A write whose answer was lost is never reported as failed nor returned to pending: with
// no way to read the record back, the row stays applying for the reconcile.
func TestALostAnswerIsNotReportedAsFailed(t *testing.T) {
	f := newHostFixture(t)
	c := f.readyWith(t, "E-slow", `{"shipzip":"99999"}`, []syncerror.FieldChange{{Path: "shipzip", Before: "99999", After: "01067"}})
	f.op.Fields, f.op.Assist = nil, nil
	w := approveLosingTheAnswer(t, f, c.ID)
	held, row := f.held(t)["shipzip"], f.row(t, c.ID)
	if held != "01067" {
		t.Fatalf("the fake did not apply the write: %#v", held)
	}
	if w.Code != http.StatusAccepted || row.Status != syncerror.StatusApplying || row.Lease == nil {
		t.Fatalf("host ERP holds the fix but approve answered %d %s and the row is %s", w.Code, w.Body, row.Status)
	}
}

// The approve reads the record back after a lost answer: holding the fix, it completes
// as written, with the fix recorded.
func TestALostAnswerIsSettledByReadingTheRecordBack(t *testing.T) {
	f := newHostFixture(t)
	c := f.readyWith(t, "E-slow", `{"shipzip":"99999"}`, []syncerror.FieldChange{{Path: "shipzip", Before: "99999", After: "01067"}})
	f.op.Fields = nil
	w := approveLosingTheAnswer(t, f, c.ID)
	row := f.row(t, c.ID)
	if w.Code != http.StatusOK || row.Status != syncerror.StatusApproved {
		t.Fatalf("the record read back holds the fix, yet approve answered %d %s and the row is %s", w.Code, w.Body, row.Status)
	}
	if fix := syncerror.WrittenFix(row); len(fix) != 1 || fix[0].After != "01067" {
		t.Fatalf("the row records %#v as written", fix)
	}
}

// A lease left applying after a lost answer is in no ledger: the reconcile reads the
// record back and completes the row that holds the fix, never returning it to pending.
func TestTheReconcileSettlesALostAnswerByReadingTheRecord(t *testing.T) {
	f := newHostFixture(t)
	c := f.readyWith(t, "E-slow", `{"shipzip":"99999"}`, []syncerror.FieldChange{{Path: "shipzip", Before: "99999", After: "01067"}})
	reader := f.op.Assist.Reader
	f.op.Fields, f.op.Assist = nil, nil
	if w := approveLosingTheAnswer(t, f, c.ID); w.Code != http.StatusAccepted {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	f.rc.Writes = ledgerWrites{ledger: f.ledger, records: reader}
	f.now = f.now.Add(syncerror.DefaultLeaseTTL + time.Minute)
	rep, err := f.rc.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	row := f.row(t, c.ID)
	if row.Status != syncerror.StatusApproved || rep.LeasesCompleted != 1 {
		t.Fatalf("the record holds the fix, yet the reconcile left the row %s (report %+v)", row.Status, rep)
	}
	if fix := syncerror.WrittenFix(row); len(fix) != 1 || fix[0].After != "01067" {
		t.Fatalf("the row records %#v as written", fix)
	}
}
