package governance

import (
	"errors"
	"fmt"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// The steps of a write after its ownership check (guard_ownership.go): the loop check
// against the ledger, the DLP scan, and the outcome, either a held approval or the write
// through the connector with its ledger entry. Each step audits its own refusals
// (guard_audit.go).

// checkLoop blocks the write when the ledger shows it is the return leg of a loop, and
// records the detection.
func (op *writeOp) checkLoop(hash string) error {
	cond, loop, err := op.reciprocalLoop(hash)
	if err != nil {
		op.auditWrite(audit.ResultFailure, "check_unavailable", nil)
		return err
	}
	if !loop {
		return nil
	}
	cond = op.recordLoop(cond, op.names)
	op.auditWrite(audit.ResultDenied, "loop_detected", nil)
	return fmt.Errorf("%w: %s", ErrLoopDetected, cond)
}

// reciprocalLoop reads the write ledger for a reciprocal write of the payload hashed as
// hash: the one loop test Write and Evaluate share.
func (op *writeOp) reciprocalLoop(hash string) (cond string, loop bool, err error) {
	if op.req.Source == op.req.Target || op.newRecord() {
		return "", false, nil
	}
	since := op.now.Add(-op.g.window)
	// The return leg was a write to this write's source: its entry is keyed as that
	// system keys the record.
	entity, record, names := op.loopSubject(op.req.Source)
	entries, err := op.reciprocalEntries(entity, record, since)
	if err != nil {
		return "", false, fmt.Errorf("%w: reading the write ledger: %w", ErrUnavailable, err)
	}
	cond, loop = reciprocal(entries, op.req.Source, op.req.Target, hash, names, since)
	return cond, loop, nil
}

// recordLoop stores the loop detection of fields of this write, logs and audits it, and
// returns the breaking condition as recorded: redacted, since hop chains name record ids.
// A record that cannot be stored is logged: the write is broken all the same.
func (op *writeOp) recordLoop(cond string, fields []string) string {
	cond = op.g.redacted(cond, redactedMark)
	l := LoopDetection{
		ID: op.g.newID(), Time: op.now, Tenant: op.tenant, Entity: op.req.Entity, Caller: op.req.Source,
		Target: op.req.Target, BreakingCondition: cond, CorrelationID: op.corr, Resource: op.resource,
	}
	if err := op.g.records.PutLoop(op.ctx, l); err != nil {
		httpapi.Logger(op.ctx).Error("loop detection not recorded", "loopId", l.ID, "error", err)
	}
	httpapi.Logger(op.ctx).Warn("looping write blocked", "loopId", l.ID, "resource", l.Resource, "condition", cond)
	op.auditGovernance(ActionLoopDetected, audit.ResultDenied, map[string]any{
		"loopId": l.ID, "caller": string(l.Caller), "target": string(l.Target), "entity": l.Entity,
		"breakingCondition": cond, "fields": fields,
	})
	return cond
}

// loopSubject is what the ledger keys a write to system by and the field names the loop
// check compares: the record and its fields, or for a linked write the link's. A write's
// own entry is keyed for its target; the reciprocal check reads the key of a write to its
// source, since that is where the return leg it looks for went.
//
// The record id is the one shared by both legs, so only the system it is keyed for may
// change it: a Mailchimp member goes under its subscriber hash (recordKey), so that a
// write by address and one by the hash a create answered are one member, as on trails. A
// write from Mailchimp to another system keeps that system's id as it is: hashing it too
// put the entry where Wrote, asked with the id the caller wrote, could not find it.
func (op *writeOp) loopSubject(system connector.System) (entity, record string, names []string) {
	if l := op.req.Link; l != nil && l.Key != "" {
		return linkEntity, l.Key, sortedKeys(l.Fields)
	}
	return op.req.Entity, recordKey(system, op.req.RecordID), op.names
}

// scan runs the DLP scan with the connector-write policy and fails closed.
func (op *writeOp) scan(canonical []byte) error {
	res, err := op.g.scanner.ScanJSON(dlp.ConnectorWrite, canonical)
	if err != nil {
		op.auditWrite(audit.ResultDenied, "dlp_blocked", map[string]any{"dlpError": true})
		return fmt.Errorf("%w: the scan failed: %w", ErrDLPBlocked, err)
	}
	if len(res.Findings) > 0 {
		op.findings = countFindings(res.Findings)
		result := audit.ResultSuccess
		if res.Blocked {
			result = audit.ResultDenied
		}
		// Kept for the write's batch: a scan with findings is the common flow write (a
		// phone number), and its record costs no call of its own then.
		op.auditLater(audit.TypeDLP, ActionDLPScan, result, map[string]any{
			"destination": string(dlp.ConnectorWrite), "findings": op.findings, "total": len(res.Findings),
			"blocked": res.Blocked,
		})
	}
	if res.Blocked {
		op.auditWrite(audit.ResultDenied, "dlp_blocked", nil)
		return fmt.Errorf("%w: %w", ErrDLPBlocked, res.Err())
	}
	return nil
}

// hold stores the write as a pending approval instead of writing it, and refuses it.
// The approval's id is a function of the target and the idempotency key, so a retry of the
// same write finds its approval: once an approver released it, the retry writes through
// (decided is true; the target replays the released write by its key), and once one
// denied it, the retry is refused for good. Either way only the write the approval holds:
// another one under the key is refused (sameWrite).
func (op *writeOp) hold(a *PendingApproval) (res Result, decided bool, err error) {
	err = op.g.records.PutApproval(op.ctx, *a)
	if errors.Is(err, ErrExists) {
		existing, gerr := op.g.records.GetApproval(op.ctx, op.tenant, a.ID)
		if gerr != nil {
			op.auditWrite(audit.ResultFailure, "check_unavailable", nil)
			return Result{}, false, fmt.Errorf("%w: reading the held approval: %w", ErrUnavailable, gerr)
		}
		a, err = &existing, nil
		if merr := op.sameWrite(a); merr != nil {
			return Result{}, false, merr
		}
		switch existing.Status {
		case StatusApproved:
			op.approval = a
			return Result{}, true, nil
		case StatusDenied:
			op.auditWrite(audit.ResultDenied, "approval_denied", map[string]any{"approvalId": a.ID})
			return Result{Held: a}, false, fmt.Errorf("%w: approval %s, denied by %s", ErrApprovalDenied, a.ID, a.DecidedBy)
		}
	} else if err != nil {
		op.auditWrite(audit.ResultFailure, "check_unavailable", nil)
		return Result{}, false, fmt.Errorf("%w: holding the write: %w", ErrUnavailable, err)
	} else {
		op.auditGovernance(ActionApprovalRequested, audit.ResultSuccess, map[string]any{
			"approvalId": a.ID, "declaredOwner": string(a.DeclaredOwner), "caller": string(a.Caller),
			"target": string(a.Target), "entity": a.Entity, "fields": a.Fields,
		})
	}
	op.auditWrite(audit.ResultDenied, "held", map[string]any{"approvalId": a.ID})
	return Result{Held: a}, false, fmt.Errorf("%w: approval %s", ErrPendingApproval, a.ID)
}

func (op *writeOp) writeThrough(fields map[string]any, hash string) (Result, error) {
	res := op.result()
	w, err := op.g.conns.Client(op.ctx, op.tenant, op.req.Target)
	if err != nil {
		if errors.Is(err, connector.ErrNotConfigured) {
			op.auditWrite(audit.ResultFailure, "not_configured", nil)
			return res, fmt.Errorf("%w: %s: %w", ErrNotConfigured, op.req.Target, err)
		}
		op.auditWrite(audit.ResultFailure, "connector_error", map[string]any{"connectorError": connectorErrorKind(err)})
		return res, fmt.Errorf("governance: connector %s: %w", op.req.Target, err)
	}
	out, err := w.Write(op.ctx, connector.WriteRequest{
		Entity: op.req.Entity, RecordID: op.req.RecordID, Fields: fields,
		IdempotencyKey: op.req.IdempotencyKey, Origin: string(op.req.Source), IfVersion: op.req.IfVersion,
		UpsertKey: op.req.UpsertKey, Create: op.req.Create,
	})
	if err != nil {
		op.auditWrite(audit.ResultFailure, "connector_error", map[string]any{"connectorError": connectorErrorKind(err)})
		return res, fmt.Errorf("governance: write %s: %w", op.resource, err)
	}
	res.Written = out
	recordErrs := op.record(fields, hash, out)
	if len(recordErrs) > 0 {
		return res, fmt.Errorf("%w: %w", ErrNotRecorded, errors.Join(recordErrs...))
	}
	return res, nil
}
