package finance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/delivery"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/identity"
)

// ERPUpdater sets an approval's Fields on its ERP record (a.Entity / a.ERPID) through the
// governed write path, with key as the idempotency key. It returns an error wrapping
// ErrERPNotConfigured or ErrERPUnavailable when nothing was sent to the ERP, a
// *RefusedError when governance refused the write, and any other error when the update
// itself failed. A nil error with a result that is not Confirmed is "returned nothing".
//
// Applied reads a's ERP record and reports whether it holds every field the approve sets:
// how an update whose outcome was lost (connector.MayHaveApplied, a deadline) is settled,
// by the approve itself or later by the lease sweep. A missing record holds nothing.
type ERPUpdater interface {
	Update(ctx context.Context, who identity.Identity, a Approval, key string) (connector.WriteResult, error)
	Applied(ctx context.Context, who identity.Identity, a Approval) (bool, error)
}

// Errors an ERPUpdater wraps when it did not reach the ERP.
var (
	// ErrERPNotConfigured: the tenant has no host ERP connector.
	ErrERPNotConfigured = errors.New("host ERP connector not configured")
	// ErrERPUnavailable: a check or the connector's set-up could not run; nothing was
	// written and retrying later is safe.
	ErrERPUnavailable = errors.New("host ERP connector unavailable")
)

// RefusedError is a governance refusal of the ERP update: ownership, a loop, DLP, or a
// write held for an ownership approval. Code (the problem code, as the sync-error
// write-back uses it) and Reason are fit for the approver. The approve answers every
// refusal with 409: SPEC.md limits its failures to 400, 404, 409, 502 and 503, and a
// refusal is a conflict with the tenant's governance policy, not a malformed request.
type RefusedError struct {
	Code   string
	Reason string
}

func (e *RefusedError) Error() string { return "ERP update refused: " + e.Code + ": " + e.Reason }

// GuardUpdater is the production ERPUpdater: one governance.Guard.Write to the host ERP,
// in the host ERP's own name (Source == Target), since the approver exercises the ERP's
// authority over its own record. The default manifest's entries still apply per field.
//
// Records gives the tenant's host ERP client for Applied's read: a read is not a write,
// and needs no guard.
type GuardUpdater struct {
	Guard   *governance.Guard
	Records *connector.Registry
}

var _ ERPUpdater = GuardUpdater{}

// Update implements ERPUpdater.
func (g GuardUpdater) Update(ctx context.Context, who identity.Identity, a Approval, key string) (connector.WriteResult, error) {
	fields, err := decodeFields(a.Fields)
	if err != nil {
		return connector.WriteResult{}, fmt.Errorf("approval %s: %w", a.ID, err)
	}
	res, err := g.Guard.Write(ctx, who, governance.WriteRequest{
		Target: connector.SystemHostERP, Source: connector.SystemHostERP,
		Entity: a.Entity, RecordID: a.ERPID, Fields: fields,
		// governance's ApproveHandler knows this reason: a hold stored before
		// ReleaseByRetry was is released by retry too. Do not rename it.
		IdempotencyKey: key, Reason: "finance.approve",
		// A held update is written by the next approve of the row, never by its release:
		// the row is pending meanwhile and may be rejected (see the package documentation).
		ReleaseByRetry: true,
	})
	refuse := func(code, reason string) error { return &RefusedError{Code: code, Reason: reason} }
	var cerr *connector.Error
	switch {
	case err == nil && len(res.Dropped) > 0 && len(res.Dropped) == len(fields):
		return res.Written, refuse("ownership_rejected",
			"every field of the update is owned by another system (source_wins); nothing was written: "+strings.Join(res.Dropped, ", "))
	case err == nil:
		return res.Written, nil
	case errors.Is(err, governance.ErrNotRecorded):
		// The ERP applied the update; only the ledger entry or the guard's audit record
		// is missing, and the guard has logged that. The approval did happen.
		return res.Written, nil
	case errors.Is(err, governance.ErrOwnershipRejected):
		return res.Written, refuse("ownership_rejected",
			"the ownership manifest refuses this update: a field of it is owned by another system")
	case errors.Is(err, governance.ErrApprovalDenied):
		return res.Written, refuse("ownership_approval_denied",
			"an approver denied the held update of this approval; it will not be written")
	case errors.Is(err, governance.ErrPendingApproval):
		id := ""
		if res.Held != nil {
			id = res.Held.ID
		}
		return res.Written, refuse("ownership_approval_required",
			"the update is held for an ownership approval ("+id+"); approve it under /api/governance/approvals, then approve this again")
	case errors.Is(err, governance.ErrLoopDetected):
		return res.Written, refuse("loop_detected", "the update would echo a write the host ERP just made; it was blocked as a loop")
	case errors.Is(err, governance.ErrDLPBlocked):
		return res.Written, refuse("dlp_blocked", "the update carries a secret or card data and may not be written")
	case errors.Is(err, governance.ErrNotConfigured):
		return res.Written, fmt.Errorf("%w: %w", ErrERPNotConfigured, err)
	case errors.Is(err, governance.ErrUnavailable):
		return res.Written, fmt.Errorf("%w: %w", ErrERPUnavailable, err)
	case delivery.Deferred(err) > 0 && errors.As(err, &cerr) && cerr.Attempts == 0:
		// The account's shared rate budget had no room: nothing was sent, and the approve
		// can be asked again once it has (the answer's Retry-After says when).
		return res.Written, fmt.Errorf("%w: %w", ErrERPUnavailable, err)
	case errors.As(err, &cerr) && cerr.Status == http.StatusTooManyRequests:
		// Rate limited without a Retry-After: nothing was written (503), not a failed update
		// (502). Assumption, named: a 429 is refused before the request is processed; RFC
		// 6585 §4 defines it as too many requests without saying so, and the five vendors'
		// rate-limit pages describe the limit, not whether a refused request ran. A 429
		// after an unanswered try of the same update is not this case: the connector reports
		// it as that try's lost answer (its Status; MayHaveApplied), since it may still land.
		return res.Written, fmt.Errorf("%w: %w", ErrERPUnavailable, err)
	case errors.As(err, &cerr) && cerr.Op == connector.OpWrite, errors.Is(err, governance.ErrInvalidRequest):
		return res.Written, err
	}
	// Neither a write nor a check failed: the connector could not be set up (its
	// configuration could not be read), so nothing reached the ERP.
	return res.Written, fmt.Errorf("%w: %w", ErrERPUnavailable, err)
}

// Applied implements ERPUpdater.
func (g GuardUpdater) Applied(ctx context.Context, who identity.Identity, a Approval) (bool, error) {
	fields, err := decodeFields(a.Fields)
	if err != nil {
		return false, fmt.Errorf("approval %s: %w", a.ID, err)
	}
	c, err := g.Records.Client(ctx, who.TenantID, connector.SystemHostERP)
	if err != nil {
		return false, fmt.Errorf("read %s/%s: %w", a.Entity, a.ERPID, err)
	}
	rec, err := c.Get(ctx, a.Entity, a.ERPID)
	if errors.Is(err, connector.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s/%s: %w", a.Entity, a.ERPID, err)
	}
	return connector.Holds(rec.Fields, fields), nil
}

// decodeFields decodes a stored Fields object, keeping numbers as written so the ERP
// sees exactly what the host asked for and a replay carries the same body.
func decodeFields(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 {
		raw = DefaultFields
	}
	var fields map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&fields); err != nil || len(fields) == 0 {
		return nil, errors.New("fields are not a non-empty JSON object")
	}
	return fields, nil
}
