package flow_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
)

// A run that failed transiently was redriven with the values its event carried, whatever
// the source had said since (review 78). The CRM changes C-1's phone to +1 (the host ERP
// is briefly unavailable: the run waits for the redrive), then to +2 (written). The
// redrive wrote +1 over +2, a value the source no longer held; now it ends skipped.
func TestRedriveDoesNotWriteAnOlderChangeOverANewerOne(t *testing.T) {
	e := newLoopEnv(t, []connector.System{connector.SystemHostERP, connector.SystemCRM}, []governance.Entry{
		{Entity: "customer", Field: "phone", Owner: connector.SystemCRM, Policy: governance.PolicySourceWins},
	}, []flow.Flow{
		{ID: "crm-to-erp", Enabled: true, Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
			Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}, Mapping: map[string]string{"phone": "Phone"}},
	})
	now := t0
	e.x.Now = func() time.Time { return now }
	ctx := context.Background()
	hosterp := e.fakes[connector.SystemHostERP]
	hosterp.Seed("customer", "C-1", map[string]any{"phone": "+0"})

	hosterp.FailNext(3, http.StatusServiceUnavailable) // the first change's write meets an outage
	ids1, _, err := e.x.Handle(ctx, "t1", connector.SystemCRM, flow.Event{EventID: "ev-1", Entity: "Account", RecordID: "C-1",
		ChangedAt: t0, Fields: map[string]any{"Phone": "+1"}})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := e.store.Run(ctx, "t1", ids1[0]); r.Outcome != flow.OutcomeRetrying {
		t.Fatalf("set-up: first run %s (%s), want retrying", r.Outcome, r.Decision)
	}
	now = now.Add(10 * time.Second)
	ids2, _, err := e.x.Handle(ctx, "t1", connector.SystemCRM, flow.Event{EventID: "ev-2", Entity: "Account", RecordID: "C-1",
		ChangedAt: t0.Add(10 * time.Second), Fields: map[string]any{"Phone": "+2"}})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := e.store.Run(ctx, "t1", ids2[0]); r.Outcome != flow.OutcomeWritten {
		t.Fatalf("set-up: second run %s (%s), want written", r.Outcome, r.Decision)
	}
	now = now.Add(2 * time.Minute)
	if _, err := e.x.Redrive(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	r1, _ := e.store.Run(ctx, "t1", ids1[0])
	rec, _ := hosterp.Get("customer", "C-1")
	t.Logf("first run after the redrive: %s (%s); host ERP phone %v; writes %+v", r1.Outcome, r1.Decision, rec.Fields["phone"], hosterp.Writes())
	if rec.Fields["phone"] != "+2" {
		t.Fatalf("host ERP phone is %v after the redrive; the CRM's newest change said +2", rec.Fields["phone"])
	}
	// Nothing failed: the run's change is simply no longer the source's newest word.
	if r1.Outcome != flow.OutcomeSkipped || r1.SyncErrorID != "" || !strings.HasPrefix(r1.Decision, "superseded by the change of 2026-11-22T10:00:10Z") {
		t.Fatalf("first run %s (%s), sync error %q; want skipped, superseded by the second change", r1.Outcome, r1.Decision, r1.SyncErrorID)
	}
}

// newSupersedeEnv is a CRM Account → host ERP customer flow of phone and email, with the
// executor's clock settable.
func newSupersedeEnv(t *testing.T) (*loopEnv, *time.Time) {
	t.Helper()
	e := newLoopEnv(t, []connector.System{connector.SystemHostERP, connector.SystemCRM}, []governance.Entry{
		{Entity: "customer", Field: "phone", Owner: connector.SystemCRM, Policy: governance.PolicySourceWins},
		{Entity: "customer", Field: "email", Owner: connector.SystemCRM, Policy: governance.PolicySourceWins},
	}, []flow.Flow{
		{ID: "crm-to-erp", Enabled: true, Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
			Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}, Mapping: map[string]string{"phone": "Phone", "email": "Email"}},
	})
	now := t0
	e.x.Now = func() time.Time { return now }
	e.fakes[connector.SystemHostERP].Seed("customer", "C-1", map[string]any{"phone": "+0", "email": "old@example.com"})
	return e, &now
}

