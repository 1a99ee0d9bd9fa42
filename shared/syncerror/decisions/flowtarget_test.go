package decisions_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// flowRow is a diagnosed flow row of a run that failed before it knew its target record
// (flow/wire's Reporter): its record id is a stand-in, its context says so.
func flowRow(t *testing.T, f *roomtest.OpFixture, unknown bool) syncerror.Claim {
	t.Helper()
	ctx := context.Background()
	rec := syncerrortest.SampleRecord("acme", "run_FLOW")
	rec.RecordType, rec.RecordID = "customer", "(unknown, from crm/Account/C-1)"
	fc := map[string]any{"id": "crm-to-erp", "source": "crm", "sourceEntity": "Account", "sourceRecordId": "C-1", "target": "hosterp"}
	if unknown {
		fc[syncerror.FlowTargetUnknownKey] = true
	} else {
		rec.RecordID, fc["targetRecordId"] = "cust-981", "cust-981"
	}
	rec.Context, _ = json.Marshal(map[string]any{"flow": fc})
	c := syncerror.NewClaim(rec, syncerror.SourceFlow, "run_FLOW", clock)
	if _, err := f.Claims.Claim(ctx, c); err != nil {
		t.Fatal(err)
	}
	got, err := f.Claims.BeginDiagnosis(ctx, "acme", c.ID, clock, clock)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Claims.CompleteDiagnosis(ctx, "acme", c.ID, got.DiagnosisAttempts, syncerrortest.SampleProposal("inf-1", clock), clock); err != nil {
		t.Fatal(err)
	}
	return c
}

// A flow row whose target record the run did not know is not approved: any record the
// fix went to would be a guess (the source's id is another record of the target system).
// The approve is refused before its lease, with nothing read or written; the row stays
// pending for a retry (which re-runs the flow) or a resolve.
func TestApproveRefusesAFlowRowWhoseTargetRecordIsNotKnown(t *testing.T) {
	f := roomtest.NewOpFixture(t)
	c := flowRow(t, f, true)
	for _, body := range []string{"", `{"fix":[{"path":"email","after":"a@example.com"}]}`} {
		w := f.Call(t, "acme", "POST", "/p/"+c.ID+"/approve", body)
		if w.Code != http.StatusConflict || roomtest.ProblemCode(t, w) != syncerror.CodeTargetRecordUnknown || f.Writer.Count() != 0 {
			t.Fatalf("approve %q: %d %s, %d writes", body, w.Code, w.Body, f.Writer.Count())
		}
	}
	if row, _ := f.Claims.Get(context.Background(), "acme", c.ID); row.Status != syncerror.StatusPending || row.Lease != nil || row.Applied != nil {
		t.Fatalf("row %s lease %v applied %v", row.Status, row.Lease, row.Applied)
	}
	// A row that names its counterpart is approved as before.
	g := roomtest.NewOpFixture(t)
	k := flowRow(t, g, false)
	if w := g.Call(t, "acme", "POST", "/p/"+k.ID+"/approve", ""); w.Code != http.StatusOK || g.Writer.Count() != 1 {
		t.Fatalf("approve of a row naming its target: %d %s, %d writes", w.Code, w.Body, g.Writer.Count())
	}
}
