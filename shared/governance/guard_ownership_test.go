package governance_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/syncassist/syncassist/shared/governance"
)

// The manifest holds whatever case a caller spells the entity and the field in: a CRM
// writing "SalesOrder.Status" is refused like one writing salesOrder.status.
func TestOwnershipIgnoresCase(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, err := e.write(operator("t1"), req(crm, hosterp, "SalesOrder", "SO-1", map[string]any{"Status": "closed"}))
	if !errors.Is(err, governance.ErrOwnershipRejected) || e.fakes[hosterp].WriteCount() != 0 {
		t.Fatalf("err %v, %d writes", err, e.fakes[hosterp].WriteCount())
	}
}

// A write whose fields were partly dropped under source_wins is recorded as partial, not
// as a plain success.
func TestPartlyDroppedWriteIsRecordedAsPartial(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res, err := e.write(operator("t1"), req(hosterp, crm, "customer", "C-1", map[string]any{"email": "x@example.com", "name": "Jane"}))
	if err != nil || len(res.Dropped) != 1 || res.Dropped[0] != "email" {
		t.Fatalf("res %+v err %v", res, err)
	}
	recs := e.audits(governance.ActionConnectorWrite)
	if len(recs) != 1 {
		t.Fatalf("%d connector.write records", len(recs))
	}
	var d map[string]any
	if err := json.Unmarshal(recs[0].Details, &d); err != nil || d["outcome"] != "partial" || d["droppedCount"] != 1.0 {
		t.Fatalf("details %s", recs[0].Details)
	}
}
