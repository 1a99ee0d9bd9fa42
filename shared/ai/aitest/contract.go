package aitest

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/identity"
)

// Records is a trace and cost store with the reads the contract checks through: a
// tenant's records whose inference id starts with prefix.
type Records struct {
	ai.TraceStore
	ai.CostStore
	ReadTraces func(ctx context.Context, tenantID, prefix string) ([]ai.Trace, error)
	ReadCosts  func(ctx context.Context, tenantID, prefix string) ([]ai.CostRecord, error)
}

// RunRecordsContract holds a trace and cost store to what the AI client relies on: a
// replayed inference overwrites its trace, the first cost record of an (inference,
// operation) stands so a replay never counts twice, and tenants never see each other's.
func RunRecordsContract(t *testing.T, newRecords func(t *testing.T) Records) {
	ctx := context.Background()
	s := newRecords(t)
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
		if err := s.PutCosts(ctx, []ai.CostRecord{c}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutCosts(ctx, []ai.CostRecord{{TenantID: "t2", InferenceID: "se_a-a1", Operation: "suggest", At: at}}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutTrace(ctx, ai.Trace{TenantID: "t1", InferenceID: "se_b-a1", Operation: "diagnose", StartedAt: at}); err != nil {
		t.Fatal(err)
	}
	traces, err := s.ReadTraces(ctx, "t1", "se_a")
	if err != nil || len(traces) != 1 || traces[0].Error != "second" || !reflect.DeepEqual(traces[0].Identity, id) {
		t.Fatalf("traces %+v err=%v: want the replay's trace only", traces, err)
	}
	costs, err := s.ReadCosts(ctx, "t1", "se_a")
	if err != nil || len(costs) != 1 || costs[0].CostUSD != 0.5 || costs[0].InputTokens != 10 {
		t.Fatalf("costs %+v err=%v: want the first record only", costs, err)
	}
	if costs, err := s.ReadCosts(ctx, "t3", ""); err != nil || len(costs) != 0 {
		t.Fatalf("another tenant's costs %+v err=%v", costs, err)
	}
}

// ReadTraces returns the tenant's traces whose inference id starts with prefix.
func (s *TraceStore) ReadTraces(_ context.Context, tenantID, prefix string) ([]ai.Trace, error) {
	var out []ai.Trace
	for _, tr := range s.Traces() {
		if tr.TenantID == tenantID && strings.HasPrefix(tr.InferenceID, prefix) {
			out = append(out, tr)
		}
	}
	return out, nil
}

// ReadCosts returns the tenant's cost records whose inference id starts with prefix.
func (s *CostStore) ReadCosts(_ context.Context, tenantID, prefix string) ([]ai.CostRecord, error) {
	var out []ai.CostRecord
	for _, c := range s.Costs() {
		if c.TenantID == tenantID && strings.HasPrefix(c.InferenceID, prefix) {
			out = append(out, c)
		}
	}
	return out, nil
}
