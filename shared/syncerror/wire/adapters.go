package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
)

// The adapters below connect the queue to the platform: the host ERP's connector and the
// guard (the governed AI client's is in aidiagnoser). The queue's rules see only its own interfaces.

// hostErrors is the reconcile's HostErrors over the tenant's host ERP connector.
type hostErrors struct{ registry *connector.Registry }

func (h hostErrors) ListSyncErrors(ctx context.Context, tenantID string, since time.Time, cursor string, limit int) ([]json.RawMessage, string, error) {
	c, err := h.registry.Client(ctx, tenantID, connector.SystemHostERP)
	if errors.Is(err, connector.ErrNotConfigured) {
		return nil, "", fmt.Errorf("%w: %w", syncerror.ErrWriterNotConfigured, err)
	}
	if err != nil {
		return nil, "", err
	}
	page, err := c.ListSyncErrors(ctx, since, cursor, limit)
	if err != nil {
		return nil, "", err
	}
	return page.Items, page.NextCursor, nil
}

// fixWriter is the operator queue's FixWriter: an approved fix is written back
// to the host ERP record that failed, through the guard, in the host ERP's own name (the
// operator corrects the owner's record; field-level ownership entries still apply). A
// flow's failed write is fixed where the flow wrote, in the name of the flow's source:
// the fix is that write corrected, governed as the write was.
//
// A fix (or revert) held for an ownership approval is sent with ReleaseByRetry, as
// finance's update is: releasing the hold only approves it, and the next approve (or
// revert) of the row writes it under the same key. The row decides whether the fix is
// still wanted: meanwhile it is pending and may be rejected, or approved with another
// fix, and a release that wrote at once would put a rejected fix in the record with
// nothing on the row to revert.
type fixWriter struct{ guard *governance.Guard }

// writeBack names the system a claim's fix is written to and in whose name.
func writeBack(c syncerror.Claim) (target, source connector.System) {
	if c.Source == syncerror.SourceFlow {
		var fc struct {
			Flow struct{ Source, Target connector.System } `json:"flow"`
		}
		if json.Unmarshal(c.Record.Context, &fc) == nil && fc.Flow.Source.Known() && fc.Flow.Target.Known() {
			return fc.Flow.Target, fc.Flow.Source
		}
	}
	return connector.SystemHostERP, connector.SystemHostERP
}

