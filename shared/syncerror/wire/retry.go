package wire

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/delivery"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// The retry's Deliverer: the integration that failed runs again, from its source of
// truth, and the service never sends a stored payload (masked at rest; its only source is
// the webhook body).
//
//   - An error the host ERP reported (the webhook, the reconcile's poll): the host ERP
//     re-runs the record's sync. The service writes the approved fix, if the row has one,
//     to the fields of the record that lost it first (and stops where the record changed
//     since the approve: retryfix.go), then marks the host's sync-error record (the fields below;
//     netsuite/ holds the scheduled script that picks them up) and reads the script's
//     answer from the same record at the next attempt. Every write is the host ERP's own,
//     judged as the host ERP's: the ingest secret authenticates the host ERP only, and
//     the body's direction and externalSystem describe the failed sync, never who writes.
//   - A flow run of the service's own: the flow runs again (flow.Executor.Rerun), from a
//     fresh read of its source record, through its mapping and the guard.

// HostSyncErrorRecord is the host ERP's sync-error record type, the only record the retry
// marks: the body's context names which one (hostRecord), never which type of record.
const HostSyncErrorRecord = "customrecord_sea_sync_error"

// Fields of the host ERP's sync-error record (netsuite/src/Objects/customrecord_sea_sync_error.xml).
const (
	HostRetryRequested   = "custrecord_sea_retry_requested"
	HostRetryRequestedAt = "custrecord_sea_retry_requested_at"
	HostRetryStatus      = "custrecord_sea_retry_status"
	HostRetryResult      = "custrecord_sea_retry_result"
	// HostRetryFix carries the approved fix to the script as JSON {path: value} ("" for
	// none): the script re-applies the host's own stored payload of an inbound error, and
	// applies the fix after it, so the payload cannot undo the fix written just before.
	HostRetryFix = "custrecord_sea_retry_fix"
)

// Host retry statuses the scheduled script writes.
const (
	hostRetryPending   = "requested"
	hostRetrySucceeded = "succeeded"
	hostRetryFailed    = "failed"
)

// hostClients opens a tenant's connector to a system.
type hostClients interface {
	Client(ctx context.Context, tenantID string, s connector.System) (*connector.Client, error)
}

type deliverer struct {
	guard delivery.Guard
	hosts hostClients
	// flows re-runs a failed flow run; nil where the flows feature is not wired (the
	// operator's routes): the flow redrive runs the row's retry then.
	flows FlowRerunner
	// ledger is the guard's write ledger, where a retry finds a revert the row does not
	// record (revertfound.go); without it a lost fix is not written again.
	ledger governance.Ledger
	// audits is the audit log, asked for the revert's own record where the ledger has
	// none, on rows approved before revert marks (revertfound.go); without it a lost fix
	// of such a row the ledger does not explain is not written.
	audits auditTrail
}

func (d deliverer) Target(c syncerror.Claim) string {
	if c.Source == syncerror.SourceFlow {
		target, _ := writeBack(c)
		return string(target)
	}
	return string(connector.SystemHostERP)
}

func (d deliverer) Rerun(ctx context.Context, actor string, c syncerror.Claim, key string) syncerror.Delivery {
	if c.Source == syncerror.SourceFlow {
		return d.rerunFlow(ctx, c, key)
	}
	return d.viaHost(ctx, actor, c, key)
}

// hostRecord is the host ERP's own sync-error record the error came from ("" when the
// body names none, or names a record of another type: a body never chooses which record
// the marker's fields are written to).
func hostRecord(c syncerror.Claim) (entity, id string) {
	var ctx struct {
		HostRecord struct{ Type, ID string } `json:"hostRecord"`
	}
	_ = json.Unmarshal(c.Record.Context, &ctx)
	if ctx.HostRecord.Type != HostSyncErrorRecord {
		return "", ""
	}
	return HostSyncErrorRecord, ctx.HostRecord.ID
}

// configuration is an attempt that cannot run as the tenant is set up: nothing was
// written, and reason says who must do what.
func configuration(system, code, reason string) syncerror.Delivery {
	return syncerror.Delivery{Result: syncerror.DeliveryPermanent, System: system, Code: code,
		Class: syncerror.AttemptConfiguration, Reason: reason}
}

