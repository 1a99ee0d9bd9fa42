package diagnosis_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/diagnosis"
	"github.com/syncassist/syncassist/shared/syncerror/retries"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

type classDiagnoser struct{ class string }

func (d classDiagnoser) Diagnose(_ context.Context, c syncerror.Claim, inferenceID string) (syncerror.Proposal, error) {
	return syncerror.Proposal{Class: d.class, Summary: "s", Confidence: 0.9, InferenceID: inferenceID}, nil
}

// The worker puts a row of a retryable class on the schedule once diagnosed, unless the
// tenant switched automatic retry off; other classes wait for people.
func TestWorkerPlansRetriesOfRetryableClasses(t *testing.T) {
	ctx := context.Background()
	tenants := tenanttest.NewStore()
	for id, auto := range map[string]string{"on": "", "off": "false"} {
		if err := tenants.Create(ctx, tenant.Config{ID: id, Settings: map[string]string{tenant.KeyEnabled: "true",
			tenant.KeyWebhookEnabled: "true", tenant.KeyAutoRetry: auto}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		tenant, class string
		want          syncerror.Status
	}{
		{"on", "connection", syncerror.StatusRetrying},
		{"on", "rate_limit", syncerror.StatusRetrying},
		{"on", "intermittent", syncerror.StatusRetrying},
		{"on", "permission", syncerror.StatusPending},
		{"off", "connection", syncerror.StatusPending},
	} {
		t.Run(c.tenant+"/"+c.class, func(t *testing.T) {
			store := syncerrortest.NewClaimStore()
			row := syncerrortest.Claimed(t, store, c.tenant, "E-1", clock)
			rt := &retries.Retrier{Claims: store, Tenants: tenants, Schedule: []time.Duration{time.Minute},
				Jitter: func(d time.Duration) time.Duration { return d }, Now: clockFunc}
			w := &diagnosis.Worker{Claims: store, Tenants: tenants, Diagnoser: classDiagnoser{c.class}, Log: slog.New(slog.DiscardHandler),
				Now: clockFunc, Retries: rt}
			resp, err := w.HandleBatch(ctx, events.SQSEvent{Records: []events.SQSMessage{
				syncerrortest.SQSMessage("m", `{"tenantId":"`+c.tenant+`","id":"`+row.ID+`"}`)}})
			if err != nil || len(resp.BatchItemFailures) != 0 {
				t.Fatalf("%+v %v", resp, err)
			}
			got, _ := store.Get(ctx, c.tenant, row.ID)
			if got.Status != c.want || got.Diagnosis != syncerror.DiagnosisReady {
				t.Fatalf("status %s diagnosis %s, want %s", got.Status, got.Diagnosis, c.want)
			}
			if c.want == syncerror.StatusRetrying && !got.Retry.NextAt.Equal(clock.Add(time.Minute)) {
				t.Fatalf("next attempt %v", got.Retry.NextAt)
			}
		})
	}
}
