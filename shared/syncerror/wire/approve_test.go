package wire

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
	"github.com/syncassist/syncassist/shared/tenant"
)

// These tests drive the approve through the real guard and inject a failure at each step
// after the host ERP write. Each proves one write, the row's end state and what the audit
// says.

var t0 = time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)

// flakyLedger fails its appends while failing is set.
type flakyLedger struct {
	governancetest.Ledger
	failing bool
}

func (l *flakyLedger) Append(ctx context.Context, e governance.LedgerEntry) error {
	if l.failing {
		return errors.New("ProvisionedThroughputExceededException")
	}
	return l.Ledger.Append(ctx, e)
}

// flakyAudit fails puts of the records whose action key is in failing.
type flakyAudit struct {
	audittest.Store
	mu      sync.Mutex
	failing map[string]bool
}

func (a *flakyAudit) Put(ctx context.Context, r audit.Record) error {
	a.mu.Lock()
	fail := a.failing[r.ActionKey]
	a.mu.Unlock()
	if fail {
		return errors.New("ThrottlingException")
	}
	return a.Store.Put(ctx, r)
}

// flakyClaims fails MarkApplied and FinishApply(approved) a number of times, as a throttled
// table would, or answers finish with a state change.
type flakyClaims struct {
	*syncerrortest.ClaimStore
	markFails, finishFails int
	finishChanged          bool
	// beforeMarks plays the Lambda version before revert marks: its approves leave
	// RevertsMarked unset, its reverts mark nothing (revertmark_test.go).
	beforeMarks bool
	// clearFails fails the removal of a revert's mark.
	clearFails bool
}

func (c *flakyClaims) MarkRevertSent(ctx context.Context, tenantID, id string, w syncerror.AppliedWrite, m syncerror.RevertMark) error {
	if c.beforeMarks {
		return nil
	}
	return c.ClaimStore.MarkRevertSent(ctx, tenantID, id, w, m)
}

func (c *flakyClaims) ClearRevertSent(ctx context.Context, tenantID, id string, m syncerror.RevertMark) error {
	if c.clearFails {
		return errors.New("ThrottlingException")
	}
	return c.ClaimStore.ClearRevertSent(ctx, tenantID, id, m)
}

func (c *flakyClaims) MarkApplied(ctx context.Context, tenantID, id, token string, w syncerror.AppliedWrite, now time.Time) error {
	if c.markFails > 0 {
		c.markFails--
		return errors.New("ThrottlingException")
	}
	w.RevertsMarked = w.RevertsMarked && !c.beforeMarks
	return c.ClaimStore.MarkApplied(ctx, tenantID, id, token, w, now)
}

func (c *flakyClaims) FinishApply(ctx context.Context, tenantID, id, token string, to syncerror.Status, applyErr string, e syncerror.HistoryEntry, now time.Time) error {
	if c.finishChanged {
		return syncerror.ErrStateChanged
	}
	if to == syncerror.StatusApproved && c.finishFails > 0 {
		c.finishFails--
		return errors.New("ThrottlingException")
	}
	return c.ClaimStore.FinishApply(ctx, tenantID, id, token, to, applyErr, e, now)
}

// CompleteApply is the completion write that also marks the row (the approve's one write
// after the ERP's): it fails as FinishApply(approved) does, and leaves no marker when it does.
func (c *flakyClaims) CompleteApply(ctx context.Context, tenantID, id, token string, w syncerror.AppliedWrite, e syncerror.HistoryEntry, now time.Time) (syncerror.Claim, error) {
	if c.finishChanged {
		return syncerror.Claim{}, syncerror.ErrStateChanged
	}
	if c.finishFails > 0 {
		c.finishFails--
		return syncerror.Claim{}, errors.New("ThrottlingException")
	}
	w.RevertsMarked = w.RevertsMarked && !c.beforeMarks
	return c.ClaimStore.CompleteApply(ctx, tenantID, id, token, w, e, now)
}

type redactor struct{ s *dlp.Scanner }

func (r redactor) RedactJSON(_ context.Context, doc []byte) ([]byte, error) {
	res, err := r.s.ScanJSON(dlp.Record, doc)
	return res.Output, err
}

