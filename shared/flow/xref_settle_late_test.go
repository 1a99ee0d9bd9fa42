package flow_test

import (
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
