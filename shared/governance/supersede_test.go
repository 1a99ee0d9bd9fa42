package governance_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/governance"
)

// change is a flow's write of the CRM account R-1's change, stamped changed by the CRM
// and received at received, to the host ERP's ticket R-1.
func change(changed, received time.Time, fields map[string]any) governance.WriteRequest {
	r := req(crm, hosterp, "ticket", "R-1", fields)
	traces := map[string]governance.Trace{}
	for name := range fields {
		traces[name] = governance.Trace{Hops: []governance.Hop{{System: crm, Entity: "Account", Record: "R-1", Field: "src_" + name}}}
	}
	r.Link = &governance.Link{Traces: traces, Changed: changed, Received: received}
	return r
}

func (e *env) ticket() map[string]any {
	e.t.Helper()
	rec, ok := e.fakes[hosterp].Get("ticket", "R-1")
	if !ok {
		e.t.Fatal("no ticket R-1")
	}
	return rec.Fields
}

// A change written after a newer one of the same source record (a retry, an event
// delivered late) writes nothing: the newer value stands, the write is refused as
// superseded (not failed) and audited so.
func TestAnOlderChangeIsNotWrittenOverANewerOne(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := operator("t1")
	if _, err := e.write(id, change(t0.Add(10*time.Second), t0.Add(10*time.Second), map[string]any{"phone": "+2"})); err != nil {
		t.Fatal(err)
	}
	res, err := e.write(id, change(t0, t0, map[string]any{"phone": "+1"}))
	if !errors.Is(err, governance.ErrSuperseded) || !slices.Equal(res.Superseded, []string{"phone"}) || !res.SupersededBy.Equal(t0.Add(10*time.Second)) {
		t.Fatalf("older change: %+v, %v; want superseded by the change of %s", res, err, t0.Add(10*time.Second))
	}
	if got := e.ticket()["phone"]; got != "+2" || e.fakes[hosterp].WriteCount() != 1 {
		t.Fatalf("ticket phone %v after %d writes, want +2 after 1", got, e.fakes[hosterp].WriteCount())
	}
	writes := e.audits(governance.ActionConnectorWrite)
	last := writes[len(writes)-1]
	var d map[string]any
	if err := json.Unmarshal(last.Details, &d); err != nil || last.Result != audit.ResultDenied || d["outcome"] != "superseded" {
		t.Fatalf("audit of the superseded write: %s %s", last.Result, last.Details)
	}
	// A newer change still goes through.
	if _, err := e.write(id, change(t0.Add(20*time.Second), t0.Add(20*time.Second), map[string]any{"phone": "+3"})); err != nil || e.ticket()["phone"] != "+3" {
		t.Fatalf("newer change: %v, phone %v", err, e.ticket()["phone"])
	}
}

// Events carry the fields that changed: only the fields a newer change wrote are taken
// out, the rest of the older change is still the source's latest word on them.
func TestOnlyTheFieldsANewerChangeWroteAreTakenOut(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := operator("t1")
	if _, err := e.write(id, change(t0.Add(time.Second), t0.Add(time.Second), map[string]any{"phone": "+2"})); err != nil {
		t.Fatal(err)
	}
	res, err := e.write(id, change(t0, t0, map[string]any{"phone": "+1", "email": "a@example.com"}))
	if err != nil || !slices.Equal(res.Superseded, []string{"phone"}) {
		t.Fatalf("older change of two fields: %+v, %v", res, err)
	}
	if f := e.ticket(); f["phone"] != "+2" || f["email"] != "a@example.com" {
		t.Fatalf("ticket %v", f)
	}
}

// Two changes stamped alike (a source keeping whole seconds) are ordered by arrival; a
// tie in both is no newer change. A write's retry is never superseded by its own mark.
func TestChangesStampedAlikeAreOrderedByArrival(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := operator("t1")
	second := change(t0, t0.Add(time.Second), map[string]any{"phone": "+2"})
	if _, err := e.write(id, second); err != nil {
		t.Fatal(err)
	}
	if _, err := e.write(id, change(t0, t0, map[string]any{"phone": "+1"})); !errors.Is(err, governance.ErrSuperseded) {
		t.Fatalf("the change received first, written after: %v, want superseded", err)
	}
	if _, err := e.write(id, second); err != nil {
		t.Fatalf("the same write again (its answer lost): %v", err)
	}
	if _, err := e.write(id, change(t0, t0.Add(time.Second), map[string]any{"phone": "+2b"})); err != nil || e.ticket()["phone"] != "+2b" {
		t.Fatalf("a change tied in both times: %v, phone %v; want written", err, e.ticket()["phone"])
	}
}

