package wire

import (
	"context"
	"encoding/json"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// A flow row's retry is the flow run again: a fresh read of the source record through its
// connector, the flow's mapping, the guard; the approved fix, if any, in place of its
// fields, once the target record is seen not to have lost it to a revert or a person's
// change (flowretry.go). What the failed run meant to write (the row's masked payload) is
// never sent.
// The flows feature gives the re-run (shared/flow/wire FlowReruns): the queue's functions
// link no flow, so where it is not given (the operator's routes) the re-run is left to
// the flow redrive, which runs the row's retries within its five minutes.

// FlowRerunner re-runs the flow run a flow row failed in (flowID, for source record
// sourceRecordID), key naming the attempt, and judges its outcome as the retry's.
type FlowRerunner interface {
	Rerun(ctx context.Context, c syncerror.Claim, flowID, sourceRecordID, key string) syncerror.Delivery
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
		return syncerror.Delivery{Result: syncerror.DeliveryRequested, System: sys,
			Reason: "flow " + id + " is re-run by the flow redrive at its next run (every 5 minutes)"}
	}
	// The re-run carries the approved fix: not over a revert, nor over a value set in the
	// target since (flowretry.go). Checked only where a re-run follows: the deferral above
	// writes nothing, and the redrive's own attempt comes through here.
	if out, stop := d.flowFixStands(ctx, c); stop {
		return out
	}
	return d.flows.Rerun(ctx, c, id, rec, key)
}

// ConfigurationAttempt is an attempt that cannot run as the tenant is set up: nothing was
// written, and reason says who must do what.
func ConfigurationAttempt(system, code, reason string) syncerror.Delivery {
	return configuration(system, code, reason)
}

// FailedAttempt is an attempt a system's (or the guard's) error ended; what says what
// was being done.
func FailedAttempt(system string, err error, what string) syncerror.Delivery {
	out := refusal(system, err, what)
	out.System = system
	return out
}

// AttemptClass judges a connector's or the guard's error as an attempt's class.
func AttemptClass(err error) string { return attemptClass(err) }
