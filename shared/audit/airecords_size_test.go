package audit_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/deflate"
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

// A trace is stored deflated against the trace dictionary (issue 37 §1: 4 WRU written
// whole, 2 deflated alone, 1 with the dictionary) and read back byte for byte; traces
// written before, deflated without it (data_z) or as JSON text (data), read as they were.
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
		if err := s.PutTraceDoc(ctx, audit.AIDoc{TenantID: "t1", InferenceID: "se_1-2", Operation: "diagnose"}, trace); err != nil {
			t.Fatal(err)
		}
		// Traces as written before: the JSON text in data, then deflated alone in data_z.
		text := []byte(`{"tenantId":"t1","inferenceId":"se_1-0","operation":"diagnose"}`)
		putRaw(t, db, name, "trace#se_1-0#diagnose", "data", &types.AttributeValueMemberS{Value: string(text)})
		putRaw(t, db, name, "trace#se_1-1#diagnose", "data_z", &types.AttributeValueMemberB{Value: deflate.Compress(trace)})
		item := getRaw(t, db, name, "trace#se_1-2#diagnose")
		if size := itemSize(item); size > 1024 {
			t.Errorf("a %d-byte trace is stored in %d bytes, over the 1 KB of one write unit", len(trace), size)
		}
		want := []string{string(text), string(trace), string(trace)}
		docs, err := s.Docs(ctx, "t1", "trace", "se_1-")
		if err != nil || !equalDocs(docs, want) {
			t.Fatalf("Docs: %d documents (%v), want the three traces as written", len(docs), err)
		}
		page, _, err := s.AIRecords(ctx, "t1", audit.KindTrace, "se_1", 10, "")
		if err != nil || !equalDocs(page, want) {
			t.Fatalf("AIRecords: %d documents (%v), want the three traces as written", len(page), err)
		}
	})
}

func putRaw(t *testing.T, db *dynamodb.Client, table, record, attr string, v types.AttributeValue) {
	t.Helper()
	if _, err := db.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
		"tenant_id": &types.AttributeValueMemberS{Value: "t1"}, "record": &types.AttributeValueMemberS{Value: record},
		attr: v, "at": &types.AttributeValueMemberS{Value: "2026-11-28T10:00:00Z"}}}); err != nil {
		t.Fatal(err)
	}
}

func getRaw(t *testing.T, db *dynamodb.Client, table, record string) map[string]types.AttributeValue {
	t.Helper()
	out, err := db.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"tenant_id": &types.AttributeValueMemberS{Value: "t1"},
			"record": &types.AttributeValueMemberS{Value: record}}})
	if err != nil || out.Item == nil {
		t.Fatalf("get %s: %v", record, err)
	}
	return out.Item
}

// itemSize is an item's size as DynamoDB bills a write (infra/cost's ItemSize): each
// attribute's name and value, a number one byte per two digits and one.
func itemSize(it map[string]types.AttributeValue) int {
	size := 0
	for k, v := range it {
		size += len(k)
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			size += len(v.Value)
		case *types.AttributeValueMemberB:
			size += len(v.Value)
		case *types.AttributeValueMemberN:
			digits := strings.Trim(strings.NewReplacer("-", "", ".", "").Replace(v.Value), "0")
			size += (len(digits)+1)/2 + 1
		default:
			panic(fmt.Sprintf("itemSize: no size for %T", v))
		}
	}
	return size
}

func equalDocs[D ~[]byte](docs []D, want []string) bool {
	if len(docs) != len(want) {
		return false
	}
	for i := range docs {
		if string(docs[i]) != want[i] {
			return false
		}
	}
	return true
}