// A write that says nothing of its change (a re-run, which read the source fresh) is
// neither compared nor leaves a mark.
func TestAWriteWithoutItsChangesTimeIsNotOrdered(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := operator("t1")
	if _, err := e.write(id, change(t0.Add(time.Minute), t0.Add(time.Minute), map[string]any{"phone": "+2"})); err != nil {
		t.Fatal(err)
	}
	if _, err := e.write(id, change(time.Time{}, time.Time{}, map[string]any{"phone": "+fresh"})); err != nil || e.ticket()["phone"] != "+fresh" {
		t.Fatalf("unordered write: %v, phone %v", err, e.ticket()["phone"])
	}
	if _, err := e.write(id, change(t0.Add(30*time.Second), t0.Add(30*time.Second), map[string]any{"email": "b@example.com"})); err != nil {
		t.Fatalf("an older change of another field: %v", err)
	}
	entries, err := e.ledger.Recent(context.Background(), "t1", "~trail", "crm/account/R-1", t0.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	marks := 0
	for _, en := range entries {
		if len(en.Sent) > 0 {
			marks++
		}
	}
	if marks != 2 {
		t.Fatalf("%d sent marks on the source record's trail, want 2 (the unordered write leaves none): %+v", marks, entries)
	}
}

// An event delivered hours late carries a read of its trail that does not reach back to
// its change: the guard reads the marks since then itself.
func TestALateChangeIsComparedBeyondTheTrailItCarries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := operator("t1")
	if _, err := e.write(id, change(t0, t0, map[string]any{"phone": "+2"})); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(3 * time.Hour)
	read, err := governance.Trails{Ledger: e.ledger}.Read(context.Background(), "t1", crm, "Account", "R-1", e.clock.Now().Add(-2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	late := change(t0.Add(-time.Minute), e.clock.Now(), map[string]any{"phone": "+1"})
	late.Link.Read = read
	if _, err := e.write(id, late); !errors.Is(err, governance.ErrSuperseded) || e.ticket()["phone"] != "+2" {
		t.Fatalf("late change: %v, phone %v; want superseded, +2", err, e.ticket()["phone"])
	}
}

// A held write released after a newer change of its source record was written is not
// released: the approver is told (409 superseded) and it stays pending, to be denied.
func TestAHeldChangeOlderThanAWrittenOneIsNotReleased(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if err := e.overrides.PutOverrides(context.Background(), "t1", []governance.Entry{
		{Entity: "ticket", Field: "phone", Owner: hosterp, Policy: governance.PolicyRequireApproval},
	}); err != nil {
		t.Fatal(err)
	}
	id := operator("t1")
	held := func(r governance.WriteRequest) governance.PendingApproval {
		t.Helper()
		res, err := e.write(id, r)
		if !errors.Is(err, governance.ErrPendingApproval) {
			t.Fatalf("hold: %v", err)
		}
		return *res.Held
	}
	older := held(change(t0, t0, map[string]any{"phone": "+1"}))
	newer := held(change(t0.Add(time.Minute), t0.Add(time.Minute), map[string]any{"phone": "+2"}))
	h := e.api()
	if w := serve(h, http.MethodPost, "/api/governance/approvals/"+newer.ID+"/approve", approverT1); w.Code != http.StatusOK {
		t.Fatalf("approve the newer: %d %s", w.Code, w.Body)
	}
	w := serve(h, http.MethodPost, "/api/governance/approvals/"+older.ID+"/approve", approverT1)
	if code, _ := problemCode(t, w); w.Code != http.StatusConflict || code != governance.CodeSuperseded {
		t.Fatalf("approve the older: %d %s", w.Code, code)
	}
	if got := approvalStatus(t, e, "t1", older.ID); got.Status != governance.StatusPending || e.ticket()["phone"] != "+2" {
		t.Fatalf("after the refused release: %s, phone %v", got.Status, e.ticket()["phone"])
	}
}
