package flow_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
)

// sourceReader answers reads of the source with the record as it is now.
type sourceReader struct {
	fields map[string]any
	err    error
	reads  int
}

func (r *sourceReader) Get(_ context.Context, _ string, _ connector.System, _, id string) (connector.Record, error) {
	r.reads++
	return connector.Record{ID: id, Fields: r.fields}, r.err
}

func rerunFlow(t *testing.T, s flow.Store, enabled bool) {
	t.Helper()
	f := flow.Flow{ID: "f", Enabled: enabled, Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
		Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}, Mapping: map[string]string{"phone": "Phone", "fax": "Fax"}}
	if err := s.PutFlow(context.Background(), "t1", f); err != nil {
		t.Fatal(err)
	}
}

// A re-run writes what the source holds now, with the approved fix in place of its
// field, never what the failed run carried; it is one attempt, linked to its sync error,
// and the same attempt asked again answers the same run without writing twice.
func TestRerunWritesTheSourceAsItIsNow(t *testing.T) {
	s, ctx := newStore(t), context.Background()
	rerunFlow(t, s, true)
	g, rep := &scriptedGuard{results: []guardResult{{}}}, &reporter{}
	x := &flow.Executor{Store: s, Guard: g, SyncErrors: rep, Now: func() time.Time { return t0 }}
	src := &sourceReader{fields: map[string]any{"Phone": "+49 30 123", "Fax": "n/a"}}
	q := flow.RerunRequest{FlowID: "f", RecordID: "C-1", Attempt: "se_1-a1", SyncErrorID: "se_1", Fix: map[string]any{"fax": ""}}
	got, err := x.Rerun(ctx, src, "t1", q)
	if err != nil || got.Outcome != flow.OutcomeWritten || got.Run.SyncErrorID != "se_1" || got.Run.Outcome != flow.OutcomeWritten {
		t.Fatalf("rerun %+v err=%v", got, err)
	}
	w := g.writes[0]
	if w.Fields["phone"] != "+49 30 123" || w.Fields["fax"] != "" || w.RecordID != "C-1" || w.IdempotencyKey != got.Run.ID ||
		w.Source != connector.SystemCRM || w.Target != connector.SystemHostERP {
		t.Fatalf("write %+v", w)
	}
	stored, err := s.Run(ctx, "t1", got.Run.ID)
	if err != nil || stored.Outcome != flow.OutcomeWritten || stored.Pending != nil {
		t.Fatalf("stored run %+v err=%v", stored, err)
	}
	again, err := x.Rerun(ctx, src, "t1", q)
	if err != nil || again.Run.ID != got.Run.ID || again.Outcome != flow.OutcomeWritten || len(g.writes) != 1 || src.reads != 1 {
		t.Fatalf("the same attempt again: %+v err=%v, %d writes, %d reads", again, err, len(g.writes), src.reads)
	}
}

// A transient failure ends the re-run (its retries are the sync error's) and reports no
// second sync error; a permanent one is answered as such, with the target's code.
func TestRerunFailuresAreTheCallers(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want flow.Outcome
	}{
		{"transient", connErr(connector.ErrUnavailable), flow.OutcomeRetrying},
		{"permanent", &connector.Error{System: connector.SystemHostERP, Status: 400, Code: "INVALID_FLD_VALUE", Err: connector.ErrValidation}, flow.OutcomeFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, ctx := newStore(t), context.Background()
			rerunFlow(t, s, true)
			rep := &reporter{}
			x := &flow.Executor{Store: s, Guard: &scriptedGuard{results: []guardResult{{err: c.err}}}, SyncErrors: rep,
				Now: func() time.Time { return t0 }}
			got, err := x.Rerun(ctx, &sourceReader{fields: map[string]any{"Phone": "+1"}}, "t1",
				flow.RerunRequest{FlowID: "f", RecordID: "C-1", Attempt: "a1", SyncErrorID: "se_1"})
			if err != nil || got.Outcome != c.want || rep.reports != 0 {
				t.Fatalf("%+v err=%v reports=%d", got, err, rep.reports)
			}
			if stored, _ := s.Run(ctx, "t1", got.Run.ID); stored.Outcome != flow.OutcomeFailed || stored.NextAttemptAt != nil {
				t.Fatalf("the re-run is left %+v; the redrive would take it", stored)
			}
			if c.want == flow.OutcomeFailed && got.Code != "INVALID_FLD_VALUE" {
				t.Fatalf("code %q", got.Code)
			}
		})
	}
}

// What stops a re-run before any write is an error the caller judges: a disabled or
// missing flow, a source that cannot be read.
func TestRerunRefusals(t *testing.T) {
	s, ctx := newStore(t), context.Background()
	rerunFlow(t, s, false)
	g := &scriptedGuard{results: []guardResult{{}}}
	x := &flow.Executor{Store: s, Guard: g, SyncErrors: &reporter{}, Now: func() time.Time { return t0 }}
	src := &sourceReader{fields: map[string]any{"Phone": "+1"}}
	if _, err := x.Rerun(ctx, src, "t1", flow.RerunRequest{FlowID: "f", RecordID: "C-1", Attempt: "a"}); !errors.Is(err, flow.ErrFlowDisabled) {
		t.Fatalf("disabled: %v", err)
	}
	if _, err := x.Rerun(ctx, src, "t1", flow.RerunRequest{FlowID: "gone", RecordID: "C-1", Attempt: "a"}); !errors.Is(err, flow.ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
	rerunFlow(t, s, true)
	src.err = &connector.Error{System: connector.SystemCRM, Status: 404, Err: connector.ErrNotFound}
	if _, err := x.Rerun(ctx, src, "t1", flow.RerunRequest{FlowID: "f", RecordID: "C-1", Attempt: "a"}); !errors.Is(err, flow.ErrSourceRead) ||
		!errors.Is(err, connector.ErrNotFound) {
		t.Fatalf("unreadable source: %v", err)
	}
	if len(g.writes) != 0 {
		t.Fatalf("%d writes", len(g.writes))
	}
}