func (f fixWriter) WriteFix(ctx context.Context, who identity.Identity, c syncerror.Claim, fix []syncerror.FieldChange, key, ifVersion string) error {
	if syncerror.FlowTargetUnknown(c) {
		// The approve refuses such a row first; this keeps every other writer of a fix
		// (a revert, an automation) from writing to the stand-in id.
		return &syncerror.RefusedError{Status: http.StatusConflict, Code: syncerror.CodeTargetRecordUnknown,
			Reason: syncerror.TargetRecordUnknownReason}
	}
	fields := syncerror.FixFields(fix)
	target, source := writeBack(c)
	res, err := f.guard.Write(ctx, who, governance.WriteRequest{
		Target: target, Source: source,
		Entity: c.Record.RecordType, RecordID: c.Record.RecordID, Fields: fields,
		// governance's ApproveHandler knows this reason: a hold stored before ReleaseByRetry
		// was set here is released by retry too. Do not rename it.
		IdempotencyKey: key, Reason: "approve", ReleaseByRetry: true, IfVersion: ifVersion,
	})
	refuse := func(status int, code, reason string) error {
		return &syncerror.RefusedError{Status: status, Code: code, Reason: reason}
	}
	switch {
	case errors.Is(err, governance.ErrNotRecorded):
		// The host ERP took the write; only its ledger entry or audit record is missing.
		return fmt.Errorf("%w: %w", syncerror.ErrFixUnrecorded, err)
	case err == nil && len(res.Dropped) == len(fields):
		return refuse(http.StatusUnprocessableEntity, "ownership_rejected",
			"every field of the fix is owned by another system (source_wins); nothing was written: "+strings.Join(res.Dropped, ", "))
	case err == nil && len(res.Dropped) > 0:
		return &syncerror.PartialFixError{Dropped: res.Dropped}
	case err == nil:
		return nil
	case errors.Is(err, governance.ErrOwnershipRejected):
		return refuse(http.StatusUnprocessableEntity, "ownership_rejected",
			"the ownership manifest refuses this write: a field of the fix is owned by another system")
	case errors.Is(err, governance.ErrApprovalDenied):
		return refuse(http.StatusConflict, "ownership_approval_denied",
			"an approver denied the held write of this fix; it will not be written (edit the fix to propose another)")
	case errors.Is(err, governance.ErrApprovalMismatch):
		// An approval releases what its approver saw: one held under this fix's key for
		// another write (another record, entity or source, or other values) never releases
		// this one, and the same approve would meet it again.
		return refuse(http.StatusConflict, "ownership_approval_mismatch",
			"an ownership approval is held under this fix's key for another write (another record or other values), so it "+
				"cannot release this one; nothing was written: edit the fix to propose a new write, or ask an admin to look "+
				"at the approval under /api/governance/approvals")
	case errors.Is(err, governance.ErrPendingApproval):
		id := ""
		if res.Held != nil {
			id = res.Held.ID
		}
		next := "then approve this fix again"
		if key == syncerror.RevertKey(c) {
			// The hold's time stands for when the revert was asked (HeldSince).
			next = "then revert it again, which writes it, even after the fix's 24 hours: it was asked within them"
		}
		return refuse(http.StatusConflict, syncerror.CodeApprovalRequired,
			"the write is held for an ownership approval ("+id+"); approve it under /api/governance/approvals, "+next)
	case errors.Is(err, governance.ErrLoopDetected):
		return refuse(http.StatusConflict, "loop_detected", "the write would echo a write the host ERP just made; it was blocked as a loop")
	case errors.Is(err, governance.ErrMaskedValue):
		return refuse(http.StatusUnprocessableEntity, governance.CodeDLPMaskedValue,
			"the fix carries a masked value (a DLP mask or placeholder such as [REDACTED:…] or *****6789), which would overwrite the record's data; nothing was written: enter the real value")
	case errors.Is(err, governance.ErrDLPBlocked):
		return refuse(http.StatusUnprocessableEntity, "dlp_blocked", "the fix carries a secret or card data and may not be written")
	case errors.Is(err, governance.ErrNotConfigured):
		return fmt.Errorf("%w: %w", syncerror.ErrWriterNotConfigured, err)
	case ifVersion != "" && errors.Is(err, connector.ErrConflict) && !connector.MayHaveApplied(err):
		// The connector compares the version before it sends (and Business Central's
		// If-Match again): a conflict wrote nothing, unless an earlier attempt's answer was
		// lost (that one is settled as any lost answer is, below).
		return fmt.Errorf("%w: %w", syncerror.ErrRecordChanged, err)
	}
	var ce *connector.Error
	if errors.As(err, &ce) {
		te := &syncerror.TargetError{Err: err, Reason: explainFailure(ce),
			Target: httpapi.TargetFailure{System: string(ce.System), Status: ce.Status, Code: ce.Code, Retryable: ce.Retryable}}
		if connector.MayHaveApplied(err) {
			// What the guard left out was never sent: the read-back compares without it.
			return &syncerror.LostAnswerError{Left: append(slices.Clip(res.Dropped), res.Looped...),
				Answered: connector.Answered(err), Err: te}
		}
		return te
	}
	return err
}

// HeldSince implements syncerror.HeldWrites over the guard's approvals: the write under
// key to the claim's write-back target, held when it was first asked (its approval's Time).
func (f fixWriter) HeldSince(ctx context.Context, c syncerror.Claim, key string) (time.Time, bool, error) {
	target, _ := writeBack(c)
	a, err := f.guard.HeldApproval(ctx, c.TenantID, target, key)
	if errors.Is(err, governance.ErrNotFound) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, err
	}
	return a.Time, true, nil
}

