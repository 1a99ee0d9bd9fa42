package diagnosis_test

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/emf/emftest"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/diagnosis"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// costingDiagnoser emits a cost metric per diagnosis, as the governed AI client does.
type costingDiagnoser struct{ fakeDiagnoser }

func (d *costingDiagnoser) Diagnose(ctx context.Context, c syncerror.Claim, inferenceID string) (syncerror.Proposal, error) {
	emf.Emit(emf.Metric{Time: clock, Counts: map[string]float64{"AICostUSD": 0}, Dimensions: []string{"tenant"},
		Fields: map[string]any{"tenant": c.TenantID, "inferenceId": inferenceID}})
	return d.fakeDiagnoser.Diagnose(ctx, c, inferenceID)
}

// diagnoseBatch runs a batch of three claims through a worker and returns its EMF
// datapoints and lines.
func diagnoseBatch(t *testing.T) ([]string, int) {
	var out bytes.Buffer
	prev := emf.Out
	emf.Out = &out
	defer func() { emf.Out = prev }()
	store := syncerrortest.NewClaimStore()
	var ev events.SQSEvent
	for _, id := range []string{"E-1", "E-2", "E-3"} {
		c := syncerrortest.Claimed(t, store, "acme", id, clock)
		ev.Records = append(ev.Records, syncerrortest.SQSMessage("m-"+id, `{"tenantId":"acme","id":"`+c.ID+`"}`))
	}
	w := &diagnosis.Worker{Claims: store, Diagnoser: &costingDiagnoser{}, Log: slog.New(slog.DiscardHandler), Parallel: 1,
		Now: func() time.Time { return clock.Add(time.Second) }}
	if resp, err := w.HandleBatch(context.Background(), ev); err != nil || len(resp.BatchItemFailures) > 0 {
		t.Fatalf("%+v, %v", resp, err)
	}
	points, docs, err := emftest.Parse(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return points, docs
}

// A batch's metrics are written in as few lines as they fit: each diagnosis's cost and
// Diagnoses share one (the next diagnosis repeats both names), the same datapoints as
// one line each, which is what comes out where the worker's Batch cannot collect (an
// invocation overlapping it in the process).
func TestWorkerPacksTheBatchsMetrics(t *testing.T) {
	packed, docs := diagnoseBatch(t)
	overlap := emf.Collect(context.Background())
	alone, lines := diagnoseBatch(t)
	overlap.Flush()
	if lines != 6 || !slices.Equal(packed, alone) {
		t.Fatalf("packed %q\nalone (%d lines) %q", packed, lines, alone)
	}
	if docs != 3 {
		t.Fatalf("%d lines, want 3", docs)
	}
}
