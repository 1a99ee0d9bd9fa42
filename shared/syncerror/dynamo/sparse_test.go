package dynamo

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// by_diagnosis is sparse (issue 37 §1): a row carries its key while the reconcile may need
// to find it (queued, and held by an attempt under the same key, diagnosis.go) and drops it
// when its diagnosis ends, a delete of one entry where moving it to a ready or failed key
// wrote two.
func TestDiagnosisIndexHoldsOnlyRowsTheReconcileLooksFor(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx := context.Background()
		s := newRawRows(t, e)
		now := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
		key := func(id string) string { return dynamostore.GetString(s.item(id), "diagnosis_key") }
		claim := func(errorID string) string {
			c := syncerror.NewClaim(syncerror.Record{TenantID: "t1", ErrorID: errorID, RecordType: "salesOrder", RecordID: "SO-" + errorID,
				ErrorCode: "X", Message: "m " + errorID, OccurredAt: now}, syncerror.SourceWebhook, "", now)
			if _, err := s.Claim(ctx, c); err != nil {
				t.Fatal(err)
			}
			if got := key(c.ID); got != "t1#queued" {
				t.Fatalf("a new row's diagnosis_key %q, want t1#queued", got)
			}
			before := s.item(c.ID)
			if _, err := s.BeginDiagnosis(ctx, "t1", c.ID, now.Add(time.Second), now.Add(time.Second)); err != nil {
				t.Fatal(err)
			}
			// Taking the row writes nothing either index reads: its by_diagnosis entry stays
			// under the queued key and its by_status entry as it was.
			after := s.item(c.ID)
			for _, name := range append([]string{"diagnosis_key", "diagnosis_since"}, blueprint.ByStatusAttributes...) {
				if b, a := before[name], after[name]; !reflect.DeepEqual(a, b) {
					t.Fatalf("taking the row changed %s from %v to %v", name, b, a)
				}
			}
			if after[attrHeldAt] == nil {
				t.Fatalf("a taken row has no %s: %v", attrHeldAt, after)
			}
			return c.ID
		}
		ready := claim("E-1")
		if err := s.EndDiagnosis(ctx, "t1", ready, 1, syncerror.DiagnosisQueued, "timed out", now); err != nil {
			t.Fatal(err)
		}
		if got := key(ready); got != "t1#queued" {
			t.Fatalf("a row put back in the queue has diagnosis_key %q", got)
		}
		if _, err := s.BeginDiagnosis(ctx, "t1", ready, now, now); err != nil {
			t.Fatal(err)
		}
		p := syncerror.Proposal{Class: "value", Summary: "s", Confidence: 0.9, InferenceID: syncerror.InferenceID(ready, 2), DiagnosedAt: now}
		if err := s.CompleteDiagnosis(ctx, "t1", ready, 2, p, now); err != nil {
			t.Fatal(err)
		}
		failed := claim("E-2")
		if err := s.EndDiagnosis(ctx, "t1", failed, 1, syncerror.DiagnosisFailed, "no model", now); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{ready, failed} {
			if got := key(id); got != "" {
				t.Errorf("a row whose diagnosis ended keeps diagnosis_key %q", got)
			}
			if got := s.item(id)[attrHeldAt]; got != nil {
				t.Errorf("a row whose diagnosis ended keeps %s %v", attrHeldAt, got)
			}
		}
		if row, err := s.Get(ctx, "t1", failed); err != nil || row.Diagnosis != syncerror.DiagnosisFailed || row.DiagnosisError != "no model" {
			t.Errorf("the failed row reads %+v, %v", row, err)
		}
	})
}
