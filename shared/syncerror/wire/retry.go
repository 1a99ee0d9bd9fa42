package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/delivery"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// The retry's Deliverer. A row's delivery is written exactly as a flow run writes: one
// guarded write judged by package delivery, the flow executor's own rules, to the system
// that refused it. Where the tenant has no connector for that system, the host ERP is asked to
// re-run the sync itself: the service marks the sync-error custom record (the fields
// below; netsuite/ holds the scheduled script that picks them up) and reads the script's
// answer from the same record at the next attempt.

// Fields of the host ERP's sync-error record (netsuite/src/Objects/customrecord_sea_sync_error.xml).
const (
	HostRetryRequested   = "custrecord_sea_retry_requested"
	HostRetryRequestedAt = "custrecord_sea_retry_requested_at"
	HostRetryStatus      = "custrecord_sea_retry_status"
	HostRetryResult      = "custrecord_sea_retry_result"
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
}

// route is where a row's delivery goes and in whose name: a flow's failed write to the
// flow's target; an outbound error to the external system; an inbound one to the host ERP.
// ok is false when the external system is not one the service connects to.
func route(c syncerror.Claim) (target, source connector.System, ok bool) {
	if c.Source == syncerror.SourceFlow {
		target, source = writeBack(c)
		return target, source, true
	}
	ext := connector.System(c.Record.ExternalSystem)
	if c.Record.Direction == "outbound" {
		return ext, connector.SystemHostERP, ext.Known()
	}
	if !ext.Known() {
		ext = connector.SystemHostERP
	}
	return connector.SystemHostERP, ext, true
}

func (d deliverer) Target(c syncerror.Claim) string {
	target, _, ok := route(c)
	if !ok {
		return c.Record.ExternalSystem
	}
	return string(target)
}

func (d deliverer) Redeliver(ctx context.Context, actor string, c syncerror.Claim, fields map[string]any, key string) syncerror.Delivery {
	target, source, ok := route(c)
	if !ok {
		return d.viaHost(ctx, actor, c, key)
	}
	res := delivery.Deliver(ctx, d.guard, delivery.Delivery{TenantID: c.TenantID, Actor: actor, Target: target, Source: source,
		Entity: c.Record.RecordType, RecordID: c.Record.RecordID, Fields: fields, IdempotencyKey: key, Reason: "syncerror.retry"})
	out := syncerror.Delivery{System: string(target), Reason: res.Decision, Code: res.Code, RetryAfter: res.RetryAfter}
	switch {
	case errors.Is(res.Err, governance.ErrNotConfigured) && target != connector.SystemHostERP:
		return d.viaHost(ctx, actor, c, key)
	case res.Outcome == delivery.Written:
		out.Result = syncerror.Delivered
	case res.Outcome == delivery.Retrying:
		out.Result = syncerror.DeliveryTransient
	case res.Outcome == delivery.Skipped:
		out.Result, out.Reason = syncerror.DeliveryPermanent, "nothing was written: "+res.Decision
	default:
		// Refused by the target or by governance: sending it again unchanged cannot help.
		out.Result = syncerror.DeliveryPermanent
	}
	if out.Code == "" && out.Result == syncerror.DeliveryPermanent {
		out.Code = "RETRY_" + map[delivery.Outcome]string{delivery.Rejected: "REJECTED", delivery.Held: "HELD",
			delivery.LoopBroken: "LOOP", delivery.Skipped: "SKIPPED"}[res.Outcome]
		if out.Code == "RETRY_" {
			out.Code = "RETRY_REFUSED"
		}
	}
	return out
}

// hostRecord is the host ERP's own sync-error record the error came from.
func hostRecord(c syncerror.Claim) (entity, id string) {
	var ctx struct {
		HostRecord struct{ Type, ID string } `json:"hostRecord"`
	}
	_ = json.Unmarshal(c.Record.Context, &ctx)
	return ctx.HostRecord.Type, ctx.HostRecord.ID
}

