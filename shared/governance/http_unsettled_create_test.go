package governance_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/governance"
)

// A held create (a flow's create of its counterpart) whose release lost its answer is
// unsettled, and approving it again never sends it again: a create has no record to read
// first, and a second POST is a second record (the settle used to send it, promising that
// a record already holding it is not written twice). The approve answers 409
// unsettled_create; the approver who finds the record settles it as written, naming it.
func TestSettlingAnUnsettledCreateNeverSendsItAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res, err := e.guard.Write(context.Background(), operator("t1"), governance.WriteRequest{Source: crm, Target: crm,
		Entity: "contact", Fields: map[string]any{"marketingOptIn": true}, IdempotencyKey: "run-create-1",
		Reason: "flow.run", Create: true})
	if !errors.Is(err, governance.ErrPendingApproval) || res.Held == nil {
		t.Fatalf("hold of the create: %v", err)
	}
	a := *res.Held
	h := e.api()
	e.fakes[crm].DelayNext(1, 800*time.Millisecond) // the create: applied, answered after the deadline
	w := approveBy(h, a.ID, 300*time.Millisecond)
	if code, _ := problemCode(t, w); w.Code != http.StatusBadGateway || code != governance.CodeReleaseUnsettled {
		t.Fatalf("release: %d %s", w.Code, w.Body)
	}
	waitFor(t, func() bool { return e.fakes[crm].WriteCount() == 1 })
	if d := serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/deny", &caller{"t1", "wendy", []string{"approver"}}); d.Code != http.StatusConflict {
		t.Fatalf("deny: %d", d.Code)
	}
	w = serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", approverT1)
	t.Logf("settling approve: %d %s", w.Code, w.Body)
	if n := e.fakes[crm].WriteCount(); n != 1 {
		t.Fatalf("the settling approve of an unsettled create wrote again: %d creates at the CRM, want 1", n)
	}
	if code, _ := problemCode(t, w); w.Code != http.StatusConflict || code != governance.CodeUnsettledCreate {
		t.Fatalf("approve of an unsettled create: %d %s", w.Code, code)
	}
	// Settled by the approver's word: written needs the record the create made.
	if w := settleBy(h, a.ID, `{"settle":"written"}`, approverT1); w.Code != http.StatusBadRequest {
		t.Fatalf("settle written without the record: %d %s", w.Code, w.Body)
	}
	if w := settleBy(h, a.ID, `{"settle":"written","recordId":"C-NEW-1"}`, approverT1); w.Code != http.StatusOK {
		t.Fatalf("settle written: %d %s", w.Code, w.Body)
	}
	if got := approvalStatus(t, e, "t1", a.ID); got.Status != governance.StatusApproved || e.fakes[crm].WriteCount() != 1 {
		t.Fatalf("after settling the create: %+v, %d creates", got, e.fakes[crm].WriteCount())
	}
}

// A release of a create that stopped midway (its function ended while releasing: it may
// have sent the POST) is never sent again by the approve that takes it over after the
// release timeout: the approval becomes unsettled, 409 unsettled_create, for an approver
// to settle by word.
func TestATakenOverReleaseOfACreateIsNotSentAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res, err := e.guard.Write(context.Background(), operator("t1"), governance.WriteRequest{Source: crm, Target: crm,
		Entity: "contact", Fields: map[string]any{"marketingOptIn": true}, IdempotencyKey: "run-create-2",
		Reason: "flow.run", Create: true})
	if !errors.Is(err, governance.ErrPendingApproval) || res.Held == nil {
		t.Fatalf("hold of the create: %v", err)
	}
	a := *res.Held
	if _, err := e.records.DecideApproval(context.Background(), "t1", a.ID, governance.StatusPending, governance.StatusReleasing, "victor", e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(governance.DefaultReleaseTimeout + time.Minute)
	w := serve(e.api(), http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", approverT1)
	if code, _ := problemCode(t, w); w.Code != http.StatusConflict || code != governance.CodeUnsettledCreate {
		t.Fatalf("take-over of a create's release: %d %s", w.Code, w.Body)
	}
	if got := approvalStatus(t, e, "t1", a.ID); got.Status != governance.StatusUnsettled || e.fakes[crm].WriteCount() != 0 {
		t.Fatalf("after the take-over: %+v, %d creates", got, e.fakes[crm].WriteCount())
	}
}