// viaHost asks the host ERP to re-run the sync, or reads how the run it asked for went.
func (d deliverer) viaHost(ctx context.Context, actor string, c syncerror.Claim, key string) syncerror.Delivery {
	host := string(connector.SystemHostERP)
	entity, id := hostRecord(c)
	if entity == "" || id == "" {
		return configuration(host, "RETRY_NO_HOST_RECORD", "the error names no host ERP sync-error record to re-run the sync from "+
			"(its context has no hostRecord of type "+HostSyncErrorRecord+"); nothing was written. Re-run the integration in the host ERP and resolve the row, "+
			"or deploy the host ERP's sync-error script, which names the record")
	}
	if d.hosts == nil {
		return configuration(host, "RETRY_NO_CONNECTOR", "the service has no host ERP connector to ask for the re-run; nothing was written")
	}
	client, err := d.hosts.Client(ctx, c.TenantID, connector.SystemHostERP)
	if err != nil {
		return configuration(host, "RETRY_NO_CONNECTOR", "the tenant's host ERP connector cannot be used ("+connector.ErrorKind(err)+
			"); an admin must set it up under Settings, then retry. Nothing was written")
	}
	rec, err := client.Get(ctx, entity, id)
	if err != nil {
		return hostFailure(err, "the host ERP's sync-error record could not be read")
	}
	if asked, _ := rec.Fields[HostRetryRequested].(bool); asked {
		return syncerror.Delivery{Result: syncerror.DeliveryRequested, System: host, Reason: "the host ERP has not re-run the sync yet"}
	}
	switch st, _ := rec.Fields[HostRetryStatus].(string); st {
	case hostRetrySucceeded:
		return syncerror.Delivery{Result: syncerror.Delivered, System: host, Reason: "the host ERP re-ran the sync"}
	case hostRetryFailed:
		res, _ := rec.Fields[HostRetryResult].(string)
		out := syncerror.Delivery{Result: syncerror.DeliveryPermanent, System: host, Code: "RETRY_FAILED_AT_HOST", Class: syncerror.AttemptValue,
			Reason: "the host ERP re-ran the sync and it failed: " + res + "; correct the record (approve a fix) and retry"}
		// The answer is read; the next retry of the row asks again.
		if err := d.hostWrite(ctx, actor, c, entity, id, key+"-read", map[string]any{HostRetryStatus: ""}); err != nil {
			out.Reason += " (its answer could not be cleared: " + connector.ErrorKind(err) + ")"
		}
		return out
	}
	fixJSON := ""
	if fix := syncerror.ApprovedFix(c); fix != nil {
		// Written again where the record lost it (retryfix.go), so the re-run runs on the
		// corrected record; a record changed since the approve ends the attempt.
		if out, stop := d.rewriteFix(ctx, actor, client, c); stop {
			return out
		}
		// The request carries the whole fix, not only the fields just written: the script
		// applies the host's stored payload first, which may hold the bad value of any of
		// them, and every field of the fix was just seen holding it (or written with it).
		b, _ := json.Marshal(fix)
		fixJSON = string(b)
	}
	if err := d.hostWrite(ctx, actor, c, entity, id, key, map[string]any{HostRetryRequested: true,
		HostRetryRequestedAt: time.Now().UTC().Format(time.RFC3339), HostRetryStatus: hostRetryPending, HostRetryFix: fixJSON}); err != nil {
		if errors.Is(err, governance.ErrPendingApproval) {
			return heldRequest(host, err)
		}
		return refusal(host, err, "the host ERP could not be asked to re-run the sync")
	}
	return syncerror.Delivery{Result: syncerror.DeliveryRequested, System: host,
		Reason: "asked the host ERP to re-run the sync of " + c.Record.RecordType + " " + c.Record.RecordID}
}

// hostWrite writes to a host ERP record through the guard, in the host ERP's own name: a
// host-reported error's every write is the host's, judged by its ownership, and the
// guard's ledger and audit see it.
func (d deliverer) hostWrite(ctx context.Context, actor string, c syncerror.Claim, entity, id, key string, fields map[string]any) error {
	return d.hostWriteIf(ctx, actor, c, entity, id, key, "", fields)
}

// hostWriteIf is hostWrite on the record still having version ("": any).
//
// A write held for an ownership approval is released by retry (ReleaseByRetry): the
// release only approves it, and the next attempt of the row that finds the same write to
// make sends it under the same key (the approved fix written again: retryfix.go keys it
// by what it writes). The row decides whether the retry still runs: it may be reverted
// or resolved meanwhile, and a release that wrote at once would write the fix again, or
// ask the host ERP to re-run a sync nobody wants, behind its back. The marker write is
// keyed per attempt and carries its time, so a hold of it (only under a tenant override
// giving the host's own sync-error record to another system) is held anew by each attempt:
// such an override blocks retries; it never lets one through unasked.
func (d deliverer) hostWriteIf(ctx context.Context, actor string, c syncerror.Claim, entity, id, key, version string, fields map[string]any) error {
	_, err := d.guard.Write(ctx, identity.ForTenant(c.TenantID, actor), governance.WriteRequest{Target: connector.SystemHostERP,
		Source: connector.SystemHostERP, Entity: entity, RecordID: id, Fields: fields, IdempotencyKey: key,
		// governance's ApproveHandler knows this reason (a hold stored before
		// ReleaseByRetry was set here). Do not rename it.
		Reason: "syncerror.retry_request", IfVersion: version, ReleaseByRetry: true})
	if errors.Is(err, governance.ErrNotRecorded) {
		return nil // written; only its ledger or audit record is missing
	}
	return err
}

