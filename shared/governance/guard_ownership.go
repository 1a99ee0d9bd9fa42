package governance

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// conflict is a field of the write owned by a system other than the write's Source.
type conflict struct {
	field string
	entry Entry
}

// ownershipConflicts returns the conflicts among the write's fields (names, sorted), in
// that order.
func ownershipConflicts(m Manifest, req WriteRequest, names []string) []conflict {
	var out []conflict
	for _, f := range names {
		if e, ok := m.Owner(req.Entity, f); ok && e.Owner != req.Source {
			out = append(out, conflict{field: f, entry: e})
		}
	}
	return out
}

// strictest is the policy that decides for the whole write; "" when nothing conflicts.
func strictest(cs []conflict) Policy {
	var p Policy
	for _, c := range cs {
		if c.entry.Policy.strictness() > p.strictness() {
			p = c.entry.Policy
		}
	}
	return p
}

// byOwner groups conflicting field names per declared owner, owners sorted.
func byOwner(cs []conflict) ([]connector.System, map[connector.System][]string) {
	groups := map[connector.System][]string{}
	for _, c := range cs {
		groups[c.entry.Owner] = append(groups[c.entry.Owner], c.field)
	}
	return slices.Sorted(maps.Keys(groups)), groups
}

func (op *writeOp) rejection(owner connector.System, policy Policy, fields []string) OwnershipRejection {
	return OwnershipRejection{
		ID: op.g.newID(), Time: op.now, Tenant: op.tenant, Entity: op.req.Entity, DeclaredOwner: owner,
		Caller: op.req.Source, Target: op.req.Target, Policy: policy, CorrelationID: op.corr,
		Resource: op.resource, Fields: fields,
	}
}

// reject refuses the whole write: one rejection per declared owner, each alerted.
func (op *writeOp) reject(cs []conflict) error {
	owners, groups := byOwner(cs)
	var names []string
	for _, owner := range owners {
		r := op.rejection(owner, PolicyRejectWithAlert, groups[owner])
		names = append(names, groups[owner]...)
		op.recordRejection(r)
		if op.g.alerter != nil {
			if err := op.g.alerter.Alert(op.ctx, r); err != nil {
				httpapi.Logger(op.ctx).Error("ownership alert failed", "rejectionId", r.ID, "error", err)
			}
		}
	}
	slices.Sort(names)
	op.auditWrite(audit.ResultDenied, "ownership_rejected", map[string]any{"conflictingFields": names})
	return fmt.Errorf("%w: %s of %s is owned by %v", ErrOwnershipRejected, names, op.req.Entity, owners)
}

// dropConflicts applies source_wins: the conflicting fields are recorded and removed.
func (op *writeOp) dropConflicts(cs []conflict) map[string]any {
	owners, groups := byOwner(cs)
	fields := maps.Clone(op.req.Fields)
	for _, owner := range owners {
		op.recordRejection(op.rejection(owner, PolicySourceWins, groups[owner]))
		for _, f := range groups[owner] {
			delete(fields, f)
			op.dropped = append(op.dropped, f)
		}
	}
	slices.Sort(op.dropped)
	return fields
}

func (op *writeOp) recordRejection(r OwnershipRejection) {
	if err := op.g.records.PutRejection(op.ctx, r); err != nil {
		// The refusal stands whether or not it could be recorded.
		httpapi.Logger(op.ctx).Error("ownership rejection not recorded", "rejectionId", r.ID, "error", err)
	}
	op.auditGovernance(ActionOwnershipReject, audit.ResultDenied, map[string]any{
		"rejectionId": r.ID, "policy": string(r.Policy), "declaredOwner": string(r.DeclaredOwner),
		"caller": string(r.Caller), "target": string(r.Target), "entity": r.Entity, "fields": r.Fields,
	})
}

// approvalFor builds the approval a require_approval write is held as. Its id derives
// from the target and idempotency key, so a retried hold finds the first one.
func (op *writeOp) approvalFor(cs []conflict) *PendingApproval {
	owner := cs[0].entry.Owner
	for _, c := range cs {
		if c.entry.Policy == PolicyRequireApproval {
			owner = c.entry.Owner
			break
		}
	}
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.field
	}
	sum := sha256.Sum256([]byte(string(op.req.Target) + "\x00" + op.req.IdempotencyKey))
	req := op.req
	req.Fields = maps.Clone(op.req.Fields)
	if l := req.Link; l != nil && l.Read != nil {
		// The trail read is of this attempt; the release is checked as the ledger then stands.
		held := *l
		held.Read = nil
		req.Link = &held
	}
	return &PendingApproval{
		ID: "ap_" + hex.EncodeToString(sum[:16]), Time: op.now, Tenant: op.tenant, Entity: op.req.Entity,
		DeclaredOwner: owner, Caller: op.req.Source, Target: op.req.Target, Resource: op.resource,
		Reason: ReasonOwnership, Status: StatusPending, Request: req, Fields: names,
		CorrelationID: op.corr, RequestedBy: op.id.Actor,
	}
}
