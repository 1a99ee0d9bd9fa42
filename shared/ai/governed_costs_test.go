package ai_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/ai/aitest"
	"github.com/syncassist/syncassist/shared/identity"
)

// batchCosts is an ai.CostStore over aitest's store that keeps the operations of
// each write, and fails the writes while fail is set.
type batchCosts struct {
	*aitest.CostStore
	mu     sync.Mutex
	writes [][]string
	fail   error
}

func (b *batchCosts) PutCosts(ctx context.Context, cs []ai.CostRecord) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fail != nil {
		return b.fail
	}
	var ops []string
	for _, c := range cs {
		ops = append(ops, c.Operation)
		if err := b.CostStore.PutCost(ctx, c); err != nil {
			return err
		}
	}
	b.writes = append(b.writes, ops)
	return nil
}

func (b *batchCosts) stored() []string {
	var ops []string
	for _, c := range b.Costs() {
		ops = append(ops, c.Operation)
	}
	return ops
}

func governedWith(p ai.Provider, costs ai.CostStore) *ai.Governed {
	return ai.NewGoverned(p, aitest.NewScanner(), aitest.NewTraceStore(), costs, aitest.NewAuditor())
}

// A rules diagnosis's two cost records, nothing paid, are one write at its end (one
// DynamoDB item, 1 WRU where they were 2; issue 37 §1).
func TestRulesDiagnosisStoresItsCostsInOneWrite(t *testing.T) {
	costs := &batchCosts{CostStore: aitest.NewCostStore()}
	if _, err := governedWith(ai.NewRulesProvider(), costs).Diagnose(context.Background(), operatorID(), "se_1-a1", "se_1", sampleRequest()); err != nil {
		t.Fatal(err)
	}
	if len(costs.writes) != 1 || len(costs.writes[0]) != 2 || costs.writes[0][0] != ai.OpSuggest || costs.writes[0][1] != ai.OpAssessQuality {
		t.Errorf("cost writes %v, want one of suggest and assessQuality", costs.writes)
	}
}

// A model's call, paid for, is stored before the next call starts, so a crash in that
// call (here seen from inside it) does not lose its cost; the next call's follows at the
// end, a second write.
func TestPaidCallIsStoredBeforeTheNextCall(t *testing.T) {
	costs := &batchCosts{CostStore: aitest.NewCostStore()}
	paid := ai.Usage{Model: "scripted", InputTokens: 1200, OutputTokens: 150}
	var storedDuringAssess []string
	p := &ai.FuncProvider{
		SuggestFunc: func(context.Context, *identity.Identity, ai.DiagnosisRequest) (ai.Diagnosis, ai.Usage, error) {
			return ai.Diagnosis{Class: ai.ClassValue, Summary: "s"}, paid, nil
		},
		AssessQualityFunc: func(context.Context, *identity.Identity, ai.DiagnosisRequest, ai.Diagnosis) (float64, ai.Usage, error) {
			storedDuringAssess = costs.stored()
			return 0.8, paid, nil
		},
	}
	if _, err := governedWith(p, costs).Diagnose(context.Background(), operatorID(), "se_1-a1", "se_1", sampleRequest()); err != nil {
		t.Fatal(err)
	}
	if len(storedDuringAssess) != 1 || storedDuringAssess[0] != ai.OpSuggest {
		t.Errorf("stored while assessQuality ran: %v, want suggest's cost", storedDuringAssess)
	}
	if len(costs.writes) != 2 || len(costs.writes[1]) != 1 || costs.writes[1][0] != ai.OpAssessQuality {
		t.Errorf("cost writes %v, want suggest, then assessQuality", costs.writes)
	}
}

// A paid call's cost that could not be stored before the next call is stored at the end
// with the rest; if it still cannot be, the inference fails as transient (its records
// are missing), as when the end's write fails.
func TestPaidCallNotStoredIsStoredAtTheEnd(t *testing.T) {
	for _, recovers := range []bool{true, false} {
		costs := &batchCosts{CostStore: aitest.NewCostStore(), fail: errors.New("ProvisionedThroughputExceeded")}
		paid := ai.Usage{Model: "scripted", InputTokens: 1200, OutputTokens: 150}
		p := &ai.FuncProvider{
			SuggestFunc: func(context.Context, *identity.Identity, ai.DiagnosisRequest) (ai.Diagnosis, ai.Usage, error) {
				return ai.Diagnosis{Class: ai.ClassValue, Summary: "s"}, paid, nil
			},
			AssessQualityFunc: func(context.Context, *identity.Identity, ai.DiagnosisRequest, ai.Diagnosis) (float64, ai.Usage, error) {
				if recovers {
					costs.fail = nil
				}
				return 0.8, paid, nil
			},
		}
		_, err := governedWith(p, costs).Diagnose(context.Background(), operatorID(), "se_1-a1", "se_1", sampleRequest())
		if recovers && (err != nil || len(costs.writes) != 1 || len(costs.writes[0]) != 2) {
			t.Errorf("the store recovers: err %v, writes %v, want both costs in the end's write", err, costs.writes)
		}
		if !recovers && !errors.Is(err, ai.ErrTransient) {
			t.Errorf("the store stays down: err %v, want ErrTransient", err)
		}
	}
}
