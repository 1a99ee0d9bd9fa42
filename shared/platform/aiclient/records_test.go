package aiclient_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/platform/aiclient"
)

func TestMain(m *testing.M) { emutest.Main(m) }

func TestAIRecordsAreIdempotentPerInference(t *testing.T) {
	emutest.Each(t, testAIRecordsAreIdempotentPerInference)
}

func testAIRecordsAreIdempotentPerInference(t *testing.T, e emutest.Emulator) {
	ctx := context.Background()
	db, _ := e.Clients(t)
	stage := emutest.Stage(t)
	if err := dynamostore.CreateTables(ctx, db, stage); err != nil {
		t.Fatal(err)
	}
	s := aiclient.Records{Store: audit.NewAIRecords(db, blueprint.PhysicalName(stage, blueprint.TableAIRecords))}
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	id := identity.ForTenant("t1", "webhook:msg_1")
	for i, errText := range []string{"first", "second"} {
		tr := ai.Trace{TenantID: "t1", InferenceID: "se_a-a1", ClaimID: "se_a", Operation: "diagnose", Provider: "rules",
			Model: "rules-v1", Identity: id, Prompt: json.RawMessage(`{"message":"[EMAIL_1] failed"}`), StartedAt: at, Error: errText}
		if err := s.PutTrace(ctx, tr); err != nil {
			t.Fatal(err)
		}
		c := ai.CostRecord{TenantID: "t1", InferenceID: "se_a-a1", Operation: "suggest", Provider: "rules", Model: "rules-v1",
			Identity: id, InputTokens: 10 * (i + 1), CostUSD: 0.5 * float64(i+1), Priced: true, At: at}
		if err := s.PutCost(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutCost(ctx, ai.CostRecord{TenantID: "t2", InferenceID: "se_a-a1", Operation: "suggest", At: at}); err != nil {
		t.Fatal(err)
	}
	traces, err := s.Traces(ctx, "t1", "se_a")
	if err != nil || len(traces) != 1 || traces[0].Error != "second" || !reflect.DeepEqual(traces[0].Identity, id) {
		t.Fatalf("traces %+v err=%v: want the replay's trace only", traces, err)
	}
	costs, err := s.Costs(ctx, "t1", "se_a")
	if err != nil || len(costs) != 1 || costs[0].CostUSD != 0.5 || costs[0].InputTokens != 10 {
		t.Fatalf("costs %+v err=%v: want the first record only", costs, err)
	}
}
