package syncerror_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

func claimed(t *testing.T, s syncerror.ClaimStore, tenantID, errorID string, at time.Time) syncerror.Claim {
	t.Helper()
	c := syncerror.NewClaim(syncerrortest.SampleRecord(tenantID, errorID), syncerror.SourceWebhook, "", at)
	if _, err := s.Claim(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	return c
}

func sqsMsg(id, body string) events.SQSMessage {
	return events.SQSMessage{MessageId: id, Body: body, Attributes: map[string]string{"ApproximateReceiveCount": "1"}}
}

func TestWorkerReportsOnlyFailedMessages(t *testing.T) {
	store := syncerrortest.NewClaimStore()
	ok := claimed(t, store, "acme", "E-1", clock)
	done := claimed(t, store, "acme", "E-2", clock)
	w := &syncerror.Worker{Claims: store, Log: discardLogger(), Now: func() time.Time { return clock.Add(time.Second) }}
	// E-2 is already being diagnosed by another delivery: its copy is redundant, not a failure.
	if _, err := store.BeginDiagnosis(context.Background(), "acme", done.ID, clock, clock); err != nil {
		t.Fatal(err)
	}
	ev := events.SQSEvent{Records: []events.SQSMessage{
		sqsMsg("m-ok", `{"tenantId":"acme","id":"`+ok.ID+`"}`),
		sqsMsg("m-garbage", `not json`),
		sqsMsg("m-no-id", `{"tenantId":"acme"}`),
		sqsMsg("m-missing-row", `{"tenantId":"acme","id":"se_nothere"}`),
		sqsMsg("m-redundant", `{"tenantId":"acme","id":"`+done.ID+`"}`),
	}}
	resp, err := w.HandleBatch(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	for _, f := range resp.BatchItemFailures {
		failed = append(failed, f.ItemIdentifier)
	}
	want := []string{"m-garbage", "m-no-id", "m-missing-row"}
	if len(failed) != len(want) {
		t.Fatalf("failed %v, want %v", failed, want)
	}
	for i := range want {
		if failed[i] != want[i] {
			t.Fatalf("failed %v, want %v", failed, want)
		}
	}
	row, _ := store.Get(context.Background(), "acme", ok.ID)
	if row.Diagnosis != syncerror.DiagnosisDiagnosing || row.DiagnosisAttempts != 1 {
		t.Fatalf("row %+v, want diagnosing attempt 1", row)
	}
}

func TestWorkerStoreErrorFailsTheMessage(t *testing.T) {
	w := &syncerror.Worker{Claims: brokenClaims{}, Log: discardLogger()}
	resp, err := w.HandleBatch(context.Background(), events.SQSEvent{Records: []events.SQSMessage{sqsMsg("m1", `{"tenantId":"acme","id":"se_x"}`)}})
	if err != nil || len(resp.BatchItemFailures) != 1 {
		t.Fatalf("resp %+v err=%v", resp, err)
	}
}

func TestWorkerTakesOverStaleDiagnosis(t *testing.T) {
	store := syncerrortest.NewClaimStore()
	c := claimed(t, store, "acme", "E-1", clock)
	if _, err := store.BeginDiagnosis(context.Background(), "acme", c.ID, clock, clock); err != nil {
		t.Fatal(err)
	}
	w := &syncerror.Worker{Claims: store, Log: discardLogger(), StaleAfter: time.Minute,
		Now: func() time.Time { return clock.Add(2 * time.Minute) }}
	resp, _ := w.HandleBatch(context.Background(), events.SQSEvent{Records: []events.SQSMessage{sqsMsg("m1", `{"tenantId":"acme","id":"`+c.ID+`"}`)}})
	row, _ := store.Get(context.Background(), "acme", c.ID)
	if len(resp.BatchItemFailures) != 0 || row.DiagnosisAttempts != 2 {
		t.Fatalf("resp %+v row %+v, want takeover as attempt 2", resp, row)
	}
}

type brokenClaims struct{ syncerror.ClaimStore }

func (brokenClaims) BeginDiagnosis(context.Context, string, string, time.Time, time.Time) (syncerror.Claim, error) {
	return syncerror.Claim{}, errors.New("throttled")
}
