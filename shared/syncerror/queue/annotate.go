package queue

import (
	"context"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
)

// Annotate says on each pending or escalated row who may approve it, by which rule, and
// who can for the viewer of ctx; on an escalated row, why it was escalated.
func (o *Service) Annotate(ctx context.Context, tenantID string, rows []*Summary, claims []syncerror.Claim) {
	if len(rows) == 0 {
		return
	}
	pol, err := o.TenantPolicy(ctx, tenantID)
	o.annotate(ctx, pol, err, rows, claims)
}

// annotate is Annotate with the tenant's policy read (err: it could not be).
func (o *Service) annotate(ctx context.Context, pol *policy.Policy, err error, rows []*Summary, claims []syncerror.Claim) {
	viewer, _ := identity.FromContext(ctx)
	approver := viewer.HasRole(identity.RoleApprover)
	if err != nil {
		httpapi.Logger(ctx).Error("approval policy unreadable; rows shown without it", "error", err)
	}
	for i, c := range claims {
		if e := escalationOf(c); e != nil {
			shown := o.peopleFor(ctx).history([]syncerror.HistoryEntry{*e})[0] // who escalated, named as the audit log names them
			rows[i].Escalation = &shown
		}
		if err != nil {
			continue
		}
		if d, ok := policy.DecisionOf(pol, c); ok {
			rows[i].Decider = d.Decider(c.Status, approver)
			if pol != nil {
				rows[i].Approval = &d
			}
		}
	}
}

// escalationOf is the escalate that made c escalated: its newest "escalated" entry.
func escalationOf(c syncerror.Claim) *syncerror.HistoryEntry {
	if c.Status != syncerror.StatusEscalated {
		return nil
	}
	for i := len(c.History) - 1; i >= 0; i-- {
		if c.History[i].Action == "escalated" {
			h := c.History[i]
			return &h
		}
	}
	return nil
}
