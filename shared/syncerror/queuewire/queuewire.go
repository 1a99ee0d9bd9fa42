// Package queuewire is the sync-error queue's wiring (package wire) with the diagnosis
// queue's SQS sender, for the functions that send to it: the reconcile, the flows (a
// failed run is claimed as a sync error and sent for diagnosis) and the local stack. The
// operator's functions and diagnose send nothing, so they build package wire alone, which
// imports no SQS client (whose model costs a function 0.37 MiB); the ingest builds its own
// (ingestwire).
package queuewire

import (
	"context"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/syncerror/ingestwire"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	syncerrorwire "github.com/syncassist/syncassist/shared/syncerror/wire"
)

// New is wire.New with the diagnosis queue the environment names (DIAGNOSIS_QUEUE_URL).
func New(b *platform.Base) (*syncerrorwire.Feature, error) {
	f, err := syncerrorwire.New(b)
	if err != nil {
		return nil, err
	}
	f.Queue = ingestwire.Queue(b)
	return f, nil
}

// ReconcileLambda is the reconcile function's entry point.
func ReconcileLambda(_ context.Context, b *platform.Base) (func(context.Context, events.EventBridgeEvent) (intake.Report, error), error) {
	f, err := New(b)
	if err != nil {
		return nil, err
	}
	r := f.Reconcile()
	return func(ctx context.Context, _ events.EventBridgeEvent) (intake.Report, error) { return r.Run(ctx) }, nil
}
