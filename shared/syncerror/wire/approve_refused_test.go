package wire

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// otherApproval is a governance store that holds, under every write's key, an ownership
// approval of a write to another record.
type otherApproval struct{ governancetest.Store }

func (s *otherApproval) PutApproval(context.Context, governance.PendingApproval) error {
	return governance.ErrExists
}

func (s *otherApproval) GetApproval(_ context.Context, tenant, id string) (governance.PendingApproval, error) {
	return governance.PendingApproval{ID: id, Tenant: tenant, Status: governance.StatusPending, Entity: "salesOrder",
		Request: governance.WriteRequest{Target: connector.SystemHostERP, Source: connector.SystemHostERP, Entity: "salesOrder",
			RecordID: "SO-OTHER", Fields: map[string]any{"shipcountry": "DE"}, IdempotencyKey: "k"}}, nil
}

// A write the guard refuses because the approval under its key is another write's
// (governance.ErrApprovalMismatch) answers a clear 409, returns the row to pending and
// writes nothing; before, it fell through to 502 "the host ERP did not accept the fix".
func TestApproveMeetingAnotherWritesApprovalIsRefusedClearly(t *testing.T) {
	f := newFixture(t)
	c := f.ready(t, "E-1")
	overrides := &governancetest.Overrides{}
	if err := overrides.PutOverrides(context.Background(), "acme", []governance.Entry{
		{Entity: "salesOrder", Field: "shipcountry", Owner: connector.SystemCRM, Policy: governance.PolicyRequireApproval}}); err != nil {
		t.Fatal(err)
	}
	g, err := governance.NewGuard(governance.Deps{
		Manifests: &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: overrides},
		Ledger:    f.ledger, Records: &otherApproval{}, Connectors: f.conns, Scanner: dlp.NewScanner(),
		Audit: f.op.Audit.(*audit.Log), Now: func() time.Time { return f.now },
	})
	if err != nil {
		t.Fatal(err)
	}
	f.op.Fixes = fixWriter{g}
	w := f.call(t, f.op.ApproveHandler(), c.ID, "")
	if w.Code != http.StatusConflict || code(w) != "ownership_approval_mismatch" {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	if row := f.row(t, c.ID); row.Status != syncerror.StatusPending || f.conns.Count() != 0 {
		t.Fatalf("row %s, %d writes", row.Status, f.conns.Count())
	}
}
