package flow_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
)

// TestSettleNotCreatedWaitsUntilTheCreateCanNoLongerLand: the run whose create's answer
// was lost failed at once (its last attempt), and the admin, finding nothing in the CRM
// minutes later, settles not_created. The vendor may still be processing that create
// until its own timeout (connector.LateCommit): dropped then, the claim would let the next
// change create a second Account when the first lands. The settle is refused until the
// create can no longer land, then accepted.
func TestSettleNotCreatedWaitsUntilTheCreateCanNoLongerLand(t *testing.T) {
	e := newMatchEnv(t, flow.Match{By: flow.MatchNone, Create: true})
	crm := &lateCRM{e: e, late: 1}
	e.serveCRM(crm)
	e.x.Backoff = []time.Duration{time.Minute}
	se := &settleEnv{matchEnv: e, s: e.service(), src: flow.Ref{System: connector.SystemHostERP, Entity: "customer", ID: "C-9204"}}
	r := e.change("C-9204", "+1")
	e.later(2 * time.Minute) // its last attempt refuses: the create may have reached the CRM
	if r = e.run(r.ID); r.Outcome != flow.OutcomeFailed || crm.postCount() != 1 {
		t.Fatalf("run %+v, %d POSTs; want failed after one", r, crm.postCount())
	}
	if code, body := se.put(se.body("not_created", "")); code != http.StatusConflict || !strings.Contains(body, "xref_not_creating") {
		t.Fatalf("settle not_created while the create may land = %d %s; want 409", code, body)
	}
	if x := se.entry(); !x.Creating {
		t.Fatalf("entry %+v; want still marked Creating", x)
	}
	crm.commit() // the vendor finishes the first create
	e.advance(connector.LateCommit(connector.SystemCRM))
	id := se.created()
	if code, body := se.put(se.body("created", id)); code != http.StatusOK {
		t.Fatalf("settle created once it can no longer land = %d %s", code, body)
	}
	if next := e.change("C-9204", "+2"); next.Outcome != flow.OutcomeWritten || next.TargetID != id || crm.postCount() != 1 {
		t.Fatalf("next change %+v, %d POSTs; want the one Account updated", next, crm.postCount())
	}
}

// TestSettleRefusedWhileALegacyHeldCreateMayBeReleased: a create held before held runs
// were watched (its run ended held, with no next check, its claim kept marked Creating) is
// sent by its approval's release, not by the run: while the approval is undecided a
// settle (not_created, or created with a record found meanwhile) would let a second record
// be made beside the one the release sends. Refused until the approval is decided.
func TestSettleRefusedWhileALegacyHeldCreateMayBeReleased(t *testing.T) {
	e, held, _ := heldCreate(t, heldMatches["none"], "C-9205")
	ctx := context.Background()
	r := e.run(held.ID)
	r.NextAttemptAt = nil // as stored before f8e1cf2
	if err := e.store.SaveRun(ctx, r, r.Attempts); err != nil {
		t.Fatal(err)
	}
	x, err := e.entry("C-9205")
	if err != nil {
		t.Fatal(err)
	}
	x.Creating = true // a held create kept its mark then
	if err := e.store.UpdateXRef(ctx, "t1", x, held.ID); err != nil {
		t.Fatal(err)
	}
	e.advance(time.Hour)
	se := &settleEnv{matchEnv: e, s: e.service(), src: flow.Ref{System: connector.SystemHostERP, Entity: "customer", ID: "C-9205"}}
	if code, body := se.put(se.body("not_created", "")); code != http.StatusConflict || !strings.Contains(body, held.ApprovalID) {
		t.Fatalf("settle while the held create's approval is pending = %d %s; want 409 naming it", code, body)
	}
	e.decide(held.ApprovalID, "deny")
	if code, body := se.put(se.body("not_created", "")); code != http.StatusOK {
		t.Fatalf("settle once the approval is denied = %d %s", code, body)
	}
}
