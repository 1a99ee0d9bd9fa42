package governance

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// What a write that went through leaves behind: its ledger entry, the trail entries of its
// values, and its audit records (the connector.write record, and the dlp.scan record of a
// scan with findings). When the ledger and the audit log are both DynamoDB stores they
// are one BatchWriteItem over the two tables (issue 37 §3: a flow event's calls); each
// record is still one item of the audit table, read as any other. Otherwise the ledger
// entries and the audit record are written side by side.

// batchesAudit reports whether a write's audit records can ride in its ledger batch.
func (g *Guard) batchesAudit() bool {
	_, ledger := g.ledger.(BatchLedger)
	_, log := g.audit.Store.(audit.Batched)
	return ledger && log
}

// record stores the ledger, trail and audit records of a write that went through to out.
// It returns what could not be stored, each logged.
func (op *writeOp) record(fields map[string]any, hash string, out connector.WriteResult) []error {
	entity, record, names := op.loopSubject(op.req.Target)
	if op.req.Link == nil && (op.req.Create || op.req.UpsertKey != "") {
		// The record's own entries are keyed by its id, which a create learns only now.
		record = recordKey(op.req.Target, op.writtenID(out))
	}
	entry := LedgerEntry{
		ID: op.g.newID(), Time: op.now, Tenant: op.tenant, Source: op.req.Source, Target: op.req.Target,
		Entity: entity, RecordID: record, Fields: names, PayloadHash: hash,
		IdempotencyKey: op.req.IdempotencyKey, CorrelationID: op.corr,
	}
	// A write that left fields out under source_wins is partial, and its record says so.
	outcome := "written"
	if len(op.dropped) > 0 {
		outcome = "partial"
	}
	details := op.writeDetails(outcome, map[string]any{"replayed": out.Replayed})
	if op.settled {
		details["settledByApprover"] = true
	}
	if op.batchAudit {
		return op.recordBatch(entry, fields, out, details)
	}
	// Independent writes: made side by side, the caller waits one round trip for both.
	// Neither touches op; each only reads it.
	ledgerDone := make(chan []error, 1)
	go func() { ledgerDone <- op.appendLedger(entry, fields, out, nil) }()
	auditErr := op.auditAs(audit.TypeConnector, ActionConnectorWrite, audit.ResultSuccess, details)
	errs := <-ledgerDone
	if auditErr != nil {
		errs = append(errs, fmt.Errorf("audit: %w", auditErr))
	}
	return errs
}

// recordBatch stores the ledger and trail entries with the audit records held so far and
// the connector.write record in one BatchWriteItem. A failed batch loses them together,
// and the write is not recorded (ErrNotRecorded): its retry replays it and records it.
func (op *writeOp) recordBatch(entry LedgerEntry, fields map[string]any, out connector.WriteResult, details map[string]any) []error {
	var errs []error
	r, err := op.g.audit.Prepare(op.ctx, op.entry(audit.TypeConnector, ActionConnectorWrite, audit.ResultSuccess, details))
	if err != nil {
		errs = append(errs, fmt.Errorf("audit: %w", err))
	} else {
		op.held = append(op.held, r)
	}
	batched := op.g.audit.Store.(audit.Batched)
	others := map[string][]types.WriteRequest{}
	for _, r := range op.held {
		table, req, err := batched.WriteRequest(r)
		if err != nil {
			errs = append(errs, fmt.Errorf("audit %s: %w", r.ActionKey, err))
			continue
		}
		others[table] = append(others[table], req)
	}
	op.held = nil
	if lerrs := op.appendLedger(entry, fields, out, others); len(lerrs) > 0 {
		if len(others) > 0 {
			httpapi.Logger(op.ctx).Error("audit records of a write not stored with its ledger entries", "resource", op.resource)
			lerrs = append(lerrs, errors.New("audit: the records went with the ledger batch"))
		}
		errs = append(errs, lerrs...)
	}
	return errs
}
