package wire

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/flow/flowtest"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// A flow row's retry re-runs the flow with the approved fix in place of its field; before
// it does, the flow's target record is read and judged as a host row's record is: a
// revert the row did not record, or a value set since, is not written over.

// sourceReader reads a flow's source through the fakes' connectors, as flow.Reader.
type sourceReader struct{ c clientSet }

func (r sourceReader) Get(ctx context.Context, tenantID string, sys connector.System, entity, id string) (connector.Record, error) {
	cl, err := r.c.Client(ctx, tenantID, sys)
	if err != nil {
		return connector.Record{}, err
	}
	return cl.Get(ctx, entity, id)
}

// flowReruns is flow/wire.FlowReruns as production wires it (that package imports this one).
type flowReruns struct {
	x    *flow.Executor
	read flow.Reader
}

func (f flowReruns) Rerun(ctx context.Context, c syncerror.Claim, flowID, rec, key string) syncerror.Delivery {
	res, err := f.x.Rerun(ctx, f.read, c.TenantID, flow.RerunRequest{FlowID: flowID, RecordID: rec, Attempt: key, SyncErrorID: c.ID,
		Fix: syncerror.ApprovedFix(c)})
	if err != nil {
		return syncerror.Delivery{Result: syncerror.DeliveryTransient, Reason: err.Error()}
	}
	if res.Outcome == flow.OutcomeWritten {
		return syncerror.Delivery{Result: syncerror.Delivered, Reason: res.Decision}
	}
	return syncerror.Delivery{Result: syncerror.DeliveryPermanent, Reason: res.Decision}
}

// approvedFlowRow is the sync error of f's failed run for source record C-1 (target record
// C-1, seeded by the caller), its fix path=after approved and written to the target.
// ledger is the deliverer's (nil: the fixture's).
func (e *hostEnv) approvedFlowRow(t *testing.T, f flow.Flow, path, after string, ledger *countedLedger) syncerror.Claim {
	t.Helper()
	ctx := context.Background()
	e.op.Fixes = fixWriter{e.guard}
	e.op.Assist = &policy.Assist{Store: e.claims, Reader: recordReader{e.clients}}
	store := &flowtest.Store{}
	if err := store.PutFlow(ctx, "acme", f); err != nil {
		t.Fatal(err)
	}
	x := &flow.Executor{Store: store, Guard: e.guard, Now: func() time.Time { return e.now }}
	d := deliverer{guard: e.guard, hosts: e.clients, ledger: e.ledger, audits: e.op.Audit.(*audit.Log),
		flows: flowReruns{x: x, read: sourceReader{e.clients}}}
	if ledger != nil {
		d.ledger = ledger
	}
	e.rt.Deliver = d

	rec := syncerrortest.SampleRecord("acme", "E-flow")
	rec.RecordType, rec.RecordID, rec.ErrorCode = f.Target.Entity, "C-1", "FLOW_WRITE_FAILED"
	rec.Payload = json.RawMessage(`{"` + path + `":"030 bad"}`)
	rec.Context = json.RawMessage(`{"flow":{"id":"` + f.ID + `","sourceRecordId":"C-1","source":"` + string(f.Source.System) +
		`","target":"` + string(f.Target.System) + `"}}`)
	c := syncerror.NewClaim(rec, syncerror.SourceFlow, "", e.now)
	if _, err := e.claims.Claim(ctx, c); err != nil {
		t.Fatal(err)
	}
	held, err := e.claims.BeginDiagnosis(ctx, "acme", c.ID, e.now, e.now)
	if err != nil {
		t.Fatal(err)
	}
	p := syncerrortest.SampleProposal("inf-1", e.now)
	p.Fix = []syncerror.FieldChange{{Path: path, Before: "030 bad", After: after}}
	if err := e.claims.CompleteDiagnosis(ctx, "acme", c.ID, held.DiagnosisAttempts, p, e.now); err != nil {
		t.Fatal(err)
	}
	if w := e.call(t, e.op.ApproveHandler(), c.ID, ``); w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	row := e.row(t, c.ID)
	if row.Status != syncerror.StatusApproved || row.Applied == nil || len(row.Applied.Prior) == 0 {
		t.Fatalf("after the approve: %s %+v", row.Status, row.Applied)
	}
	return row
}

// crmToHost is the flow crm/Account -> hosterp/customer, Phone mapped to phone.
var crmToHost = flow.Flow{ID: "f1", Enabled: true, Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
	Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}, Mapping: map[string]string{"phone": "Phone"}}

