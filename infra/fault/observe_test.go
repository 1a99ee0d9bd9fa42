package fault

import (
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
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
