package diagnosis_test

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/diagnosis"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

var clock = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func claimed(t *testing.T, s syncerror.ClaimStore, tenantID, errorID string, at time.Time) syncerror.Claim {
	t.Helper()
	return syncerrortest.Claimed(t, s, tenantID, errorID, at)
}

func sqsMsg(id, body string) events.SQSMessage { return syncerrortest.SQSMessage(id, body) }

func runOne(t *testing.T, w *diagnosis.Worker, c syncerror.Claim) events.SQSEventResponse {
	t.Helper()
	return syncerrortest.RunOne(t, w, c)
}

func tenantsWith(t *testing.T, on string) *tenanttest.Store {
	t.Helper()
	return syncerrortest.TenantsWith(t, on)
}
