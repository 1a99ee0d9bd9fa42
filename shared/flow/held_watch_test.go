package flow_test

import (
	"context"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/flow"
)

// TestHeldRunIsKeptWhileItsApprovalWaits: an approval waits as long as its approver takes
// (approvals do not expire), and its release writes nothing (the run writes it): the held
// run is kept while the redrive checks its approval, past the runs' Retention from its
// creation, and still writes once approved. Deleted by the table's TTL, the approved
// write would have been made by nobody.
func TestHeldRunIsKeptWhileItsApprovalWaits(t *testing.T) {
	e, held, _ := heldCreate(t, heldMatches["lookup"], "C-9310")
	for range int(flow.Retention/(24*time.Hour)) + 2 {
		e.later(24 * time.Hour)
	}
	exp, err := flow.RunExpiresAt(context.Background(), e.store, "t1", held.ID)
	if now := e.clock(); err != nil || !exp.After(now.Add(flow.MaxHeldRecheck)) {
		t.Fatalf("held run expires at %s (%v), now %s; want it kept while its approval waits", exp, err, now)
	}
	e.decide(held.ApprovalID, "approve")
	e.later(flow.MaxHeldRecheck)
	if r := e.run(held.ID); r.Outcome != flow.OutcomeWritten || e.crm.WriteCount() != 1 {
		t.Fatalf("held run after the approval %+v, %d CRM writes; want written once", r, e.crm.WriteCount())
	}
}