// The fix (phone=+49 30 111) is approved and written to the target; the revert is written,
// but marking the row fails (202), so the row still shows approved. The retry must find
// the revert as a host row's does, write nothing, re-run nothing, and mark the row reverted.
func TestAFlowRowRetryDoesNotWriteTheFixOverAnUnrecordedRevert(t *testing.T) {
	e := newHostEnv(t)
	e.crm.Seed("Account", "C-1", map[string]any{"Phone": "030 bad"})
	e.host.Seed("customer", "C-1", map[string]any{"phone": "+49 30 000"})
	c := e.approvedFlowRow(t, crmToHost, "phone", "+49 30 111", nil)
	e.op.Assist.Store = unmarkedReverts{e.op.Assist.Store}
	if w := e.call(t, e.op.RevertHandler(), c.ID, `{"reason":"wrong number"}`); w.Code != http.StatusAccepted {
		t.Fatalf("revert: %d %s", w.Code, w.Body)
	}
	if r, _ := e.host.Get("customer", "C-1"); r.Fields["phone"] != "+49 30 000" {
		t.Fatalf("set-up: after the revert the record holds %v", r.Fields["phone"])
	}
	writes := e.host.WriteCount()
	row, got := e.retry(t, c.ID)
	if r, _ := e.host.Get("customer", "C-1"); r.Fields["phone"] != "+49 30 000" || e.host.WriteCount() != writes {
		t.Fatalf("the retry wrote the reverted fix back: phone %v, writes %+v (attempt %+v)", r.Fields["phone"], e.host.Writes()[writes:], got)
	}
	if got.Result != syncerror.DeliveryPermanent || got.Code != "RETRY_FIX_REVERTED" || got.System != "hosterp" {
		t.Fatalf("attempt %+v", got)
	}
	if last := row.History[len(row.History)-1]; row.Status != syncerror.StatusReverted || last.Action != "revert_found" {
		t.Fatalf("the row is %s, its last entry %+v", row.Status, last)
	}
}

// After the approve wrote Phone=+49 30 111 to the CRM (the flow's target here), a person
// set +49 30 222 there. Nobody vouches for the fix over that value now: the retry writes
// nothing, re-runs nothing, and ends for good naming the field in the flow's terms.
func TestAFlowRowRetryWritesNothingWhereTheTargetChangedSinceTheApprove(t *testing.T) {
	e := newHostEnv(t)
	hostToCRM := flow.Flow{ID: "f2", Enabled: true, Source: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"},
		Target: flow.Endpoint{System: connector.SystemCRM, Entity: "Lead"}, Mapping: map[string]string{"Phone": "phone"}}
	e.host.Seed("customer", "C-1", map[string]any{"phone": "030 bad"})
	e.crm.Seed("Lead", "C-1", map[string]any{"Phone": "+49 30 000"})
	c := e.approvedFlowRow(t, hostToCRM, "Phone", "+49 30 111", nil)
	if r, _ := e.crm.Get("Lead", "C-1"); r.Fields["Phone"] != "+49 30 111" {
		t.Fatalf("set-up: the approve left Phone %v", r.Fields["Phone"])
	}
	e.crm.Seed("Lead", "C-1", map[string]any{"Phone": "+49 30 222"})
	writes := e.crm.WriteCount()
	row, got := e.retry(t, c.ID)
	if r, _ := e.crm.Get("Lead", "C-1"); r.Fields["Phone"] != "+49 30 222" || e.crm.WriteCount() != writes {
		t.Fatalf("a person set Phone=+49 30 222 after the approve; the retry wrote %+v, the record holds %v",
			e.crm.Writes()[writes:], r.Fields["Phone"])
	}
	if got.Result != syncerror.DeliveryPermanent || got.Code != "RETRY_RECORD_CHANGED" || got.Class != syncerror.AttemptValue ||
		got.System != "crm" || !strings.Contains(got.Reason, "Phone") || !strings.Contains(got.Reason, "nothing was written") ||
		!strings.Contains(got.Reason, "the flow was not re-run") || strings.Contains(got.Reason, "host ERP") {
		t.Fatalf("attempt %+v", got)
	}
	for _, v := range []string{"+49 30 222", "+49 30 111", "+49 30 000"} {
		if strings.Contains(got.Reason, v) {
			t.Fatalf("the attempt's reason shows the value %q: %s", v, got.Reason)
		}
	}
	if row.Status != syncerror.StatusApproved {
		t.Fatalf("the row is %s; its fix was written once, it goes back to approved", row.Status)
	}
}

