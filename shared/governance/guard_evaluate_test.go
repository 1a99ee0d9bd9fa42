package governance_test

import (
	"context"
	"errors"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
)

// Evaluate answers what Write then decides, per field and for the whole write, and
// leaves nothing behind: no audit record, rejection, approval, loop detection, ledger
// entry or request other than reads at the target.
func TestEvaluateForetellsWrite(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name           string
		source, target connector.System
		entity         string
		fields         map[string]any
		decision       string
		wantErr        error
	}{
		{"owner writes", hosterp, hosterp, "salesOrder", map[string]any{"status": "open"}, governance.VerdictWritten, nil},
		{"rejected", crm, hosterp, "salesOrder", map[string]any{"status": "open"}, governance.VerdictRejected, governance.ErrOwnershipRejected},
		{"held", erp2, hosterp, "vendorBill", map[string]any{"amount": 5}, governance.VerdictHeld, governance.ErrPendingApproval},
		{"all dropped", hosterp, hosterp, "salesOrder", map[string]any{"trackingNumber": "1Z"}, governance.VerdictOwnedElsewhere, nil},
		{"dlp", hosterp, hosterp, "customer", map[string]any{"creditLimit": "4111 1111 1111 1111"}, governance.VerdictDLPBlocked, governance.ErrDLPBlocked},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			e.seed(c.target, c.entity, "R-1")
			r := req(c.source, c.target, c.entity, "R-1", c.fields)
			v, err := e.guard.Evaluate(context.Background(), operator("t1"), r)
			if err != nil || v.Decision != c.decision {
				t.Fatalf("Evaluate = %+v, %v; want %s", v, err, c.decision)
			}
			if n := len(e.audit.All()) + len(e.records.Rejections()) + len(e.records.Approvals()) + len(e.records.Loops()) + e.totalWrites(); n != 0 {
				t.Fatalf("Evaluate left %d records or writes", n)
			}
			_, err = e.guard.Write(context.Background(), operator("t1"), r)
			if c.wantErr != nil && !errors.Is(err, c.wantErr) || c.wantErr == nil && err != nil {
				t.Fatalf("Write = %v, want %v", err, c.wantErr)
			}
			if wrote := e.totalWrites() > 0; wrote != (c.decision == governance.VerdictWritten) {
				t.Fatalf("Write wrote %v, Evaluate said %s", wrote, c.decision)
			}
		})
	}
}

// The return leg of a write within the loop window is a loop to Evaluate as to Write, and
// a hop chain back to the target marks that field only.
func TestEvaluateLoops(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.seed(crm, "widget", "R-9")
	e.seed(hosterp, "widget", "R-9")
	fields := map[string]any{"phone": "+49 40 1"}
	if _, err := e.write(operator("t1"), req(hosterp, crm, "widget", "R-9", fields)); err != nil {
		t.Fatal(err)
	}
	v, err := e.guard.Evaluate(context.Background(), operator("t1"), req(crm, hosterp, "widget", "R-9", fields))
	if err != nil || v.Decision != governance.VerdictLoop || v.Reason == "" {
		t.Fatalf("return leg: %+v, %v", v, err)
	}
	if n := len(e.records.Loops()); n != 0 {
		t.Fatalf("Evaluate recorded %d loop detections", n)
	}

	r := req(crm, marketing, "member", "M-1", map[string]any{"phone": "1", "city": "Kiel"})
	r.Link = &governance.Link{Traces: map[string]governance.Trace{"phone": {Hops: []governance.Hop{
		{System: marketing, Entity: "member", Record: "M-1", Field: "phone"}, {System: crm, Entity: "widget", Record: "C-1", Field: "phone"}}}}}
	v, err = e.guard.Evaluate(context.Background(), operator("t1"), r)
	if err != nil || v.Decision != governance.VerdictWritten {
		t.Fatalf("hop chain: %+v, %v", v, err)
	}
	got := map[string]string{}
	for _, f := range v.Fields {
		got[f.Field] = f.Verdict
	}
	if got["phone"] != governance.VerdictLoop || got["city"] != governance.VerdictWritten {
		t.Fatalf("field verdicts = %v", got)
	}
}
