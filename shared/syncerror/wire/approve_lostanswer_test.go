package wire

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
)

// approveLosingTheAnswer approves c on a host ERP that applies the PATCH but answers it
// after the approve's write deadline (a slow vendor): the write lands, its answer is lost.
func approveLosingTheAnswer(t *testing.T, f *hostFixture, id string) *httptest.ResponseRecorder {
	t.Helper()
	return approveLosingTheAnswerWith(t, f, id, "")
}

// approveLosingTheAnswerWith is approveLosingTheAnswer with an approve's body.
func approveLosingTheAnswerWith(t *testing.T, f *hostFixture, id, body string) *httptest.ResponseRecorder {
	t.Helper()
	if f.op.Assist != nil {
		f.fake.DelayNext(1, 0) // the approve's read of the values before the fix
	}
	f.fake.DelayNext(1, 0)                     // the write's read
	f.fake.DelayNext(1, 1500*time.Millisecond) // the PATCH: applied, answered too late
	r := httptest.NewRequest(http.MethodPost, "/p/"+id+"/approve", strings.NewReader(body))
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

// partialFix edits SO-10042's fix to carry trackingNumber too, which the shipping system
// owns (source_wins): the guard sends the write without it.
const partialFix = `{"fix":[{"path":"shipzip","after":"01067"},{"path":"trackingNumber","after":"1Z999"}]}`

// A lost answer of a write the guard sent without a field another system owns is settled
// by what was sent: the record never gets trackingNumber from this write, so comparing
// with the whole fix would never find it held (reviewer's H1).
func TestALostAnswerOfAPartialWriteIsSettledAsWritten(t *testing.T) {
	f := newHostFixture(t)
	c := f.readyWith(t, "E-slow", `{"shipzip":"99999"}`, []syncerror.FieldChange{{Path: "shipzip", Before: "99999", After: "01067"}})
	f.op.Fields = nil
	w := approveLosingTheAnswerWith(t, f, c.ID, partialFix)
	row := f.row(t, c.ID)
	if f.held(t)["shipzip"] != "01067" {
		t.Fatalf("the fake did not apply the write: %v", f.held(t))
	}
	if w.Code != http.StatusOK || row.Status != syncerror.StatusApproved {
		t.Fatalf("the host ERP holds what was sent, yet approve answered %d %s and the row is %s", w.Code, w.Body, row.Status)
	}
	if fix := syncerror.WrittenFix(row); len(fix) != 1 || fix[0].Path != "shipzip" {
		t.Fatalf("the row records %#v as written, want shipzip alone", fix)
	}
}

// The reconcile settles the same lost partial write when the approve could not read the
// record: it compares with the fix less the fields the manifest gives another system, and
// records that as written.
func TestTheReconcileSettlesALostPartialWriteByWhatWasSent(t *testing.T) {
	f := newHostFixture(t)
	c := f.readyWith(t, "E-slow", `{"shipzip":"99999"}`, []syncerror.FieldChange{{Path: "shipzip", Before: "99999", After: "01067"}})
	reader := f.op.Assist.Reader
	f.op.Fields, f.op.Assist = nil, nil
	if w := approveLosingTheAnswerWith(t, f, c.ID, partialFix); w.Code != http.StatusAccepted {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	f.rc.Writes = ledgerWrites{ledger: f.ledger, records: reader, manifests: defaultManifests()}
	f.now = f.now.Add(syncerror.DefaultLeaseTTL + time.Minute)
	if _, err := f.rc.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	row := f.row(t, c.ID)
	if row.Status != syncerror.StatusApproved {
		t.Fatalf("the host ERP holds the written fields %v, yet the reconcile left the row %s (%s)", f.held(t), row.Status, row.ApplyError)
	}
	if fix := syncerror.WrittenFix(row); len(fix) != 1 || fix[0].Path != "shipzip" {
		t.Fatalf("the row records %#v as written, want shipzip alone", fix)
	}
}

func defaultManifests() governance.ManifestSource {
	return &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: &governancetest.Overrides{}}
}