type fixture struct {
	claims *flakyClaims
	ledger *flakyLedger
	audits *flakyAudit
	conns  *governancetest.Connectors
	op     *decisions.Service
	rc     *intake.Reconcile
	now    time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{claims: &flakyClaims{ClaimStore: syncerrortest.NewClaimStore()}, ledger: &flakyLedger{},
		audits: &flakyAudit{failing: map[string]bool{}}, conns: &governancetest.Connectors{Keep: true}, now: t0}
	clock := func() time.Time { return f.now }
	scanner := dlp.NewScanner()
	log := &audit.Log{Store: f.audits, Redactor: redactor{scanner}, Now: clock}
	g, err := governance.NewGuard(governance.Deps{
		Manifests: &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: &governancetest.Overrides{}},
		Ledger:    f.ledger, Records: &governancetest.Store{}, Connectors: f.conns, Scanner: scanner, Audit: log, Now: clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	f.op = &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: f.claims, Audit: log, Now: clock}}}, Fixes: fixWriter{g}}
	f.op.Evidence = ledgerWrites{ledger: f.ledger}
	f.rc = &intake.Reconcile{Tenants: tenants{}, Claims: f.claims, Audit: log, Now: clock, Writes: ledgerWrites{ledger: f.ledger},
		Log: discard()}
	return f
}

