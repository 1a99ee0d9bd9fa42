package syncerrortest

import (
	"context"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

// The diagnosis queue's deliveries and the tenant flags the worker's tests and the
// queue's tests both drive it with.

// SQSMessage is a first delivery of body as the diagnosis queue hands it over.
func SQSMessage(id, body string) events.SQSMessage {
	return events.SQSMessage{MessageId: id, Body: body, Attributes: map[string]string{"ApproximateReceiveCount": "1"}}
}

// BatchHandler takes a batch of the diagnosis queue (diagnosis.Worker).
type BatchHandler interface {
	HandleBatch(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error)
}

// RunOne hands h the diagnosis message of row c alone.
func RunOne(t *testing.T, h BatchHandler, c syncerror.Claim) events.SQSEventResponse {
	t.Helper()
	resp, err := h.HandleBatch(context.Background(), events.SQSEvent{Records: []events.SQSMessage{
		SQSMessage("m1", `{"tenantId":"`+c.TenantID+`","id":"`+c.ID+`"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TenantsWith is a tenant store holding tenant "acme" with its feature switched on ("true")
// or off, and its webhook on.
func TenantsWith(t *testing.T, on string) *tenanttest.Store {
	t.Helper()
	s := tenanttest.NewStore()
	if err := s.Create(context.Background(), tenant.Config{ID: "acme", Settings: map[string]string{
		tenant.KeyEnabled: on, tenant.KeyWebhookEnabled: "true"}}); err != nil {
		t.Fatal(err)
	}
	return s
}
