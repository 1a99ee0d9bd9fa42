package dynamo

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// The rest of a proposal (summary, rationale, inference, provenance) is stored deflated:
// a rules proposal's 700 bytes of JSON take a fifth less in every later write of the row
// (issue 37 §1). The row reads the same proposal back; a row written before, with the rest
// as JSON text, reads as it did.
func TestProposalRestIsStoredDeflatedAndReadsTheSame(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx := context.Background()
		s := newRawRows(t, e)
		now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
		c := syncerror.NewClaim(syncerror.Record{TenantID: "t1", ErrorID: "E-1", RecordType: "salesOrder", RecordID: "SO-1",
			ErrorCode: "INVALID_FIELD_VALUE", Message: "m", OccurredAt: now}, syncerror.SourceWebhook, "msg_1", now)
		if _, err := s.Claim(ctx, c); err != nil {
			t.Fatal(err)
		}
		if _, err := s.BeginDiagnosis(ctx, "t1", c.ID, now, now); err != nil {
			t.Fatal(err)
		}
		at := now.Add(time.Hour)
		p := syncerror.Proposal{Class: "value", Fix: []syncerror.FieldChange{{Path: "shipcountry", Before: "Deutschland", After: "DE"}},
			Confidence: 0.9, Source: "rules",
			Summary:     `SalesOrder SO-1 failed because the target system rejected a field value (shipcountry); set shipcountry to "DE".`,
			Rationale:   strings.Repeat(`The target system refused a value in the record (field shipcountry). Set shipcountry to "DE". `, 5),
			InferenceID: c.ID + "-a1", Provider: "rules", Model: "rules-v1", DiagnosedAt: now,
			Learned: &syncerror.Provenance{KnowledgeIDs: []string{"kn_1"}, Approvals: 3, People: 2, LastApprovedBy: "alice", LastApprovedAt: &at}}
		if err := s.CompleteDiagnosis(ctx, "t1", c.ID, 1, p, now); err != nil {
			t.Fatal(err)
		}
		stored := s.item(c.ID)
		_, more := proposalAttrs(p)
		text, _ := json.Marshal(moreProposal{Retryable: p.Retryable, Summary: p.Summary, Rationale: p.Rationale,
			InferenceID: p.InferenceID, Provider: p.Provider, Model: p.Model, DiagnosedAt: p.DiagnosedAt, Learned: p.Learned})
		z, ok := stored["proposal_more"].(*types.AttributeValueMemberB)
		if !ok || !reflect.DeepEqual(stored["proposal_more"], more) || len(z.Value)*10 > len(text)*8 {
			t.Fatalf("proposal_more stored as %T, want binary, deflated under 80 %% of its %d bytes of JSON", stored["proposal_more"], len(text))
		}
		got, err := s.Get(ctx, "t1", c.ID)
		if err != nil || got.Proposal == nil || !reflect.DeepEqual(*got.Proposal, p) {
			t.Fatalf("read back %+v (%v), want %+v", got.Proposal, err, p)
		}
		// A row as written before: the rest as JSON text.
		old := stored
		old["id"], old["proposal_more"] = dynamostore.Str("se_old"), dynamostore.Str(string(text))
		s.put(old)
		was, err := s.Get(ctx, "t1", "se_old")
		if err != nil || was.Proposal == nil || !reflect.DeepEqual(*was.Proposal, p) {
			t.Fatalf("a row written before reads %+v (%v), want %+v", was.Proposal, err, p)
		}
	})
}
