package governance

import (
	"context"
	"fmt"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/identity"
)

// Evaluating a write without making it: what a flow's dry run shows an admin. Evaluate
// runs the guard's checks in Write's order on the same rules (the ownership manifest, the
// reciprocal loop check against the ledger, hop chains, the DLP scan) and records,
// audits, alerts, holds and writes nothing: it only reads the manifest and the ledger.
// The flapping cap is not evaluated, since its counter counts as it reads; the verdict
// says so.

// Field verdicts of an evaluated write.
const (
	VerdictWritten        = "written"
	VerdictOwnedElsewhere = "owned_elsewhere"
	VerdictRejected       = "rejected"
	VerdictHeld           = "held"
	VerdictLoop           = "loop"
	VerdictDLPBlocked     = "dlp_blocked"
	VerdictDLPMaskedValue = "dlp_masked_value"
)

// FieldVerdict is what the guard would do with one field of a write.
type FieldVerdict struct {
	Field   string `json:"field"`
	Verdict string `json:"verdict"`
	// Owner and Policy are the manifest's, for a field owned by a system other than the
	// write's source.
	Owner  connector.System `json:"owner,omitempty"`
	Policy Policy           `json:"policy,omitempty"`
	Reason string           `json:"reason,omitempty"`
}

// Verdict is what the guard would decide for a whole write.
type Verdict struct {
	// Decision is written (some field would be written), or the verdict that stops the
	// whole write (rejected, held, loop, dlp_blocked, owned_elsewhere when every field
	// would be dropped).
	Decision string         `json:"decision"`
	Fields   []FieldVerdict `json:"fields"`
	// Reason is the loop's breaking condition or the refusal, when the write would stop.
	Reason string `json:"reason,omitempty"`
	// NotEvaluated names the checks a dry run cannot make without side effects.
	NotEvaluated []string `json:"notEvaluated"`
}

// Evaluate says what Write would decide for req, writing and recording nothing. An error
// means a check could not run (ErrUnavailable) or req is no write (ErrInvalidRequest).
func (g *Guard) Evaluate(ctx context.Context, id identity.Identity, req WriteRequest) (Verdict, error) {
	if err := checkRequest(id, req); err != nil {
		return Verdict{}, err
	}
	op := &writeOp{g: g, ctx: ctx, id: id, req: req, tenant: id.TenantID, now: g.now().UTC(), names: sortedKeys(req.Fields)}
	v := Verdict{Decision: VerdictWritten, NotEvaluated: []string{"flapping"}}
	byField := map[string]*FieldVerdict{}
	for _, f := range op.names {
		v.Fields = append(v.Fields, FieldVerdict{Field: f, Verdict: VerdictWritten})
	}
	for i := range v.Fields {
		byField[v.Fields[i].Field] = &v.Fields[i]
	}
	m, err := g.manifests.Manifest(ctx, op.tenant)
	if err != nil {
		return Verdict{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	conflicts := ownershipConflicts(m, req, op.names)
	policy := strictest(conflicts)
	for _, c := range conflicts {
		fv := byField[c.field]
		fv.Owner, fv.Policy, fv.Verdict = c.entry.Owner, c.entry.Policy, VerdictOwnedElsewhere
		fv.Reason = fmt.Sprintf("owned by %s (%s)", c.entry.Owner, c.entry.Policy)
	}
	switch policy {
	case PolicyRejectWithAlert:
		return v.stop(VerdictRejected, "a field is owned by another system under reject_with_alert: the whole write is refused"), nil
	case PolicyRequireApproval:
		v.Decision, v.Reason = VerdictHeld, "a field is owned by another system under require_approval: the write waits for an approver"
	}
	fields := op.evaluatedFields(v.Fields)
	if len(fields) == 0 {
		v.Decision = VerdictOwnedElsewhere
		return v, nil
	}
	if cond, loop, err := op.evaluateLoop(fields); err != nil {
		return Verdict{}, err
	} else if loop {
		return v.stop(VerdictLoop, cond), nil
	}
	op.evaluateHops(byField)
	if fields = op.evaluatedFields(v.Fields); len(fields) == 0 {
		return v.stop(VerdictLoop, "every field's value would return to where it came from"), nil
	}
	canonical, err := canonicalJSON(nil, fields, sortedKeys(fields))
	if err != nil {
		return Verdict{}, fmt.Errorf("%w: fields are not JSON-encodable", ErrInvalidRequest)
	}
	if masked := maskedFields(fields, sortedKeys(fields)); len(masked) > 0 {
		return v.stop(VerdictDLPMaskedValue, fmt.Sprintf("%v carry a DLP mask or placeholder, not a value", masked)), nil
	}
	res, err := g.scanner.ScanJSON(dlp.ConnectorWrite, canonical)
	if err != nil || res.Blocked {
		return v.stop(VerdictDLPBlocked, "the fields carry secrets or card data"), nil
	}
	if v.Decision == VerdictHeld {
		return v.stop(VerdictHeld, v.Reason), nil
	}
	return v, nil
}

// evaluatedFields are the fields still to be written: not dropped (source_wins) nor looped.
func (op *writeOp) evaluatedFields(vs []FieldVerdict) map[string]any {
	out := map[string]any{}
	for _, fv := range vs {
		if fv.Verdict == VerdictWritten || fv.Verdict == VerdictOwnedElsewhere && fv.Policy == PolicyRequireApproval {
			out[fv.Field] = op.req.Fields[fv.Field]
		}
	}
	return out
}

// evaluateLoop is checkLoop without its records.
func (op *writeOp) evaluateLoop(fields map[string]any) (string, bool, error) {
	hash, err := PayloadHash(fields)
	if l := op.req.Link; l != nil && l.Key != "" {
		hash, err = PayloadHash(l.Fields)
	}
	if err != nil {
		return "", false, fmt.Errorf("%w: fields are not JSON-encodable", ErrInvalidRequest)
	}
	return op.reciprocalLoop(hash)
}

// evaluateHops marks the fields whose trace returns to the target, as checkHops breaks them.
func (op *writeOp) evaluateHops(byField map[string]*FieldVerdict) {
	for _, name := range op.names {
		fv := byField[name]
		if fv == nil || fv.Verdict != VerdictWritten {
			continue
		}
		if chain, ok := op.hopLoop(name); ok {
			fv.Verdict, fv.Reason = VerdictLoop, chain
		}
	}
}

// stop ends the evaluation with a verdict for the whole write: fields that would have
// been written take it.
func (v Verdict) stop(decision, reason string) Verdict {
	v.Decision, v.Reason = decision, reason
	for i := range v.Fields {
		if v.Fields[i].Verdict == VerdictWritten || decision == VerdictRejected {
			v.Fields[i].Verdict = decision
		}
	}
	return v
}
