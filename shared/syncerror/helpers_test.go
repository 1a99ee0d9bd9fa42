package syncerror_test

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

var clock = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func clockFunc() time.Time { return clock }

func claimed(t *testing.T, s syncerror.ClaimStore, tenantID, errorID string, at time.Time) syncerror.Claim {
	t.Helper()
	return syncerrortest.Claimed(t, s, tenantID, errorID, at)
}

func sqsMsg(id, body string) events.SQSMessage { return syncerrortest.SQSMessage(id, body) }
