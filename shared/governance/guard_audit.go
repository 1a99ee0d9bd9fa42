package governance

import (
	"maps"
	"slices"
	"strings"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// The guard's audit records. Details carry names, counts and outcomes, never field values,
// and the audit log redacts them with DLP's record policy before storing them.

// auditWrite writes the connector.write record of this attempt: what was asked and what
// came of it, with field names and counts, never values. Its error matters only after a
// write (ErrNotRecorded); on a refusal the refusal stands and the failure is logged.
func (op *writeOp) auditWrite(result, outcome string, extra map[string]any) error {
	return op.auditAs(audit.TypeConnector, ActionConnectorWrite, result, op.writeDetails(outcome, extra))
}

// writeDetails are the details of the connector.write record.
func (op *writeOp) writeDetails(outcome string, extra map[string]any) map[string]any {
	names := op.names
	if names == nil {
		names = sortedKeys(op.req.Fields)
	}
	// Sized for every key below, so the map is built without growing.
	d := make(map[string]any, 12+len(extra))
	d["target"], d["source"], d["entity"] = string(op.req.Target), string(op.req.Source), op.req.Entity
	d["fields"], d["fieldCount"], d["outcome"] = names, len(names), outcome
	d["idempotencyKey"] = op.req.IdempotencyKey
	if op.req.Reason != "" {
		d["reason"] = op.req.Reason
	}
	if len(op.dropped) > 0 {
		d["dropped"] = op.dropped
		d["droppedCount"] = len(op.dropped)
	}
	if len(op.looped) > 0 {
		d["looped"] = op.looped
	}
	if len(op.findings) > 0 {
		d["dlpFindings"] = op.findings
	}
	if op.approval != nil {
		d["approvalId"] = op.approval.ID
	}
	maps.Copy(d, extra)
	return d
}

func (op *writeOp) auditGovernance(key, result string, details map[string]any) {
	_ = op.auditAs(audit.TypeGovernance, key, result, details)
}

// auditLater makes the record now and keeps it to be stored with the write's ledger
// entries in one call (op.batchAudit), or at the end of the write when nothing is written
// (flushAudit); without a batching store it is written at once.
func (op *writeOp) auditLater(typ, key, result string, details map[string]any) {
	if !op.batchAudit {
		_ = op.auditAs(typ, key, result, details)
		return
	}
	r, err := op.g.audit.Prepare(op.ctx, op.entry(typ, key, result, details))
	if err != nil {
		httpapi.Logger(op.ctx).Error("audit record not written", "actionKey", key, "resource", op.resource, "error", err)
		return
	}
	op.held = append(op.held, r)
}

// flushAudit stores the records auditLater kept that no batch took, one by one.
func (op *writeOp) flushAudit() {
	for _, r := range op.held {
		if err := op.g.audit.Store.Put(op.ctx, r); err != nil {
			httpapi.Logger(op.ctx).Error("audit record not written", "actionKey", r.ActionKey, "resource", op.resource, "error", err)
		}
	}
	op.held = nil
}

func (op *writeOp) entry(typ, key, result string, details map[string]any) audit.Entry {
	return audit.Entry{Actor: op.id, ActionType: typ, ActionKey: key, Result: result, Resource: op.resource, Details: details}
}

func (op *writeOp) auditAs(typ, key, result string, details map[string]any) error {
	err := op.g.audit.Write(op.ctx, op.entry(typ, key, result, details))
	if err != nil {
		httpapi.Logger(op.ctx).Error("audit record not written", "actionKey", key, "resource", op.resource, "error", err)
	}
	return err
}

// findingCount is the audit form of the findings of one type. The audit records carry a
// list of them rather than a map of counts, because the audit redactor would take a map
// keyed "aws_secret_access_key" or "private_key" for secret-named fields and redact the
// counts. The fields are in the order encoding/json writes a map's keys, so a record reads
// {"count":1,"type":"email"} as it did when the list held maps; a struct encodes without
// the reflection and sorting of a map.
type findingCount struct {
	Count int    `json:"count"`
	Type  string `json:"type"`
}

// countFindings counts findings per type, sorted by type.
func countFindings(findings []dlp.Finding) []findingCount {
	var out []findingCount
	for _, f := range findings {
		i, found := slices.BinarySearchFunc(out, f.Type, func(c findingCount, typ string) int { return strings.Compare(c.Type, typ) })
		if found {
			out[i].Count++
		} else {
			out = slices.Insert(out, i, findingCount{Count: 1, Type: f.Type})
		}
	}
	return out
}

// connectorErrorKind names a connector failure for the audit record without its text.
func connectorErrorKind(err error) string {
	if kind := connector.ErrorKind(err); kind != "" {
		return kind
	}
	return "other"
}