// The target lost the fix to no revert (a sync of the host's own wrote the old value
// back). While the ledger cannot tell a revert, nothing is written; once it can, the
// re-run goes ahead and carries the fix, which lands again. A row approved by the version
// before revert marks: this version's rows are told by the mark (the test below).
func TestAFlowRowRetryReRunsWithTheFixALostFixNoRevertExplains(t *testing.T) {
	e := newHostEnv(t)
	e.claims.beforeMarks = true
	e.crm.Seed("Account", "C-1", map[string]any{"Phone": "030 bad"})
	e.host.Seed("customer", "C-1", map[string]any{"phone": "+49 30 000"})
	l := &countedLedger{Ledger: e.ledger}
	c := e.approvedFlowRow(t, crmToHost, "phone", "+49 30 111", l)
	e.host.Seed("customer", "C-1", map[string]any{"phone": "+49 30 000"})
	l.down = true
	writes := e.host.WriteCount()
	_, got := e.retry(t, c.ID)
	if r, _ := e.host.Get("customer", "C-1"); r.Fields["phone"] != "+49 30 000" || e.host.WriteCount() != writes {
		t.Fatalf("written without the ledger read: %+v, phone %v", e.host.Writes()[writes:], r.Fields["phone"])
	}
	if got.Result != syncerror.DeliveryTransient || got.System != "hosterp" || l.reads == 0 || !strings.Contains(got.Reason, "nothing was written") {
		t.Fatalf("attempt %+v (ledger reads %d)", got, l.reads)
	}
	l.down = false
	row := e.due(t, c.ID)
	got = row.Retry.Log[len(row.Retry.Log)-1]
	if r, _ := e.host.Get("customer", "C-1"); r.Fields["phone"] != "+49 30 111" || got.Result != syncerror.Delivered {
		t.Fatalf("the fix was lost to no revert; the re-run left phone %v (attempt %+v)", r.Fields["phone"], got)
	}
	if row.Status != syncerror.StatusResolved || row.Retry.Resolution != syncerror.ResolutionRetried {
		t.Fatalf("the row is %s (%s)", row.Status, row.Retry.Resolution)
	}
}

// The same on a row whose reverts are marked: no mark, no revert of this version was sent,
// and the re-run carries the fix with no audit read. The ledger is still asked, for a
// revert of the version before marks (revertmark_mixeddeploy_test.go).
func TestAFlowRowRetryReRunsAMarkedRowsLostFixWithoutReadingTheAuditLog(t *testing.T) {
	e := newHostEnv(t)
	e.crm.Seed("Account", "C-1", map[string]any{"Phone": "030 bad"})
	e.host.Seed("customer", "C-1", map[string]any{"phone": "+49 30 000"})
	l := &countedLedger{Ledger: e.ledger}
	c := e.approvedFlowRow(t, crmToHost, "phone", "+49 30 111", l)
	a := &countedAudits{log: e.op.Audit.(*audit.Log)}
	d := e.rt.Deliver.(deliverer)
	d.audits = a
	e.rt.Deliver = d
	e.host.Seed("customer", "C-1", map[string]any{"phone": "+49 30 000"})
	row, got := e.retry(t, c.ID)
	if r, _ := e.host.Get("customer", "C-1"); r.Fields["phone"] != "+49 30 111" || got.Result != syncerror.Delivered {
		t.Fatalf("the fix was lost to no revert; the re-run left phone %v (attempt %+v)", r.Fields["phone"], got)
	}
	if row.Status != syncerror.StatusResolved || l.reads == 0 || a.reads != 0 {
		t.Fatalf("the row is %s; %d ledger and %d audit reads", row.Status, l.reads, a.reads)
	}
}

// The target cannot be read, or its connector is not set up: whether the fix still stands
// is not known, so nothing is written and no re-run made (transient; configuration).
func TestAFlowRowRetryWritesNothingWhereTheTargetCannotBeRead(t *testing.T) {
	e := newHostEnv(t)
	e.crm.Seed("Account", "C-1", map[string]any{"Phone": "030 bad"})
	e.host.Seed("customer", "C-1", map[string]any{"phone": "+49 30 000"})
	c := e.approvedFlowRow(t, crmToHost, "phone", "+49 30 111", nil)
	e.host.Seed("customer", "C-1", map[string]any{"phone": "+49 30 000"})
	writes := e.host.WriteCount()
	e.down.Store(http.StatusServiceUnavailable)
	_, got := e.retry(t, c.ID)
	e.down.Store(0)
	if e.host.WriteCount() != writes || got.Result != syncerror.DeliveryTransient || got.System != "hosterp" ||
		!strings.Contains(got.Reason, "could not be read") || !strings.Contains(got.Reason, "nothing was written") {
		t.Fatalf("target down: attempt %+v, writes %+v", got, e.host.Writes()[writes:])
	}
	delete(e.clients, connector.SystemHostERP)
	row := e.due(t, c.ID)
	got = row.Retry.Log[len(row.Retry.Log)-1]
	if e.host.WriteCount() != writes || got.Result != syncerror.DeliveryPermanent || got.Code != "RETRY_NO_CONNECTOR" ||
		got.Class != syncerror.AttemptConfiguration || got.System != "hosterp" {
		t.Fatalf("no connector: attempt %+v, writes %+v", got, e.host.Writes()[writes:])
	}
}
