package governance

import (
	"context"
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
// from the target and idempotency key, so a retried hold finds the first one; its
// PayloadHash binds it to the values held (sameWrite).
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
	req := op.req
	req.Fields = maps.Clone(op.req.Fields)
	if l := req.Link; l != nil && l.Read != nil {
		// The trail read is of this attempt; the release is checked as the ledger then stands.
		held := *l
		held.Read = nil
		req.Link = &held
	}
	// A request whose fields do not encode is refused after this (checkAndWrite) and never
	// held, so the error needs no answer here.
	hash, _ := PayloadHash(op.req.Fields)
	return &PendingApproval{
		ID: approvalIDOf(op.req.Target, op.req.IdempotencyKey), Time: op.now, Tenant: op.tenant, Entity: op.req.Entity,
		PayloadHash:   hash,
		DeclaredOwner: owner, Caller: op.req.Source, Target: op.req.Target, Resource: op.resource,
		Reason: ReasonOwnership, Status: StatusPending, Request: req, Fields: names,
		CorrelationID: op.corr, RequestedBy: op.id.Actor, RequestedByKeys: op.id.NameKeys(),
	}
}

// sameWrite refuses a write that found, under its target and idempotency key, an
// approval of another write. The key is the caller's to derive, and nothing at the target
// replays by it (connectors keep no idempotency store), so without this an approval would
// release whatever a later request under the key carries. The approval is bound to the
// held request's source, entity and record id, compared exactly as the connector would
// write them, and to the hash of its values; an approval stored before the hash was kept
// is compared on the values its request holds, which hash alike after the store's JSON
// round trip (canonical.go).
func (op *writeOp) sameWrite(a *PendingApproval) error {
	held := a.Request
	var differs []string
	if held.Source != op.req.Source {
		differs = append(differs, "source")
	}
	if held.Entity != op.req.Entity {
		differs = append(differs, "entity")
	}
	if held.RecordID != op.req.RecordID {
		differs = append(differs, "record")
	}
	if !op.sameValues(a) {
		differs = append(differs, "values")
	}
	if len(differs) == 0 {
		return nil
	}
	op.auditWrite(audit.ResultDenied, "approval_mismatch", map[string]any{"approvalId": a.ID, "differs": differs})
	return fmt.Errorf("%w: approval %s (%s) holds another %v", ErrApprovalMismatch, a.ID, a.Status, differs)
}

// sameValues says the write's values are the approval's: the same, or, when a newer change
// of the source record has been written to some of them since the hold (checkSuperseded
// took them out), the approval's others, every field it holds beyond them taken out so. A
// caller that writes its held write itself once approved (ReleaseByRetry: a flow run)
// then writes what the approver approved less what is older than the record, as a release
// does, rather than being refused as another write.
func (op *writeOp) sameValues(a *PendingApproval) bool {
	held := a.Request.Fields
	want := a.PayloadHash
	if want == "" {
		want, _ = PayloadHash(held)
	}
	got, err := PayloadHash(op.req.Fields)
	if err != nil || got == want || len(op.superseded) == 0 {
		return err == nil && got == want
	}
	if h, err := PayloadHash(held); err != nil || h != want {
		return false // the request stored is not what was approved
	}
	part := make(map[string]any, len(op.req.Fields))
	for name := range op.req.Fields {
		v, ok := held[name]
		if !ok {
			return false
		}
		part[name] = v
	}
	for name := range held {
		if _, ok := op.req.Fields[name]; !ok && !slices.Contains(op.superseded, name) {
			return false
		}
	}
	h, err := PayloadHash(part)
	return err == nil && h == got
}

// approvalIDOf is the id of the approval that holds the write under key to target: a
// retry of the same write finds it (hold), and so does HeldApproval.
func approvalIDOf(target connector.System, key string) string {
	sum := sha256.Sum256([]byte(string(target) + "\x00" + key))
	return "ap_" + hex.EncodeToString(sum[:16])
}

// HeldApproval returns the approval that holds, or held, the write under key to target
// for tenant, whatever its status; ErrNotFound when no such write was ever held. Its Time
// is when the write was first held: when its caller first asked for it.
func (g *Guard) HeldApproval(ctx context.Context, tenant string, target connector.System, key string) (PendingApproval, error) {
	return g.records.GetApproval(ctx, tenant, approvalIDOf(target, key))
}
