package intake_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// A sync error the service reports itself (a flow's failed write) keeps its payload's
// bytes through the webhook's validation: "&", "<" and ">" stay as given, not escaped to
// "\u0026" as encoding/json's default would (the same value, but not the text vouched for).
func TestReportedPayloadKeepsItsBytes(t *testing.T) {
	claims := syncerrortest.NewClaimStore()
	payload := json.RawMessage(`{"note":"A & B <ok>","zip":"01067"}`)
	rec := syncerror.Record{TenantID: "acme", ErrorID: "F-1", RecordType: "customer", RecordID: "C-1", ErrorCode: "WRITE_FAILED",
		Message: "write failed", OccurredAt: clock, Payload: payload}
	id, err := (&intake.Reporter{Claims: claims, Queue: &syncerrortest.Queue{}, Now: clockFunc}).Report(context.Background(), rec, syncerror.SourceFlow, "run-1")
	if err != nil {
		t.Fatal(err)
	}
	row, err := claims.Get(context.Background(), "acme", id)
	if err != nil {
		t.Fatal(err)
	}
	if string(row.Record.Payload) != string(payload) {
		t.Fatalf("payload stored as %s, want %s", row.Record.Payload, payload)
	}
}
