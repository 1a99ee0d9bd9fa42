package wire

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// A flow row's retry is the flow run again (flow.Executor.Rerun): a fresh read of the
// source record through its connector, the flow's mapping, the guard; the approved fix,
// if any, in place of its fields. What the failed run meant to write (the row's masked
// payload) is never sent.

// flowRerunner re-runs one flow for one source record.
type flowRerunner interface {
	Rerun(ctx context.Context, tenantID string, q flow.RerunRequest) (flow.RerunResult, error)
}

// flowRuns re-runs flows with an executor over the flows table, reading sources through
// the tenants' connectors.
type flowRuns struct {
	x    *flow.Executor
	read flow.Reader
}

func (f flowRuns) Rerun(ctx context.Context, tenantID string, q flow.RerunRequest) (flow.RerunResult, error) {
	return f.x.Rerun(ctx, f.read, tenantID, q)
}

// connectorReads reads and finds records through the tenants' connectors: reads, which
// need no guard (flow.Reader and flow.Finder).
type connectorReads struct{ hosts hostClients }

func (r connectorReads) Get(ctx context.Context, tenantID string, system connector.System, entity, id string) (connector.Record, error) {
	c, err := r.hosts.Client(ctx, tenantID, system)
	if err != nil {
		return connector.Record{}, err
	}
	return c.Get(ctx, entity, id)
}

func (r connectorReads) Find(ctx context.Context, tenantID string, system connector.System, entity, field, value string) ([]string, error) {
	c, err := r.hosts.Client(ctx, tenantID, system)
	if err != nil {
		return nil, err
	}
	return c.Find(ctx, entity, field, value)
}

// flowOf is the failed run a flow row names (flow/wire's Reporter writes the context).
func flowOf(c syncerror.Claim) (flowID, sourceRecordID string) {
	var fc struct {
		Flow struct {
			ID             string `json:"id"`
			SourceRecordID string `json:"sourceRecordId"`
		} `json:"flow"`
	}
	_ = json.Unmarshal(c.Record.Context, &fc)
	return fc.Flow.ID, fc.Flow.SourceRecordID
}

// rerunFlow re-runs the flow run a flow row failed in.
func (d deliverer) rerunFlow(ctx context.Context, c syncerror.Claim, key string) syncerror.Delivery {
	target, _ := writeBack(c)
	sys := string(target)
	id, rec := flowOf(c)
	switch {
	case id == "" || rec == "":
		return configuration(sys, "RETRY_NO_FLOW", "the error names no flow run to re-run (its context has no flow or source record); nothing was written")
	case d.flows == nil:
		return configuration(sys, "RETRY_NO_FLOW", "no flow executor is wired to re-run flow "+id+"; nothing was written")
	}
	res, err := d.flows.Rerun(ctx, c.TenantID, flow.RerunRequest{FlowID: id, RecordID: rec, Attempt: key, SyncErrorID: c.ID,
		Fix: syncerror.ApprovedFix(c)})
	switch {
	case errors.Is(err, flow.ErrSourceRead):
		out := hostFailure(err, "the source record "+rec+" of flow "+id+" could not be read")
		out.System = sys
		if errors.Is(err, connector.ErrNotFound) {
			out.Reason += "; it no longer exists there, so there is nothing to sync: resolve the row"
		}
		return out
	case errors.Is(err, flow.ErrFlowDisabled):
		return configuration(sys, "RETRY_FLOW_DISABLED", "flow "+id+" is disabled; enable it under Settings › Flows and retry. Nothing was written")
	case errors.Is(err, flow.ErrNotFound):
		return configuration(sys, "RETRY_NO_FLOW", "flow "+id+" no longer exists; nothing was written. Resolve the row, or create the flow again and retry")
	case err != nil:
		return syncerror.Delivery{Result: syncerror.DeliveryTransient, System: sys, Class: syncerror.AttemptConnection,
			Reason: "flow " + id + " could not be re-run now (" + connector.ErrorKind(err) + "); the schedule tries again"}
	}
	return flowDelivery(sys, id, res)
}

// flowDelivery judges a re-run's outcome as the retry's.
func flowDelivery(sys, flowID string, res flow.RerunResult) syncerror.Delivery {
	out := syncerror.Delivery{System: sys, Code: res.Code, RetryAfter: res.RetryAfter,
		Reason: "re-ran flow " + flowID + " (run " + res.Run.ID + "): " + res.Decision}
	switch res.Outcome {
	case flow.OutcomeWritten:
		out.Result = syncerror.Delivered
		return out
	case flow.OutcomeRetrying:
		out.Result, out.Class = syncerror.DeliveryTransient, attemptClass(res.Err)
		return out
	case flow.OutcomeSkipped:
		out.Code, out.Class = "RETRY_SKIPPED", syncerror.AttemptConfiguration
		out.Reason += "; the flow writes nothing for the record as it is now: resolve the row if nothing is left to sync"
	case flow.OutcomeHeld:
		out.Code, out.Class = "RETRY_HELD", syncerror.AttemptGovernance
		out.Reason += " (approval " + res.Run.ApprovalID + "); an approver releases the write under Governance"
	case flow.OutcomeRejected, flow.OutcomeLoopBroken:
		out.Code, out.Class = "RETRY_REFUSED", syncerror.AttemptGovernance
	default:
		out.Class = syncerror.AttemptValue
		if res.Err != nil {
			out.Class = attemptClass(res.Err)
		}
		if out.Code == "" {
			out.Code = "RETRY_FAILED"
		}
	}
	out.Result = syncerror.DeliveryPermanent
	return out
}
