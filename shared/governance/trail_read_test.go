package governance_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/governance"
)

// countingLedger counts the ledger reads the guard makes.
type countingLedger struct {
	governance.Ledger
	reads atomic.Int32
}

func (l *countingLedger) Recent(ctx context.Context, tenant, entity, record string, since time.Time) ([]governance.LedgerEntry, error) {
	l.reads.Add(1)
	return l.Ledger.Recent(ctx, tenant, entity, record, since)
}

// The return leg of a flow pair is found on the trail of the record it reads from, which
// the first leg wrote: the guard takes it from the read the executor made of that trail
// (Link.Read) and reads the ledger itself only without one that covers its window (issue
// 37 §3: a flow event's DynamoDB calls).
func TestFlowReturnLegIsFoundOnTheTrailItsExecutorRead(t *testing.T) {
	t.Parallel()
	var counted *countingLedger
	e := newEnv(t, func(d *governance.Deps, _ *configs) {
		counted = &countingLedger{Ledger: d.Ledger}
		d.Ledger = counted
	})
	const key = "crm/Lead|hosterp/ticket|C-9"
	out := req(hosterp, crm, "Lead", "C-9", map[string]any{"Phone": "+1"})
	out.Link = &governance.Link{Key: key, Fields: map[string]any{"phone|Phone": "+1"},
		Traces: map[string]governance.Trace{"Phone": {Hops: []governance.Hop{{System: hosterp, Entity: "ticket", Record: "C-9", Field: "phone"}}}}}
	if _, err := e.write(operator("t1"), out); err != nil {
		t.Fatalf("ERP→CRM: %v", err)
	}
	e.clock.Advance(time.Second)
	// The CRM's change of the record, a local edit to the same value: no hop chain shows
	// it, only the reciprocal check does.
	back := func(read *governance.TrailRead) governance.WriteRequest {
		r := req(crm, hosterp, "ticket", "C-9", map[string]any{"phone": "+1"})
		r.Link = &governance.Link{Key: key, Fields: map[string]any{"phone|Phone": "+1"}, Read: read,
			Traces: map[string]governance.Trace{"phone": {Replaced: true, Hops: []governance.Hop{{System: crm, Entity: "Lead", Record: "C-9", Field: "Phone"}}}}}
		return r
	}
	trailOf := func(record string, since time.Time) *governance.TrailRead {
		read, err := governance.Trails{Ledger: e.ledger}.Read(context.Background(), "t1", crm, "lead", record, since)
		if err != nil {
			t.Fatal(err)
		}
		return read
	}
	cases := []struct {
		name  string
		read  *governance.TrailRead
		reads int32
	}{
		{"the executor's read of the source record", trailOf("C-9", e.clock.Now().Add(-time.Hour)), 0},
		{"no read", nil, 1},
		{"a read of another record", trailOf("C-8", e.clock.Now().Add(-time.Hour)), 1},
		{"a read that starts inside the loop window", trailOf("C-9", e.clock.Now().Add(-time.Minute)), 1},
	}
	for _, c := range cases {
		before := counted.reads.Load()
		_, err := e.write(operator("t1"), back(c.read))
		if !errors.Is(err, governance.ErrLoopDetected) || !strings.Contains(err.Error(), "same payload hash") {
			t.Fatalf("%s: err = %v, want the return leg blocked by its payload hash", c.name, err)
		}
		if got := counted.reads.Load() - before; got != c.reads {
			t.Errorf("%s: the guard read the ledger %d times, want %d", c.name, got, c.reads)
		}
	}
	if got := e.fakes[hosterp].WriteCount(); got != 0 {
		t.Fatalf("the host ERP received %d writes, want every return leg blocked", got)
	}
	// The first leg's entry is its trail entry: nothing is kept under the link key.
	if got, _ := e.ledger.Recent(context.Background(), "t1", "~link", key, t0); len(got) != 0 {
		t.Fatalf("%d entries under the link key, want the write's entry on its trail only", len(got))
	}
}

// A held flow write is released later, against the ledger as it then stands: the trail
// read of its attempt does not travel with the approval.
func TestAHeldFlowWriteIsReleasedAgainstTheTrailAsItThenStands(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const key = "crm/contact|hosterp/ticket|C-1"
	ctx := context.Background()
	read, err := governance.Trails{Ledger: e.ledger}.Read(ctx, "t1", hosterp, "ticket", "C-1", t0.Add(-2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	held := req(hosterp, crm, "contact", "C-1", map[string]any{"marketingOptIn": true})
	held.Link = &governance.Link{Key: key, Fields: map[string]any{"optin|marketingOptIn": true}, Read: read,
		Traces: map[string]governance.Trace{"marketingOptIn": {Hops: []governance.Hop{{System: hosterp, Entity: "ticket", Record: "C-1", Field: "optin"}}}}}
	res, err := e.write(operator("t1"), held)
	if !errors.Is(err, governance.ErrPendingApproval) {
		t.Fatalf("hold: %v", err)
	}
	e.clock.Advance(time.Minute)
	// Meanwhile the CRM's value reaches the host ERP: the held write is now its return leg.
	back := req(crm, hosterp, "ticket", "C-1", map[string]any{"optin": true})
	back.Link = &governance.Link{Key: key, Fields: map[string]any{"optin|marketingOptIn": true},
		Traces: map[string]governance.Trace{"optin": {Replaced: true, Hops: []governance.Hop{{System: crm, Entity: "contact", Record: "C-1", Field: "marketingOptIn"}}}}}
	if _, err := e.write(operator("t1"), back); err != nil {
		t.Fatalf("CRM→ERP: %v", err)
	}
	e.clock.Advance(time.Minute)
	w := serve(e.api(), http.MethodPost, "/api/governance/approvals/"+res.Held.ID+"/approve", approverT1)
	if w.Code == http.StatusOK || e.fakes[crm].WriteCount() != 0 {
		t.Fatalf("approve: %d %s, %d CRM writes; want the release blocked as the return leg", w.Code, w.Body, e.fakes[crm].WriteCount())
	}
	if got := e.records.Loops(); len(got) != 1 || !strings.Contains(got[0].BreakingCondition, "same payload hash") {
		t.Fatalf("loop detections %+v, want the release's", got)
	}
}