// crmChange delivers the CRM's change of C-1 and returns its one run as stored.
func (e *loopEnv) crmChange(id string, changedAt time.Time, fields map[string]any) flow.Run {
	e.t.Helper()
	ctx := context.Background()
	ids, _, err := e.x.Handle(ctx, "t1", connector.SystemCRM, flow.Event{EventID: id, Entity: "Account", RecordID: "C-1",
		ChangedAt: changedAt, Fields: fields})
	if err != nil || len(ids) != 1 {
		e.t.Fatalf("event %s: %v %v", id, ids, err)
	}
	r, err := e.store.Run(ctx, "t1", ids[0])
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

// An event delivered after a newer one of the same record (the sender retried it, or
// sent both at once) does not undo the newer change: its run ends skipped, saying which
// change superseded it.
func TestAnEventDeliveredLateDoesNotUndoANewerChange(t *testing.T) {
	e, now := newSupersedeEnv(t)
	hosterp := e.fakes[connector.SystemHostERP]
	if r := e.crmChange("ev-2", t0.Add(10*time.Second), map[string]any{"Phone": "+2"}); r.Outcome != flow.OutcomeWritten {
		t.Fatalf("newer change: %s (%s)", r.Outcome, r.Decision)
	}
	*now = now.Add(time.Minute)
	r := e.crmChange("ev-1", t0, map[string]any{"Phone": "+1"})
	if r.Outcome != flow.OutcomeSkipped || !strings.HasPrefix(r.Decision, "superseded by the change of 2026-11-22T10:00:10Z") ||
		!slices.Equal(r.Superseded, []string{"phone"}) || r.SyncErrorID != "" {
		t.Fatalf("the late event's run: %s (%s), superseded %v", r.Outcome, r.Decision, r.Superseded)
	}
	if rec, _ := hosterp.Get("customer", "C-1"); rec.Fields["phone"] != "+2" {
		t.Fatalf("host ERP phone %v, want +2", rec.Fields["phone"])
	}
}

// Events carry the fields that changed. A redriven run whose phone a newer change wrote
// still writes its email, the source's newest word on that field.
func TestARedriveWritesTheFieldsNoNewerChangeWrote(t *testing.T) {
	e, now := newSupersedeEnv(t)
	hosterp := e.fakes[connector.SystemHostERP]
	hosterp.FailNext(3, http.StatusServiceUnavailable)
	first := e.crmChange("ev-1", t0, map[string]any{"Phone": "+1", "Email": "new@example.com"})
	if first.Outcome != flow.OutcomeRetrying {
		t.Fatalf("set-up: %s (%s)", first.Outcome, first.Decision)
	}
	*now = now.Add(10 * time.Second)
	if r := e.crmChange("ev-2", t0.Add(10*time.Second), map[string]any{"Phone": "+2"}); r.Outcome != flow.OutcomeWritten {
		t.Fatalf("newer change: %s (%s)", r.Outcome, r.Decision)
	}
	*now = now.Add(2 * time.Minute)
	if _, err := e.x.Redrive(context.Background(), "t1"); err != nil {
		t.Fatal(err)
	}
	r, _ := e.store.Run(context.Background(), "t1", first.ID)
	rec, _ := hosterp.Get("customer", "C-1")
	if r.Outcome != flow.OutcomeWritten || !slices.Equal(r.Superseded, []string{"phone"}) || rec.Fields["phone"] != "+2" || rec.Fields["email"] != "new@example.com" {
		t.Fatalf("redriven run %s (%s), superseded %v; host ERP %v", r.Outcome, r.Decision, r.Superseded, rec.Fields)
	}
}

// Two changes the CRM stamped with the same second are ordered by arrival: the one
// received first and redriven after the other is superseded.
func TestARedriveOfAChangeStampedLikeALaterOneIsSuperseded(t *testing.T) {
	e, now := newSupersedeEnv(t)
	hosterp := e.fakes[connector.SystemHostERP]
	hosterp.FailNext(3, http.StatusServiceUnavailable)
	first := e.crmChange("ev-1", t0, map[string]any{"Phone": "+1"})
	*now = now.Add(time.Second)
	if r := e.crmChange("ev-2", t0, map[string]any{"Phone": "+2"}); r.Outcome != flow.OutcomeWritten {
		t.Fatalf("second change: %s (%s)", r.Outcome, r.Decision)
	}
	*now = now.Add(2 * time.Minute)
	if _, err := e.x.Redrive(context.Background(), "t1"); err != nil {
		t.Fatal(err)
	}
	r, _ := e.store.Run(context.Background(), "t1", first.ID)
	if rec, _ := hosterp.Get("customer", "C-1"); r.Outcome != flow.OutcomeSkipped || rec.Fields["phone"] != "+2" {
		t.Fatalf("first change redriven: %s (%s); host ERP phone %v", r.Outcome, r.Decision, rec.Fields["phone"])
	}
}