// viaHost asks the host ERP to re-run the sync, or reads how the run it asked for went.
func (d deliverer) viaHost(ctx context.Context, actor string, c syncerror.Claim, key string) syncerror.Delivery {
	out := syncerror.Delivery{System: string(connector.SystemHostERP)}
	entity, id := hostRecord(c)
	if entity == "" || id == "" {
		out.Result, out.Code = syncerror.DeliveryPermanent, "RETRY_NO_ROUTE"
		out.Reason = fmt.Sprintf("the tenant has no connector for %q and the error names no host ERP record to re-run it from", c.Record.ExternalSystem)
		return out
	}
	client, err := d.hosts.Client(ctx, c.TenantID, connector.SystemHostERP)
	if err != nil {
		out.Result, out.Code = syncerror.DeliveryPermanent, "RETRY_NO_ROUTE"
		out.Reason = "the tenant has no connector for " + c.Record.ExternalSystem + " nor for the host ERP: " + connector.ErrorKind(err)
		return out
	}
	rec, err := client.Get(ctx, entity, id)
	if err != nil {
		return hostFailure(out, err)
	}
	if asked, _ := rec.Fields[HostRetryRequested].(bool); asked {
		out.Result, out.Reason = syncerror.DeliveryRequested, "the host ERP has not re-run the sync yet"
		return out
	}
	switch st, _ := rec.Fields[HostRetryStatus].(string); st {
	case hostRetrySucceeded:
		out.Result, out.Reason = syncerror.Delivered, "the host ERP re-ran the sync"
		return out
	case hostRetryFailed:
		res, _ := rec.Fields[HostRetryResult].(string)
		out.Result, out.Code, out.Reason = syncerror.DeliveryPermanent, "RETRY_FAILED_AT_HOST", "the host ERP re-ran the sync and it failed: "+res
		// The answer is read; the next retry of the row asks again.
		if err := d.hostWrite(ctx, actor, c, entity, id, key+"-read", map[string]any{HostRetryStatus: ""}); err != nil {
			out.Reason += " (its answer could not be cleared: " + connector.ErrorKind(err) + ")"
		}
		return out
	}
	if err := d.hostWrite(ctx, actor, c, entity, id, key, map[string]any{HostRetryRequested: true,
		HostRetryRequestedAt: time.Now().UTC().Format(time.RFC3339), HostRetryStatus: hostRetryPending}); err != nil {
		return hostFailure(out, err)
	}
	out.Result, out.Reason = syncerror.DeliveryRequested, "asked the host ERP to re-run the sync (no connector for "+c.Record.ExternalSystem+")"
	return out
}

// hostWrite marks the host ERP's sync-error record through the guard, in the host ERP's
// own name: the record is the host's, and the guard's ledger and audit see the request.
func (d deliverer) hostWrite(ctx context.Context, actor string, c syncerror.Claim, entity, id, key string, fields map[string]any) error {
	_, err := d.guard.Write(ctx, identity.ForTenant(c.TenantID, actor), governance.WriteRequest{Target: connector.SystemHostERP,
		Source: connector.SystemHostERP, Entity: entity, RecordID: id, Fields: fields, IdempotencyKey: key,
		Reason: "syncerror.retry_request"})
	if errors.Is(err, governance.ErrNotRecorded) {
		return nil // written; only its ledger or audit record is missing
	}
	return err
}

func hostFailure(out syncerror.Delivery, err error) syncerror.Delivery {
	var ce *connector.Error
	if errors.As(err, &ce) {
		out.Code, out.RetryAfter = ce.Code, ce.RetryAfter
	}
	out.Result, out.Reason = syncerror.DeliveryTransient, "the host ERP could not be asked: "+connector.ErrorKind(err)
	if ce != nil && !ce.Retryable {
		out.Result = syncerror.DeliveryPermanent
	}
	return out
}
