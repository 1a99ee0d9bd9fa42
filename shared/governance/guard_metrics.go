package governance

import (
	"errors"

	"github.com/syncassist/syncassist/shared/emf"
)

// MetricGuardDecisions counts guarded writes by what the guard decided, one datapoint per
// write (packed with the invocation's other metrics where their keys allow, shared/emf),
// under the dimensions "decision" (one of the Decision values) and "system" (the
// target system written to), rolled up by decision alone (what the loop alarm watches),
// beside the service-wide total. Both dimensions take a handful of values; the tenant,
// source, entity and record are fields of the line, searchable in Logs Insights, not
// dimensions: a metric per tenant or record would multiply the metric count.
const MetricGuardDecisions = "GuardDecisions"

// Decision is what the guard did with one write, as its metric reports it.
type Decision string

// The decisions. Every write ends in exactly one.
const (
	DecisionWritten           Decision = "written"            // written through, every field
	DecisionPartial           Decision = "partial"            // written, some fields dropped (source_wins)
	DecisionDropped           Decision = "dropped"            // every field dropped (source_wins), nothing written
	DecisionSuperseded        Decision = "superseded"         // every field's value is older than one written since
	DecisionOwnershipRejected Decision = "ownership_rejected" // refused by reject_with_alert
	DecisionHeld              Decision = "held"               // held for an ownership approval
	DecisionApprovalDenied    Decision = "approval_denied"    // its held approval was denied
	DecisionLoopBlocked       Decision = "loop_blocked"       // the return leg of a loop, blocked
	DecisionDLPBlocked        Decision = "dlp_blocked"        // the DLP scan blocked it or failed
	DecisionDLPMaskedValue    Decision = "dlp_masked_value"   // a value is a DLP mask or placeholder
	DecisionInvalid           Decision = "invalid"            // not a write (ErrInvalidRequest)
	DecisionUnavailable       Decision = "unavailable"        // a check could not run
	DecisionNotConfigured     Decision = "not_configured"     // the tenant has no connector for the target
	DecisionNotRecorded       Decision = "not_recorded"       // written, but ledger or audit failed
	DecisionFailed            Decision = "failed"             // the connector refused or failed
)

// decisionOf classifies the outcome of a write of req.
func decisionOf(req WriteRequest, res Result, err error) Decision {
	for _, d := range []struct {
		err      error
		decision Decision
	}{
		{ErrOwnershipRejected, DecisionOwnershipRejected}, {ErrPendingApproval, DecisionHeld},
		{ErrApprovalDenied, DecisionApprovalDenied}, {ErrLoopDetected, DecisionLoopBlocked},
		{ErrMaskedValue, DecisionDLPMaskedValue}, {ErrDLPBlocked, DecisionDLPBlocked}, {ErrInvalidRequest, DecisionInvalid},
		{ErrUnavailable, DecisionUnavailable}, {ErrNotConfigured, DecisionNotConfigured},
		{ErrNotRecorded, DecisionNotRecorded}, {ErrSuperseded, DecisionSuperseded},
	} {
		if errors.Is(err, d.err) {
			return d.decision
		}
	}
	switch {
	case err != nil:
		return DecisionFailed
	case len(res.Dropped) == 0:
		return DecisionWritten
	case len(res.Dropped)+len(res.Superseded) == len(req.Fields):
		return DecisionDropped
	default:
		return DecisionPartial
	}
}

// countDecision writes the decision's metric line: to Deps.Metrics when set, else to
// emf.Out, past the logger so that no log level hides it.
func (g *Guard) countDecision(tenant string, req WriteRequest, res Result, err error) {
	system := string(req.Target)
	if !req.Target.Known() {
		// An invalid request can name anything; a dimension must not take its value.
		system = "unknown"
	}
	m := emf.Metric{
		Time: g.now(), Counts: map[string]float64{MetricGuardDecisions: 1},
		Dimensions: []string{"decision", "system"}, Rollups: [][]string{{"decision"}},
		Fields: map[string]any{"decision": string(decisionOf(req, res, err)), "system": system, "tenant": tenant,
			"source": string(req.Source), "entity": req.Entity},
	}
	if g.metrics == nil {
		emf.Emit(m)
		return
	}
	_ = emf.Write(g.metrics, m)
}
