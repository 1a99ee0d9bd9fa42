package wire

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
)

// A revert marks the row, then sends; a retry may take the row in between. The record it
// reads still holds the fix, yet the revert is on its way: while the row carries a mark, a
// retry neither writes the fix nor re-runs with it (RETRY_REVERT_PENDING, the row back to
// approved), and the revert, once landed, is found by the next retry. A retry that holds
// the row first makes the revert's marking fail, so that revert sends nothing.

// landsFirst is a flow re-run before which the in-flight revert lands: a re-run made while
// a revert is on its way writes the fix over it.
type landsFirst struct {
	FlowRerunner
	land func()
}

func (l landsFirst) Rerun(ctx context.Context, c syncerror.Claim, flowID, rec, key string) syncerror.Delivery {
	l.land()
	return l.FlowRerunner.Rerun(ctx, c, flowID, rec, key)
}

func TestAFlowRowRetryReRunsNothingWhileARevertIsInFlight(t *testing.T) {
	e := newHostEnv(t)
	e.crm.Seed("Account", "C-1", map[string]any{"Phone": "030 bad"})
	e.host.Seed("customer", "C-1", map[string]any{"phone": "+49 30 000"})
	c := e.approvedFlowRow(t, crmToHost, "phone", "+49 30 111", nil)
	// The revert marked the row and is sending when the retry takes it.
	if err := e.claims.MarkRevertSent(context.Background(), "acme", c.ID, *c.Applied, syncerror.NewRevertMark(e.now)); err != nil {
		t.Fatal(err)
	}
	reruns := 0
	land := func() { e.host.Seed("customer", "C-1", map[string]any{"phone": "+49 30 000"}) }
	d := e.rt.Deliver.(deliverer)
	d.flows = landsFirst{FlowRerunner: d.flows, land: func() { reruns++; land() }}
	e.rt.Deliver = d
	row, got := e.retry(t, c.ID)
	if r, _ := e.host.Get("customer", "C-1"); reruns != 0 || r.Fields["phone"] != "+49 30 111" {
		t.Fatalf("the retry re-ran the flow (%d) with a revert on its way: phone %v, attempt %+v, row %s", reruns, r.Fields["phone"], got, row.Status)
	}
	if got.Result != syncerror.DeliveryPermanent || got.Code != "RETRY_REVERT_PENDING" || got.System != "hosterp" ||
		row.Status != syncerror.StatusApproved || len(row.Applied.RevertMarks) != 1 {
		t.Fatalf("attempt %+v, row %s, marks %+v", got, row.Status, row.Applied.RevertMarks)
	}
	land()
	row, got = e.retry(t, c.ID)
	if r, _ := e.host.Get("customer", "C-1"); reruns != 0 || r.Fields["phone"] != "+49 30 000" || got.Code != "RETRY_FIX_REVERTED" ||
		row.Status != syncerror.StatusReverted {
		t.Fatalf("after the revert landed: %d re-runs, phone %v, attempt %+v, row %s", reruns, r.Fields["phone"], got, row.Status)
	}
}

// A host row: no re-run is asked for (the host ERP's script would apply the fix it
// carries over the revert), nothing is written.
func TestAHostRowRetryAsksNoReRunWhileARevertIsInFlight(t *testing.T) {
	e := newHostEnv(t)
	c := e.approvedOnHost(t, "E-inflight", map[string]any{"shipcountry": "Deutschland"}, ``)
	if err := e.claims.MarkRevertSent(context.Background(), "acme", c.ID, *c.Applied, syncerror.NewRevertMark(e.now)); err != nil {
		t.Fatal(err)
	}
	writes := e.host.WriteCount()
	row, got := e.retry(t, c.ID)
	if _, asked := e.requestedFix(t, c); asked || e.host.WriteCount() != writes {
		t.Fatalf("with a revert on its way the retry asked for a re-run (%v) or wrote %+v (attempt %+v)", asked, e.host.Writes()[writes:], got)
	}
	if got.Result != syncerror.DeliveryPermanent || got.Code != "RETRY_REVERT_PENDING" || row.Status != syncerror.StatusApproved {
		t.Fatalf("attempt %+v, row %s", got, row.Status)
	}
	e.host.Seed("salesOrder", "SO-10042", map[string]any{"shipcountry": "Deutschland"}) // the revert lands
	if row, got = e.retry(t, c.ID); got.Code != "RETRY_FIX_REVERTED" || row.Status != syncerror.StatusReverted || e.host.WriteCount() != writes {
		t.Fatalf("after the revert landed: attempt %+v, row %s", got, row.Status)
	}
}

// takesFirst is the revert's record read, before which a retry takes the row (retrying):
// the revert read the row approved, and marks it after.
type takesFirst struct {
	policy.RecordReader
	take func()
}

func (r takesFirst) ReadFields(ctx context.Context, c syncerror.Claim) (map[string]any, string, error) {
	r.take()
	return r.RecordReader.ReadFields(ctx, c)
}

func TestARevertOfARowARetryTookSendsNothing(t *testing.T) {
	e := newHostEnv(t)
	c := e.approvedOnHost(t, "E-taken", map[string]any{"shipcountry": "Deutschland"}, ``)
	e.op.Assist.Reader = takesFirst{RecordReader: e.op.Assist.Reader, take: func() {
		if _, err := e.claims.ChangeRetry(context.Background(), "acme", c.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusApproved},
			Attempts: c.Retry.Attempts, To: syncerror.StatusRetrying, Begin: true, NextAt: e.now.Add(time.Minute),
			Entry: syncerror.HistoryEntry{At: e.now, Actor: "alice", Action: "retry"}}, e.now); err != nil {
			t.Fatal(err)
		}
	}}
	writes := e.host.WriteCount()
	w := e.call(t, e.op.RevertHandler(), c.ID, `{"reason":"wrong country"}`)
	if w.Code != http.StatusConflict || e.host.WriteCount() != writes {
		t.Fatalf("revert of a row a retry holds: %d %s, writes %+v", w.Code, w.Body, e.host.Writes()[writes:])
	}
	if row := e.row(t, c.ID); row.Status != syncerror.StatusRetrying || len(row.Applied.RevertMarks) != 0 {
		t.Fatalf("row %s, marks %+v", row.Status, row.Applied.RevertMarks)
	}
}
