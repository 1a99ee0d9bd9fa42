package syncerror

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// DefaultDiagnosisStale is how long a row may sit in diagnosing before another delivery of
// its message may take it over (the worker that had it is presumed dead). It exceeds the
// worker's timeout so a live worker is never overtaken.
const DefaultDiagnosisStale = 2 * time.Minute

// Worker takes diagnosis messages in batches, as the SQS event source delivers them.
type Worker struct {
	Claims ClaimStore
	Log    *slog.Logger
	Now    func() time.Time
	// StaleAfter overrides DefaultDiagnosisStale.
	StaleAfter time.Duration
}

// HandleBatch processes every message and reports the ones that failed, so that SQS
// redelivers only those (and moves them to the DLQ after maxReceiveCount).
func (w *Worker) HandleBatch(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	var resp events.SQSEventResponse
	for _, msg := range ev.Records {
		if err := w.handle(ctx, msg); err != nil {
			w.log().Error("diagnosis message failed", "messageId", msg.MessageId,
				"receiveCount", msg.Attributes["ApproximateReceiveCount"], "error", err)
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: msg.MessageId})
		}
	}
	return resp, nil
}

func (w *Worker) handle(ctx context.Context, msg events.SQSMessage) error {
	m, err := ParseMessage(msg.Body)
	if err != nil {
		// A malformed message never gets better; failing it sends it to the DLQ for a
		// person to read instead of dropping it.
		return err
	}
	now := w.now()
	stale := w.StaleAfter
	if stale <= 0 {
		stale = DefaultDiagnosisStale
	}
	c, err := w.Claims.BeginDiagnosis(ctx, m.TenantID, m.ID, now, now.Add(-stale))
	switch {
	case errors.Is(err, ErrStateChanged):
		// Another delivery has it, or it is done: this copy is redundant.
		w.log().Info("diagnosis already taken", "tenant", m.TenantID, "id", m.ID)
		return nil
	case err != nil:
		return err
	}
	w.log().Info("diagnosing", "tenant", c.TenantID, "id", c.ID, "attempt", c.DiagnosisAttempts)
	return nil
}

func (w *Worker) now() time.Time {
	if w.Now != nil {
		return w.Now().UTC()
	}
	return time.Now().UTC()
}

func (w *Worker) log() *slog.Logger {
	if w.Log != nil {
		return w.Log
	}
	return slog.Default()
}
