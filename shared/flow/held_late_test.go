package flow_test

import (
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/flow"
)

// TestApprovedCreateWhoseAnswerIsLostWaitsForIt: a held create approved days after its
// change (approvals take that long) is sent by its run, and its answer is lost. Its next
// attempt finds nothing while the CRM may still apply it and waits until it can no longer
// land (createLanding), as any run does: that wait is bounded by the vendor's timeout, not
// by how long the run waited on its approval, so the run is not failed as having waited
// MaxClaimWait for a counterpart while its own create is landing.
func TestApprovedCreateWhoseAnswerIsLostWaitsForIt(t *testing.T) {
	e, held, _ := heldCreate(t, heldMatches["lookup"], "C-9311")
	crm := &lateCRM{e: e, late: 1}
	e.serveCRM(crm)
	e.x.Backoff = []time.Duration{time.Minute, time.Minute, time.Minute}
	e.later(2 * 24 * time.Hour)
	e.decide(held.ApprovalID, "approve")
	e.later(flow.MaxHeldRecheck) // the approved create is sent; its answer is lost
	if r := e.run(held.ID); r.Outcome != flow.OutcomeRetrying || crm.postCount() != 1 {
		t.Fatalf("approved run %+v, %d POSTs; want retrying after one", r, crm.postCount())
	}
	e.later(2 * time.Minute) // past the backoff, within the CRM's timeout
	if r := e.run(held.ID); r.Outcome != flow.OutcomeRetrying || r.SyncErrorID != "" {
		t.Fatalf("attempt while the create may land %+v; want it waiting, not failed", r)
	}
	crm.commit()
	e.redriveAll()
	r := e.run(held.ID)
	if ids := e.accounts("C-9311"); r.Outcome != flow.OutcomeWritten || r.TargetAction != flow.ActionCreated || len(ids) != 1 || crm.postCount() != 1 {
		t.Fatalf("run %+v, accounts %v, %d POSTs; want written, created once", r, ids, crm.postCount())
	}
}
