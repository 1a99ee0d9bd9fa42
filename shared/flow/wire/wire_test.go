package wire_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	flowwire "github.com/syncassist/syncassist/shared/flow/wire"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// failedRun is a run of a CRM Account → host ERP customer flow that failed for good.
func failedRun(id, targetID string) flow.Run {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	return flow.Run{ID: id, TenantID: "acme", FlowID: "crm-to-erp", EventID: "ev-1", RecordID: "C-1", TargetID: targetID,
		Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"}, Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"},
		Fields: []string{"email"}, UpdatedAt: at, Pending: &flow.Pending{Fields: map[string]any{"email": "a@example.com"}}}
}

func report(t *testing.T, r flow.Run) syncerror.Claim {
	t.Helper()
	claims := syncerrortest.NewClaimStore()
	rep := flowwire.Reporter{R: &intake.Reporter{Claims: claims, Queue: &syncerrortest.Queue{}}}
	id, err := rep.Report(context.Background(), r, "the target refused the write")
	if err != nil {
		t.Fatal(err)
	}
	c, err := claims.Get(context.Background(), "acme", id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A run of a flow with a match that failed before it knew its counterpart (the create
// refused, several records holding the key) names no target record: not the source
// record's id, which in the host ERP is another customer or none. The row says so, and
// approving it is refused (syncerror.FlowTargetUnknown).
func TestASyncErrorNeverNamesTheSourceRecordAsTheTarget(t *testing.T) {
	c := report(t, failedRun("run_UNKNOWNTARGET00000000000000", ""))
	if c.Record.RecordType != "customer" || c.Record.RecordID == "C-1" || !strings.Contains(c.Record.RecordID, "unknown") {
		t.Fatalf("sync error of an unknown target names %s %s", c.Record.RecordType, c.Record.RecordID)
	}
	if !syncerror.FlowTargetUnknown(c) || !strings.Contains(c.Record.Message, "its record is not known") {
		t.Fatalf("the row does not say its target is unknown: context %s, message %q", c.Record.Context, c.Record.Message)
	}
	// Two source records' failures stay two rows.
	other := failedRun("run_UNKNOWNTARGET00000000000001", "")
	other.RecordID = "C-2"
	if d := report(t, other); d.Record.RecordID == c.Record.RecordID {
		t.Fatalf("C-1's and C-2's failures name one record %q", c.Record.RecordID)
	}
	// Known, the counterpart is the record, and approving writes there.
	k := report(t, failedRun("run_KNOWNTARGET0000000000000000", "cust-981"))
	if k.Record.RecordID != "cust-981" || syncerror.FlowTargetUnknown(k) || !strings.Contains(string(k.Record.Context), `"targetRecordId":"cust-981"`) {
		t.Fatalf("known target: %s, context %s", k.Record.RecordID, k.Record.Context)
	}
}

// A source record id too long to quote still gives a row (a record id is at most 256
// characters), one per source record.
func TestAnUnknownTargetOfALongSourceIDFitsARow(t *testing.T) {
	r := failedRun("run_LONGSOURCEID00000000000000", "")
	r.RecordID = strings.Repeat("x", 250)
	c := report(t, r)
	if n := len([]rune(c.Record.RecordID)); n > 256 || c.Record.RecordID == r.RecordID || !syncerror.FlowTargetUnknown(c) {
		t.Fatalf("record id %q (%d characters)", c.Record.RecordID, n)
	}
}
