package finance

import (
	"context"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/platform"
	"github.com/syncassist/syncassist/shared/platform/guarded"
	"github.com/syncassist/syncassist/shared/tenant"
)

// New builds the finance approvals' service on the platform: rows in the finance table,
// the ERP update through the guard, creates authenticated like the webhook.
func New(b *platform.Base) (*Service, error) {
	g, err := guarded.Guard(b)
	if err != nil {
		return nil, err
	}
	ttl, err := platform.EnvDuration(b.Getenv, "FINANCE_LEASE_TTL", DefaultLeaseTTL)
	if err != nil {
		return nil, err
	}
	return &Service{Store: NewDynamoStore(b.DB, b.Config.Table(blueprint.FinanceApprovals)), ERP: GuardUpdater{Guard: g, Records: guarded.Connectors(b)},
		Audit: b.Audit, HostAuth: b.HostAuth(tenant.PurposeFinance), Tenants: b.HostTenants, Ledger: b.Ledger(), Now: b.Clock(),
		LeaseTTL: ttl}, nil
}

// Routes are the finance approvals' HTTP functions.
func Routes(_ context.Context, b *platform.Base) (platform.Routes, error) {
	s, err := New(b)
	if err != nil {
		return nil, err
	}
	return platform.Routes{
		blueprint.FuncFinanceApprovalsList:   {Handler: s.ListHandler()},
		blueprint.FuncFinanceApprovalDetail:  {Handler: s.DetailHandler()},
		blueprint.FuncFinanceApprovalApprove: {Handler: s.ApproveHandler()},
		blueprint.FuncFinanceApprovalReject:  {Handler: s.RejectHandler()},
		blueprint.FuncFinanceApprovalCreate:  {Handler: s.CreateHandler()},
	}, nil
}

// SweepReport is what one lease sweep did.
type SweepReport struct {
	LeasesExpired int `json:"leasesExpired"`
	// TenantsFailed counts tenants whose sweep failed; the others were still swept.
	TenantsFailed int `json:"tenantsFailed"`
}

// SweepAllLeases returns every tenant's approvals whose approve lease expired to pending.
// Finance approvals do not depend on the sync-error flags, so every tenant is swept; one
// tenant's failure is logged and the others are still swept.
func SweepAllLeases(ctx context.Context, b *platform.Base, s *Service) (SweepReport, error) {
	var rep SweepReport
	failed, err := b.EachTenant(ctx, "finance lease sweep", blueprint.FinanceApprovals, func(ctx context.Context, tenantID string) error {
		n, err := s.SweepExpiredLeases(ctx, tenantID, b.Now())
		rep.LeasesExpired += n
		return err
	})
	rep.TenantsFailed = failed
	b.Log.Info("finance lease sweep finished", "leasesExpired", rep.LeasesExpired, "tenantsFailed", rep.TenantsFailed)
	return rep, err
}

// SweepLambda is the finance-lease-sweep function's entry point: the sweep on its own
// schedule, so no other tenant's ERP or the sync-error reconcile can hold it up.
func SweepLambda(_ context.Context, b *platform.Base) (func(context.Context, events.EventBridgeEvent) (SweepReport, error), error) {
	s, err := New(b)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, _ events.EventBridgeEvent) (SweepReport, error) {
		return SweepAllLeases(ctx, b, s)
	}, nil
}
