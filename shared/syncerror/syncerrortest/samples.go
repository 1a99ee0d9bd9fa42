package syncerrortest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// The sample rows every room's tests start from.

// SampleRecord returns a valid record for tenantID with the given errorId.
func SampleRecord(tenantID, errorID string) syncerror.Record {
	return syncerror.Record{
		TenantID:       tenantID,
		ErrorID:        errorID,
		RecordType:     "salesOrder",
		RecordID:       "SO-10042",
		ErrorCode:      "INVALID_FIELD_VALUE",
		Message:        "Invalid value for field shipcountry: 'Deutschland'",
		OccurredAt:     time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC),
		Integration:    "shopify-orders",
		ExternalSystem: "shopify",
		Direction:      "inbound",
		Payload:        json.RawMessage(`{"shipcountry":"Deutschland","total":129.5}`),
		Context:        json.RawMessage(`{"script":"ue_sync_error"}`),
	}
}

// SampleProposal returns a realistic proposal for tests.
func SampleProposal(inferenceID string, at time.Time) syncerror.Proposal {
	return syncerror.Proposal{
		Class:       "value",
		Summary:     "shipcountry holds a country name where an ISO code is expected",
		Fix:         []syncerror.FieldChange{{Path: "shipcountry", Before: "Deutschland", After: "DE"}},
		Rationale:   "The target expects ISO 3166-1 alpha-2 codes; Deutschland is Germany, DE.",
		Confidence:  0.92,
		InferenceID: inferenceID,
		Provider:    "rules",
		Model:       "rules-v1",
		DiagnosedAt: at.UTC(),
	}
}

// Claimed claims a sample record of tenantID as a webhook would, and returns its row.
func Claimed(t *testing.T, s syncerror.ClaimStore, tenantID, errorID string, at time.Time) syncerror.Claim {
	t.Helper()
	c := syncerror.NewClaim(SampleRecord(tenantID, errorID), syncerror.SourceWebhook, "", at)
	if _, err := s.Claim(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	return c
}

// Ready is Claimed with its diagnosis done: a pending row with the sample proposal, ready
// for a decision.
func Ready(t *testing.T, s syncerror.ClaimStore, tenant, errorID string, at time.Time) syncerror.Claim {
	t.Helper()
	c := Claimed(t, s, tenant, errorID, at)
	got, err := s.BeginDiagnosis(context.Background(), tenant, c.ID, at, at)
	if err != nil {
		t.Fatal(err)
	}
	p := SampleProposal(syncerror.InferenceID(c.ID, 1), at)
	if err := s.CompleteDiagnosis(context.Background(), tenant, c.ID, got.DiagnosisAttempts, p, at); err != nil {
		t.Fatal(err)
	}
	return c
}