func (f *fixture) ready(t *testing.T, errorID string) syncerror.Claim {
	t.Helper()
	ctx := context.Background()
	c := syncerror.NewClaim(syncerrortest.SampleRecord("acme", errorID), syncerror.SourceWebhook, "wh-1", f.now)
	if _, err := f.claims.Claim(ctx, c); err != nil {
		t.Fatal(err)
	}
	got, err := f.claims.BeginDiagnosis(ctx, "acme", c.ID, f.now, f.now)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.claims.CompleteDiagnosis(ctx, "acme", c.ID, got.DiagnosisAttempts, syncerrortest.SampleProposal("inf-1", f.now), f.now); err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *fixture) call(t *testing.T, h http.Handler, id, body string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/p/"+id+"/x", strings.NewReader(body))
	r.SetPathValue("id", id)
	r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{Subject: "alice", TenantID: "acme", Roles: []string{"approver"}}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// fixKey confirms the row's fix as it stands, as a bulk approve that showed it does.
func fixKey(c syncerror.Claim) string {
	k, _ := syncerror.ConfirmKey(c.Proposal.Class, syncerror.FixOf(c))
	return k
}

func (f *fixture) row(t *testing.T, id string) syncerror.Claim {
	t.Helper()
	c, err := f.claims.Get(context.Background(), "acme", id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// approveRecords are the syncerror.approve* audit records, oldest first.
func (f *fixture) approveRecords() []audit.Record {
	var out []audit.Record
	for _, r := range f.audits.All() {
		if strings.HasPrefix(r.ActionKey, "syncerror.approve") {
			out = append(out, r)
		}
	}
	return out
}

func code(w *httptest.ResponseRecorder) string {
	var p struct{ Code string }
	_ = json.Unmarshal(w.Body.Bytes(), &p)
	return p.Code
}

// tenants lists one tenant with the feature switched off: the reconcile still sweeps its
// leases (and, switched off, does nothing else).
type tenants struct{}

func (tenants) List(context.Context) ([]tenant.Config, error) {
	return []tenant.Config{{ID: "acme"}}, nil
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// A write the host ERP took is a success even when the guard could not store its ledger
// entry or its audit record: 200, approved, one write, the approve audited as a success.
func TestApproveWrittenButNotRecordedIsASuccess(t *testing.T) {
	for _, tc := range []struct {
		name   string
		inject func(f *fixture)
	}{
		{"ledger put throttled", func(f *fixture) { f.ledger.failing = true }},
		{"audit put throttled", func(f *fixture) { f.audits.failing[governance.ActionConnectorWrite] = true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			c := f.ready(t, "E-1")
			tc.inject(f)
			w := f.call(t, f.op.ApproveHandler(), c.ID, "")
			if w.Code != http.StatusOK {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			if row := f.row(t, c.ID); row.Status != syncerror.StatusApproved || row.Applied == nil || f.conns.Count() != 1 {
				t.Fatalf("row %s applied %v, %d writes", row.Status, row.Applied, f.conns.Count())
			}
			recs := f.approveRecords()
			if len(recs) != 1 || recs[0].Result != audit.ResultSuccess || !strings.Contains(string(recs[0].Details), `"recorded":false`) {
				t.Fatalf("approve audit %+v", recs)
			}
		})
	}
}

// The queue's table fails after the write: the answer says the fix was written (202), the
// row stays applying and marked, reject and re-approve are refused, and the reconcile
// completes it approved once the lease expires, without a second write.
func TestApproveCompletionFailureIsCompletedByTheReconcile(t *testing.T) {
	f := newFixture(t)
	c := f.ready(t, "E-1")
	f.claims.finishFails = 3
	w := f.call(t, f.op.ApproveHandler(), c.ID, "")
	if w.Code != http.StatusAccepted || !strings.Contains(w.Body.String(), `"applied":true`) {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	row := f.row(t, c.ID)
	if row.Status != syncerror.StatusApplying || row.Applied == nil || row.Applied.Key != syncerror.FixKey(c.ID, row.Proposal.Fix) {
		t.Fatalf("row %s applied %+v", row.Status, row.Applied)
	}
	if w := f.call(t, f.op.RejectHandler(), c.ID, `{"reason":"wrong"}`); w.Code != http.StatusConflict || code(w) != "erp_applied" {
		t.Fatalf("reject: %d %s", w.Code, w.Body)
	}
	if w := f.call(t, f.op.ApproveHandler(), c.ID, `{"fix":[{"path":"shipcountry","after":"AT"}]}`); w.Code != http.StatusConflict || code(w) != "erp_applied" {
		t.Fatalf("re-approve with an edit: %d %s", w.Code, w.Body)
	}
	f.now = f.now.Add(syncerror.DefaultLeaseTTL + time.Minute)
	rep, err := f.rc.Run(context.Background())
	if err != nil || rep.LeasesCompleted != 1 || rep.LeasesExpired != 0 {
		t.Fatalf("reconcile %+v err %v", rep, err)
	}
	if row := f.row(t, c.ID); row.Status != syncerror.StatusApproved || f.conns.Count() != 1 {
		t.Fatalf("row %s, %d writes", row.Status, f.conns.Count())
	}
	recs := f.approveRecords()
	if len(recs) != 2 || recs[0].ActionKey != "syncerror.approve" || recs[0].Result != audit.ResultSuccess ||
		recs[1].ActionKey != "syncerror.approve_completed" || recs[1].Actor.Actor != "schedule:reconcile" {
		t.Fatalf("audit %+v", recs)
	}
}

// An approve of a row whose writer stopped after marking it completes it instead of
// writing again.
func TestApproveCompletesAnAppliedRowAfterItsLease(t *testing.T) {
	f := newFixture(t)
	c := f.ready(t, "E-1")
	f.claims.finishFails = 3
	if w := f.call(t, f.op.ApproveHandler(), c.ID, ""); w.Code != http.StatusAccepted {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	f.now = f.now.Add(syncerror.DefaultLeaseTTL + time.Second)
	w := f.call(t, f.op.ApproveHandler(), c.ID, "")
	if w.Code != http.StatusOK || f.row(t, c.ID).Status != syncerror.StatusApproved || f.conns.Count() != 1 {
		t.Fatalf("%d %s, %d writes", w.Code, w.Body, f.conns.Count())
	}
}

// The marker could not be stored either: the reconcile finds the write in the ledger
// and completes the row; a row whose write is not in the ledger returns to pending.
func TestReconcileReadsTheLedgerWhenTheMarkerIsMissing(t *testing.T) {
	f := newFixture(t)
	written, failed := f.ready(t, "E-1"), f.ready(t, "E-2")
	f.claims.markFails, f.claims.finishFails = 3, 3
	if w := f.call(t, f.op.ApproveHandler(), written.ID, ""); w.Code != http.StatusAccepted {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if row := f.row(t, written.ID); row.Applied != nil {
		t.Fatalf("the marker was stored: %+v", row.Applied)
	}
	// An approve that stopped before its write: lease taken, nothing written.
	lease := syncerror.NewLease(f.now, syncerror.DefaultLeaseTTL)
	if _, err := f.claims.BeginApply(context.Background(), "acme", failed.ID, syncerror.StatusPending, lease, nil, syncerror.HistoryEntry{At: f.now, Actor: "bob", Action: "approve"}, f.now); err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(syncerror.DefaultLeaseTTL + time.Minute)
	rep, err := f.rc.Run(context.Background())
	if err != nil || rep.LeasesCompleted != 1 || rep.LeasesExpired != 1 {
		t.Fatalf("reconcile %+v err %v", rep, err)
	}
	if s := f.row(t, written.ID).Status; s != syncerror.StatusApproved {
		t.Errorf("written row %s, want approved", s)
	}
	if s := f.row(t, failed.ID).Status; s != syncerror.StatusPending {
		t.Errorf("unwritten row %s, want pending", s)
	}
	if f.conns.Count() != 1 {
		t.Errorf("%d writes", f.conns.Count())
	}
}

// A row that changed after the write is answered as it is, never as a plain success.
func TestApproveAnswersTheWinnersState(t *testing.T) {
	f := newFixture(t)
	c := f.ready(t, "E-1")
	f.claims.finishChanged = true
	w := f.call(t, f.op.ApproveHandler(), c.ID, "")
	if w.Code != http.StatusConflict || code(w) != "state_changed" || !strings.Contains(w.Body.String(), "applying") {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}

// The host ERP write gets the request's deadline less the reserve, so completion and the
// audit still fit; a write that could not start in time returns the row to pending with
// the failure audited.
func TestApproveBoundsTheWriteByTheDeadline(t *testing.T) {
	f := newFixture(t)
	c := f.ready(t, "E-1")
	r := httptest.NewRequest(http.MethodPost, "/p/"+c.ID+"/approve", nil)
	r.SetPathValue("id", c.ID)
	ctx, cancel := context.WithTimeout(identity.WithAuth(r.Context(), identity.Principal{Subject: "alice", TenantID: "acme", Roles: []string{"approver"}}),
		decisions.WriteReserve-time.Second)
	defer cancel()
	f.conns.Err = nil
	w := httptest.NewRecorder()
	f.op.Fixes = deadlineWriter{t: t, inner: f.op.Fixes}
	f.op.ApproveHandler().ServeHTTP(w, r.WithContext(ctx))
	if w.Code != http.StatusBadGateway || f.conns.Count() != 0 {
		t.Fatalf("%d %s, %d writes", w.Code, w.Body, f.conns.Count())
	}
	if row := f.row(t, c.ID); row.Status != syncerror.StatusPending {
		t.Fatalf("row %s", row.Status)
	}
	if recs := f.approveRecords(); len(recs) != 1 || recs[0].Result != audit.ResultFailure {
		t.Fatalf("audit %+v", recs)
	}
}

// deadlineWriter refuses to write once the context it was given is done, as a connector
// whose request cannot start would.
type deadlineWriter struct {
	t     *testing.T
	inner syncerror.FixWriter
}

func (d deadlineWriter) WriteFix(ctx context.Context, who identity.Identity, c syncerror.Claim, fix []syncerror.FieldChange, key, ifVersion string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return d.inner.WriteFix(ctx, who, c, fix, key, ifVersion)
}

// A bulk approve counts an item whose fix was written as written, never as failed.
func TestBulkCountsAWrittenItemAsWritten(t *testing.T) {
	f := newFixture(t)
	c := f.ready(t, "E-1")
	f.claims.finishFails = 3
	w := f.call(t, f.op.BulkHandler(), "", `{"action":"approve","fixKeys":["`+fixKey(f.row(t, c.ID))+`"],"ids":["`+c.ID+`"]}`)
	var res decisions.BulkResult
	if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil || w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if res.Succeeded != 1 || res.Failed != 0 || res.Results[0].Outcome != "written" || res.Results[0].Status != http.StatusAccepted {
		t.Fatalf("result %+v", res)
	}
}

// A fix partly owned by another system (source_wins) is written without those fields: the
// approve succeeds, and its audit record and history say what was left out.
func TestApprovePartialWriteSaysWhatWasLeftOut(t *testing.T) {
	f := newFixture(t)
	c := f.ready(t, "E-1")
	w := f.call(t, f.op.ApproveHandler(), c.ID, `{"fix":[{"path":"shipcountry","after":"DE"},{"path":"trackingNumber","after":"1Z999"}]}`)
	if w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	writes := f.conns.Writes()
	if len(writes) != 1 || writes[0].Req.Fields["trackingNumber"] != nil || writes[0].Req.Fields["shipcountry"] != "DE" {
		t.Fatalf("writes %+v", writes)
	}
	recs := f.approveRecords()
	if len(recs) != 1 || !strings.Contains(string(recs[0].Details), `"partial":true`) || !strings.Contains(string(recs[0].Details), "trackingNumber") {
		t.Fatalf("approve audit %+v", recs)
	}
	row := f.row(t, c.ID)
	if last := row.History[len(row.History)-1]; row.Status != syncerror.StatusApproved || !strings.Contains(last.Note, "trackingNumber") {
		t.Fatalf("row %s, last history %+v", row.Status, last)
	}
}
