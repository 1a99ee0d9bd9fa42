package navcounts

import (
	"context"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/dynamo"
)

// Routes serve the counts from each feature's table: pending and escalated sync errors,
// pending finance approvals and pending ownership approvals, one page of Cap each.
func Routes(_ context.Context, b *platform.Base) (platform.Routes, error) {
	claims := dynamo.NewDynamoClaims(b.DB, b.Config.Table(blueprint.Processed))
	fin := finance.NewDynamoStore(b.DB, b.Config.Table(blueprint.FinanceApprovals))
	gov := b.GovernanceStore()
	c := &Counts{
		Queue: func(ctx context.Context, tenantID string) (Count, error) {
			p, err := claims.List(ctx, tenantID, syncerror.ListQuery{Status: syncerror.StatusPending, Limit: Cap})
			return Of(len(p.Claims), p.NextCursor), err
		},
		Escalated: func(ctx context.Context, tenantID string) (Count, error) {
			p, err := claims.List(ctx, tenantID, syncerror.ListQuery{Status: syncerror.StatusEscalated, Limit: Cap})
			return Of(len(p.Claims), p.NextCursor), err
		},
		Finance: func(ctx context.Context, tenantID string) (Count, error) {
			p, err := fin.List(ctx, tenantID, finance.StatusPending, Cap, "")
			return Of(len(p.Approvals), p.NextCursor), err
		},
		Governance: func(ctx context.Context, tenantID string) (Count, error) {
			p, err := gov.ListApprovals(ctx, governance.ApprovalQuery{Tenant: tenantID, Reason: governance.ReasonOwnership,
				Status: governance.StatusPending, Limit: Cap})
			return Of(len(p.Items), p.NextCursor), err
		},
	}
	return platform.Routes{blueprint.FuncConsoleCounts: {Handler: c}}, nil
}
