package fault

import (
	"testing"

	"github.com/syncassist/syncassist/shared/ai"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/aidiagnoser"
)

// The DLQ check can fail: without a fault that may dead-letter, any message fails it;
// with one, a hot-tenant message of a diagnosed claim passes, and one of another tenant,
// of no claim of the burst, or of a claim left undiagnosed (lost) does not.
func TestJudgeDLQ(t *testing.T) {
	ours := map[string]bool{rowIDOf("A"): true, rowIDOf("B"): true}
	states := map[string]syncerror.Diagnosis{rowIDOf("A"): syncerror.DiagnosisReady, rowIDOf("B"): syncerror.DiagnosisQueued}
	state := func(m syncerror.Message) (syncerror.Diagnosis, string) { return states[m.ID], "" }
	msg := func(tenant, errorID string) syncerror.Message {
		return syncerror.Message{TenantID: tenant, ID: rowIDOf(errorID)}
	}

	var row Row
	judgeDLQ(&row, []syncerror.Message{msg(tenantID, "A")}, "", ours, state)
	if row.Err == nil {
		t.Error("a dead-lettered message without a fault that may dead-letter passed")
	}
	row = Row{}
	judgeDLQ(&row, []syncerror.Message{msg(tenantID, "A")}, "throttled", ours, state)
	if !row.Pass() {
		t.Errorf("a hot-tenant message of a diagnosed claim under the fault: %+v", row)
	}
	for name, m := range map[string]syncerror.Message{"another tenant's": msg(coldTenant, "A"), "no claim of the burst": msg(tenantID, "Z")} {
		row = Row{}
		judgeDLQ(&row, []syncerror.Message{m}, "throttled", ours, state)
		if row.Err == nil {
			t.Errorf("a message of %s passed", name)
		}
	}
	row = Row{}
	judgeDLQ(&row, []syncerror.Message{msg(tenantID, "A"), msg(tenantID, "B")}, "throttled", ours, state)
	if row.Lost != 1 || row.Err == nil {
		t.Errorf("a dead-lettered claim left queued: lost %d, err %v; want 1 lost", row.Lost, row.Err)
	}
}

// A rules answer followed by the model's is one attempt, not a doubled diagnosis; a second
// attempt, or a call billed twice, is doubled.
func TestTallyCountsAttempts(t *testing.T) {
	rules, model := "c1/a1", "c1/a1"+aidiagnoser.ModelInference
	cost := func(inf, op string) ai.CostRecord { return ai.CostRecord{InferenceID: inf, Operation: op} }
	once := tally([]ai.Trace{{InferenceID: rules}, {InferenceID: model}},
		[]ai.CostRecord{cost(rules, "suggest"), cost(model, "suggest"), cost(model, "assessQuality")})
	if once.Doubled() || once.Attempts != 1 || once.Inferences != 2 || once.Traces != 2 {
		t.Errorf("rules then model: %+v, want one attempt of two inferences, not doubled", once)
	}
	if twice := tally([]ai.Trace{{InferenceID: rules}, {InferenceID: "c1/a2"}}, nil); !twice.Doubled() {
		t.Errorf("two attempts: %+v, want doubled", twice)
	}
	if billed := tally(nil, []ai.CostRecord{cost(rules, "suggest"), cost(rules, "suggest")}); !billed.Doubled() || billed.Repeated != 1 {
		t.Errorf("a call billed twice: %+v, want doubled", billed)
	}
}
