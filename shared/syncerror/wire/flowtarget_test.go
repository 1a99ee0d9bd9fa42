package wire

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// Whoever writes a fix (the approve refuses such a row first; a revert, an automation),
// a flow row whose target record the run did not know is written nowhere and read
// nowhere: its record id is a stand-in, and the source's id would be another record.
func TestAFixIsNotWrittenToAFlowRowsUnknownTarget(t *testing.T) {
	f := newFixture(t)
	rec := syncerrortest.SampleRecord("acme", "run_FLOW")
	rec.RecordType, rec.RecordID = "customer", "(unknown, from crm/Account/C-1)"
	rec.Context, _ = json.Marshal(map[string]any{"flow": map[string]any{"id": "crm-to-erp", "source": "crm", "sourceRecordId": "C-1",
		"target": "hosterp", syncerror.FlowTargetUnknownKey: true}})
	c := syncerror.NewClaim(rec, syncerror.SourceFlow, "run_FLOW", f.now)
	fix := []syncerror.FieldChange{{Path: "email", After: "a@example.com"}}
	err := f.op.Fixes.WriteFix(context.Background(), identity.ForTenant("acme", "alice"), c, fix, "k-1", "")
	var refused *syncerror.RefusedError
	if !errors.As(err, &refused) || refused.Code != syncerror.CodeTargetRecordUnknown || f.conns.Count() != 0 {
		t.Fatalf("write of a fix to an unknown target: %v, %d connector writes", err, f.conns.Count())
	}
	if _, _, err := (recordReader{}).ReadFields(context.Background(), c); !errors.As(err, &refused) {
		t.Fatalf("read of an unknown target: %v", err)
	}
	if got := (&fieldCatalog{}).WriteTarget(c); got.RecordID != "" || got.System != "hosterp" || got.RecordType != "customer" {
		t.Fatalf("write target %+v: want hosterp customer, no record", got)
	}
}
