// Package ingestwire builds the sync-error webhook (the ingest function) from the
// platform: the claim store, the diagnosis queue and the at-rest mask, and nothing of the
// operator's routes. It is apart from package wire, which links the guard, the
// connectors and EventBridge for the operator's writes, so that the ingest's binary links
// only what the webhook serves (a function's size is what its imports link: package
// initialisers, such as an SDK client's model, are linked whether called or not).
package ingestwire

import (
	"context"
	"fmt"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/sqsqueue/sqsjson"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/dynamo"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/tenant"
)

// Routes serves the webhook alone.
func Routes(_ context.Context, b *platform.Base) (platform.Routes, error) {
	claims := dynamo.NewDynamoClaims(b.DB, b.Config.Table(blueprint.Processed))
	return platform.Routes{blueprint.FuncIngest: {Handler: Ingest(b, claims, Queue(b))}}, nil
}

// Ingest is the webhook handler on claims and q.
func Ingest(b *platform.Base, claims syncerror.ClaimStore, q syncerror.Queue) *intake.Ingest {
	return &intake.Ingest{Auth: b.HostAuth(tenant.PurposeIngest), Claims: claims, Queue: q, Mask: Mask(b), Now: b.Clock()}
}

// Mask is the data-class policy of stored sync errors (syncerror.Masker).
func Mask(b *platform.Base) *syncerror.Masker { return &syncerror.Masker{Scanner: b.DLP()} }

// Queue is the diagnosis queue the environment names (DIAGNOSIS_QUEUE_URL), or one that
// fails every send with a clear error where none is named: a function that sends without
// it still claims (the reconcile re-enqueues later) and says why. It sends over sqsjson,
// not the SDK's SQS client, whose model added 320 KB to the ingest's binary for this one
// call (issue 37; linux/arm64, 2026-11-30).
func Queue(b *platform.Base) syncerror.Queue {
	if url := b.Getenv(blueprint.Diagnosis.EnvVar); url != "" {
		return sqsQueue{sqsjson.New(b.AWS, b.Endpoint("SQS"), url)}
	}
	return missingQueue{}
}

// sqsQueue is the Queue on an SQS queue.
type sqsQueue struct{ s *sqsjson.Sender }

func (q sqsQueue) Send(ctx context.Context, m syncerror.Message) error {
	if err := q.s.SendJSON(ctx, m); err != nil {
		return fmt.Errorf("send %s/%s: %w", m.TenantID, m.ID, err)
	}
	return nil
}

type missingQueue struct{}

func (missingQueue) Send(context.Context, syncerror.Message) error {
	return fmt.Errorf("%s is not set", blueprint.Diagnosis.EnvVar)
}