// heldRequest is an attempt whose request to the host ERP to re-run the sync was held for
// an ownership approval. Unlike the fix written again (refusal), that request is keyed per
// attempt and carries its time, so no later retry makes the write the approval holds:
// approving it lets nothing through, and each retry is held anew while the tenant's
// manifest gives the host's own sync-error record to another system.
func heldRequest(system string, err error) syncerror.Delivery {
	return syncerror.Delivery{Result: syncerror.DeliveryPermanent, System: system, Code: "RETRY_REFUSED",
		Class: syncerror.AttemptGovernance, Reason: "the host ERP could not be asked to re-run the sync: the guard held the request " +
			"for an ownership approval (" + err.Error() + "); nothing was written. Approving it does not let a retry through: each " +
			"retry asks anew and is held the same way while the ownership manifest gives the host ERP's sync-error record (" +
			HostSyncErrorRecord + ") to another system. Deny the held request under /api/governance/approvals and ask an admin to " +
			"take that record out of the manifest's overrides; then retry"}
}

// refusal is an attempt that one of its writes ended: the guard's refusal, or the
// system's answer.
func refusal(system string, err error, what string) syncerror.Delivery {
	if errors.Is(err, governance.ErrPendingApproval) {
		// The release only approves the write (hostWriteIf), and the next attempt that
		// finds the same fields lost makes the same write under the same key (rewriteFix):
		// the person must retry after it.
		return syncerror.Delivery{Result: syncerror.DeliveryPermanent, System: system, Code: "RETRY_REFUSED",
			Class: syncerror.AttemptGovernance, Reason: what + ": the guard held it for an ownership approval (" + err.Error() +
				"); nothing was written. Approve it under /api/governance/approvals, then retry: the retry writes it"}
	}
	if isGovernance(err) {
		return syncerror.Delivery{Result: syncerror.DeliveryPermanent, System: system, Code: "RETRY_REFUSED",
			Class: syncerror.AttemptGovernance, Reason: what + ": the guard refused it (" + err.Error() + "); nothing was written"}
	}
	return hostFailure(err, what)
}

func isGovernance(err error) bool {
	for _, e := range []error{governance.ErrOwnershipRejected, governance.ErrApprovalDenied, governance.ErrPendingApproval,
		governance.ErrLoopDetected, governance.ErrDLPBlocked, governance.ErrInvalidRequest} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// hostFailure is an attempt the host ERP answered with an error.
func hostFailure(err error, what string) syncerror.Delivery {
	out := syncerror.Delivery{Result: syncerror.DeliveryTransient, System: string(connector.SystemHostERP),
		Class: attemptClass(err), Reason: what + ": " + connector.ErrorKind(err)}
	var ce *connector.Error
	if errors.As(err, &ce) {
		out.Code, out.RetryAfter = ce.Code, ce.RetryAfter
		if !ce.Retryable {
			out.Result = syncerror.DeliveryPermanent
		}
	} else if delivery.Permanent(err) {
		out.Result = syncerror.DeliveryPermanent
	}
	return out
}

// attemptClass judges a connector's failure as an attempt's class.
func attemptClass(err error) string {
	for _, c := range []struct {
		err   error
		class string
	}{
		{connector.ErrRateLimited, syncerror.AttemptRateLimit},
		{connector.ErrUnauthorized, syncerror.AttemptPermission},
		{connector.ErrValidation, syncerror.AttemptValue},
		{connector.ErrConflict, syncerror.AttemptValue},
		{connector.ErrNotFound, syncerror.AttemptNotFound},
		{connector.ErrInvalidConfig, syncerror.AttemptConfiguration},
		{connector.ErrUnsupported, syncerror.AttemptConfiguration},
		{governance.ErrNotConfigured, syncerror.AttemptConfiguration},
	} {
		if errors.Is(err, c.err) {
			return c.class
		}
	}
	if isGovernance(err) {
		return syncerror.AttemptGovernance
	}
	return syncerror.AttemptConnection
}

// Compile-time check: the retry's deliverer is the queue's.
var _ syncerror.Deliverer = deliverer{}
