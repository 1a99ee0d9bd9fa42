package governance

import (
	"fmt"
	"slices"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// A connector write carries only values someone vouched for, never a mask: a stored
// payload is DLP-masked at rest, and a write that carries any of it ([REDACTED:…],
// *****6789, a PCI mask, an [EMAIL_1] placeholder) would replace the record's data with
// the mask. The guard refuses such a write whole, whatever its path to the guard (a retry,
// an edit, a flow, a held write released), as part of its DLP step; dlp.MaskedValue is the
// judgement of what a mask is.

// ActionMaskedValue is the governance audit record of a write refused for a masked value.
const ActionMaskedValue = "governance.masked_value"

// MaskedValueRefusal is a write the guard refused because a field carries a DLP mask or
// placeholder. It names the fields, never their values.
type MaskedValueRefusal struct {
	ID            string
	Time          time.Time
	Tenant        string
	Entity        string
	Caller        connector.System
	Target        connector.System
	CorrelationID string
	// Resource is "<target>/<entity>/<recordId>".
	Resource string
	// Fields are the top-level fields of the write that hold a mask, sorted.
	Fields []string
	// Reason names the operation that asked for the write (WriteRequest.Reason).
	Reason string
}

// MaskedFields are the fields of a write (sorted) that the guard refuses whole for a
// mask: a check that foretells the guard (the tool catalogue's governance_check) must
// judge masks exactly as it does, so it asks here rather than keeping a copy.
func MaskedFields(fields map[string]any) []string { return maskedFields(fields, sortedKeys(fields)) }

// maskedFields are the fields (of names, sorted) whose value holds a mask, in a string
// anywhere within it or in a key of an object within it.
func maskedFields(fields map[string]any, names []string) []string {
	var out []string
	for _, name := range names {
		v, ok := fields[name]
		if ok && (dlp.MaskedValue(name) || holdsMask(v)) {
			out = append(out, name)
		}
	}
	return out
}

func holdsMask(v any) bool {
	switch v := v.(type) {
	case string:
		return dlp.MaskedValue(v)
	case map[string]any:
		for k, e := range v {
			if dlp.MaskedValue(k) || holdsMask(e) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(v, holdsMask)
	case []string:
		return slices.ContainsFunc(v, dlp.MaskedValue)
	case map[string]string:
		for k, e := range v {
			if dlp.MaskedValue(k) || dlp.MaskedValue(e) {
				return true
			}
		}
	}
	return false
}

// checkMasked refuses the write when a field holds a mask: it audits the refusal as a
// governance record and alerts, and nothing is written.
func (op *writeOp) checkMasked(fields map[string]any) error {
	masked := maskedFields(fields, sortedKeys(fields))
	if len(masked) == 0 {
		return nil
	}
	r := MaskedValueRefusal{
		ID: op.g.newID(), Time: op.now, Tenant: op.tenant, Entity: op.req.Entity, Caller: op.req.Source,
		Target: op.req.Target, CorrelationID: op.corr, Resource: op.resource, Fields: masked, Reason: op.req.Reason,
	}
	httpapi.Logger(op.ctx).Warn("write of a masked value refused", "refusalId", r.ID, "resource", r.Resource, "fields", masked)
	op.auditGovernance(ActionMaskedValue, audit.ResultDenied, map[string]any{
		"refusalId": r.ID, "caller": string(r.Caller), "target": string(r.Target), "entity": r.Entity,
		"fields": masked,
	})
	if op.g.alerter != nil {
		if err := op.g.alerter.AlertMaskedValue(op.ctx, r); err != nil {
			httpapi.Logger(op.ctx).Error("masked value alert failed", "refusalId", r.ID, "error", err)
		}
	}
	op.auditWrite(audit.ResultDenied, CodeDLPMaskedValue, map[string]any{"maskedFields": masked})
	return fmt.Errorf("%w: %v of %s", ErrMaskedValue, masked, op.req.Entity)
}
