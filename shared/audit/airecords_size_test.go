package audit_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/blueprint"
)

// sampleTrace is a rules diagnosis's trace as make cost's run wrote it (3.5 KB of JSON:
// the anonymized prompt, the response, the steps with the rules' reasoning).
func sampleTrace(t *testing.T) []byte {
	b, err := os.ReadFile("testdata/trace_rules.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A trace is stored deflated (issue 37 §1: 4 WRU written whole, 2 deflated) and read back
// byte for byte; a trace written before, in data as JSON text, reads as it was.
func TestTraceIsStoredDeflatedAndReadsTheSame(t *testing.T) {
	ctx := context.Background()
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		db, table := e.Tables(t)
		name := table(blueprint.TableAIRecords)
		s := audit.NewAIRecords(db, name)
		trace := sampleTrace(t)
		if len(trace) < 3000 {
			t.Fatalf("the sample trace is %d bytes, want a rules diagnosis's 3.5 KB", len(trace))
		}
		at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
		if err := s.PutTraceDoc(ctx, audit.AIDoc{TenantID: "t1", InferenceID: "se_1-1", Operation: "diagnose", ClaimID: "se_1", At: at}, trace); err != nil {
			t.Fatal(err)
		}
		// A trace as written before: the JSON text in data.
		old := []byte(`{"tenantId":"t1","inferenceId":"se_1-0","operation":"diagnose"}`)
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: map[string]types.AttributeValue{
			"tenant_id": &types.AttributeValueMemberS{Value: "t1"}, "record": &types.AttributeValueMemberS{Value: "trace#se_1-0#diagnose"},
			"data": &types.AttributeValueMemberS{Value: string(old)}, "at": &types.AttributeValueMemberS{Value: "2026-11-28T10:00:00Z"}}}); err != nil {
			t.Fatal(err)
		}
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(name), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"tenant_id": &types.AttributeValueMemberS{Value: "t1"},
				"record": &types.AttributeValueMemberS{Value: "trace#se_1-1#diagnose"}}})
		if err != nil {
			t.Fatal(err)
		}
		size := 0
		for k, v := range out.Item {
			size += len(k)
			switch v := v.(type) {
			case *types.AttributeValueMemberS:
				size += len(v.Value)
			case *types.AttributeValueMemberB:
				size += len(v.Value)
			default:
				size += 8
			}
		}
		if size > 2048 {
			t.Errorf("a %d-byte trace is stored in %d bytes, over the 2 KB of two write units", len(trace), size)
		}
		docs, err := s.Docs(ctx, "t1", "trace", "se_1-")
		if err != nil || len(docs) != 2 || string(docs[0]) != string(old) || string(docs[1]) != string(trace) {
			t.Fatalf("Docs: %d documents (%v), want the old trace then the new one as written", len(docs), err)
		}
		page, _, err := s.AIRecords(ctx, "t1", audit.KindTrace, "se_1", 10, "")
		if err != nil || len(page) != 2 || string(page[0]) != string(old) || string(page[1]) != string(trace) {
			t.Fatalf("AIRecords: %d documents (%v), want the old trace then the new one as written", len(page), err)
		}
	})
}