// explainFailure says, in an operator's words, what a target's refusal means for the fix:
// whether approving again can help and, if not, what can.
func explainFailure(e *connector.Error) string {
	said := string(e.System)
	if e.Code != "" {
		said += " answered " + e.Code
	}
	if e.Status != 0 {
		said += " (HTTP " + strconv.Itoa(e.Status) + ")"
	}
	switch {
	case errors.Is(e, connector.ErrNotFound):
		return said + ": the record does not exist there, so approving again cannot help; reject the error or correct the record at the source"
	case errors.Is(e, connector.ErrValidation):
		return said + ": it refused these values as they stand; edit the fix or reject the error"
	case errors.Is(e, connector.ErrUnauthorized):
		return said + ": the connection may not write this record; an admin must check the connector's credential and role"
	case errors.Is(e, connector.ErrConflict):
		return said + ": the record changed meanwhile; look at it again and approve if the fix still applies"
	case errors.Is(e, connector.ErrRateLimited), errors.Is(e, connector.ErrUnavailable):
		return said + ": it was busy or could not be reached; approving again shortly can succeed"
	}
	return said
}

// ledgerWrites is the WriteEvidence of an ended lease (the reconcile's, and an approve's
// that meets one) over the guard's write ledger: a write-back the host ERP took is in the
// ledger under its idempotency key. A write whose answer was lost is in no ledger (the
// guard records what it was told was written), so a lease not found there is settled by
// reading its record back: it holds what the write sent, or not.
type ledgerWrites struct {
	ledger governance.Ledger
	// records reads the record back (nil: the ledger only).
	records policy.RecordReader
	// manifests are the ownership manifests the guard writes under (nil: it drops nothing).
	manifests governance.ManifestSource
}

func (l ledgerWrites) Landed(ctx context.Context, c syncerror.Claim, writes []syncerror.LeaseWrite) (syncerror.LeaseWrite, bool, error) {
	for _, w := range writes {
		found, err := governance.Wrote(ctx, l.ledger, c.TenantID, c.Record.RecordType, c.Record.RecordID, c.ClaimedAt, w.Key)
		if err != nil {
			return syncerror.LeaseWrite{}, false, err
		}
		if found {
			w.Fix, err = l.carried(ctx, c, w.Fix)
			return w, err == nil, err
		}
	}
	if l.records == nil || !slices.ContainsFunc(writes, func(w syncerror.LeaseWrite) bool { return len(w.Fix) > 0 }) {
		return syncerror.LeaseWrite{}, false, nil
	}
	current, _, err := l.records.ReadFields(ctx, c)
	if errors.Is(err, connector.ErrNotFound) {
		return syncerror.LeaseWrite{}, false, nil // no record, so no write landed on it
	}
	if err != nil {
		return syncerror.LeaseWrite{}, false, fmt.Errorf("read back %s: %w", c.ID, err)
	}
	for _, w := range writes {
		if w.Fix, err = l.carried(ctx, c, w.Fix); err != nil {
			return syncerror.LeaseWrite{}, false, err
		}
		if syncerror.RecordHolds(current, w.Fix) {
			return w, true, nil
		}
	}
	return syncerror.LeaseWrite{}, false, nil
}

// carried is fix as the guard sends it: without the fields the ownership manifest gives
// another system under source_wins, which the record never gets from this write (the
// guard's rule: they are dropped only when source_wins is the strictest policy the write
// meets; under a stricter one the write is refused or held whole). The manifest is read
// now, not at the write: a change to it in between is the one case this can misjudge.
func (l ledgerWrites) carried(ctx context.Context, c syncerror.Claim, fix []syncerror.FieldChange) ([]syncerror.FieldChange, error) {
	if l.manifests == nil || len(fix) == 0 {
		return fix, nil
	}
	m, err := l.manifests.Manifest(ctx, c.TenantID)
	if err != nil {
		return nil, fmt.Errorf("ownership manifest of %s: %w", c.TenantID, err)
	}
	_, source := writeBack(c)
	var drop []string
	for _, ch := range fix {
		e, ok := m.Owner(c.Record.RecordType, ch.Path)
		if !ok || e.Owner == source {
			continue
		}
		if e.Policy != governance.PolicySourceWins {
			return fix, nil
		}
		drop = append(drop, ch.Path)
	}
	return syncerror.WithoutPaths(fix, drop), nil
}
