package wire

import (
	"context"
	"errors"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/syncerror"
	syncerrorwire "github.com/syncassist/syncassist/shared/syncerror/wire"
)

// FlowReruns re-runs a failed flow run for the sync-error retry (flow.Executor.Rerun): a
// fresh read of the source record, the mapping, the guard, the approved fix in place of
// its fields; its outcome judged as the retry attempt's.
type FlowReruns struct {
	X    *flow.Executor
	Read flow.Reader
}

// Rerun implements syncerrorwire.FlowRerunner.
func (f FlowReruns) Rerun(ctx context.Context, c syncerror.Claim, flowID, rec, key string) syncerror.Delivery {
	target := connector.System(c.Record.ExternalSystem)
	if fl, err := f.X.Store.Flow(ctx, c.TenantID, flowID); err == nil {
		target = fl.Target.System
	}
	sys := string(target)
	res, err := f.X.Rerun(ctx, f.Read, c.TenantID, flow.RerunRequest{FlowID: flowID, RecordID: rec, Attempt: key, SyncErrorID: c.ID,
		Fix: syncerror.ApprovedFix(c)})
	switch {
	case errors.Is(err, flow.ErrSourceRead):
		out := syncerrorwire.FailedAttempt(sys, err, "the source record "+rec+" of flow "+flowID+" could not be read")
		if errors.Is(err, connector.ErrNotFound) {
			out.Reason += "; it no longer exists there, so there is nothing to sync: resolve the row"
		}
		return out
	case errors.Is(err, flow.ErrFlowDisabled):
		return syncerrorwire.ConfigurationAttempt(sys, "RETRY_FLOW_DISABLED", "flow "+flowID+" is disabled; enable it under Settings › Flows and retry. Nothing was written")
	case errors.Is(err, flow.ErrNotFound):
		return syncerrorwire.ConfigurationAttempt(sys, "RETRY_NO_FLOW", "flow "+flowID+" no longer exists; nothing was written. Resolve the row, or create the flow again and retry")
	case err != nil:
		return syncerror.Delivery{Result: syncerror.DeliveryTransient, System: sys, Class: syncerror.AttemptConnection,
			Reason: "flow " + flowID + " could not be re-run now (" + connector.ErrorKind(err) + "); the schedule tries again"}
	}
	return rerunDelivery(sys, flowID, res)
}

// rerunDelivery judges a re-run's outcome as the retry's.
func rerunDelivery(sys, flowID string, res flow.RerunResult) syncerror.Delivery {
	out := syncerror.Delivery{System: sys, Code: res.Code, RetryAfter: res.RetryAfter,
		Reason: "re-ran flow " + flowID + " (run " + res.Run.ID + "): " + res.Decision}
	switch res.Outcome {
	case flow.OutcomeWritten:
		out.Result = syncerror.Delivered
		return out
	case flow.OutcomeRetrying:
		out.Result, out.Class = syncerror.DeliveryTransient, syncerrorwire.AttemptClass(res.Err)
		return out
	case flow.OutcomeSkipped:
		out.Code, out.Class = "RETRY_SKIPPED", syncerror.AttemptConfiguration
		out.Reason += "; the flow writes nothing for the record as it is now: resolve the row if nothing is left to sync"
	case flow.OutcomeHeld:
		out.Code, out.Class = "RETRY_HELD", syncerror.AttemptGovernance
		out.Reason += " (approval " + res.Run.ApprovalID + "); once an approver approves it under Governance, the re-run writes it"
	case flow.OutcomeRejected, flow.OutcomeLoopBroken:
		out.Code, out.Class = "RETRY_REFUSED", syncerror.AttemptGovernance
	default:
		out.Class = syncerror.AttemptValue
		if res.Err != nil {
			out.Class = syncerrorwire.AttemptClass(res.Err)
		}
		if out.Code == "" {
			out.Code = "RETRY_FAILED"
		}
	}
	out.Result = syncerror.DeliveryPermanent
	return out
}
