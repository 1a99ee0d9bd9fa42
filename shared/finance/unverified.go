package finance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/emf"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// ActionOutcomeUnverified records an expired approve whose outcome the sweep could not
// verify and handed back to the approvers (returnUnverified).
const ActionOutcomeUnverified = "finance.outcome_unverified"

// UnverifiedAfter is how long after a lease expired the sweep keeps trying to read
// whether its update landed before it hands the row back to a person. A day outlasts a
// throttled ledger, an ERP outage or a maintenance window (the sweep runs every 30
// minutes), and keeps an approval from waiting on a record nobody can read for longer.
const UnverifiedAfter = 24 * time.Hour

// Why the sweep stopped waiting for the evidence: the audit's and the metric's "reason".
const (
	unverifiedNoConnector = "connector_not_configured"
	unverifiedDenied      = "access_denied"
	unverifiedTimedOut    = "unreadable_24h"
)

// unverifiedWords say each reason in the row's LastError.
var unverifiedWords = map[string]string{
	unverifiedNoConnector: "the tenant has no usable host ERP connector",
	unverifiedDenied:      "the host ERP connector may not read the record",
	unverifiedTimedOut:    "the write ledger or the ERP record could not be read for 24 hours",
}

// unverifiable says why the sweep stops waiting for the evidence that err (from wrote)
// kept it from reading, or "" to try again next run: a read that cannot succeed until
// someone changes the tenant's set-up (no connector, or one whose role may not read the
// record), or one that has failed since the lease expired UnverifiedAfter ago. Left
// alone, such a row would stay applying for good: it cannot be approved or rejected.
func unverifiable(a Approval, err error, now time.Time) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, connector.ErrNotConfigured), errors.Is(err, ErrERPNotConfigured),
		errors.Is(err, connector.ErrInvalidConfig), errors.Is(err, connector.ErrUnsupported):
		return unverifiedNoConnector
	case errors.Is(err, connector.ErrUnauthorized):
		return unverifiedDenied
	case a.Lease != nil && !now.Before(a.Lease.ExpiresAt.Add(UnverifiedAfter)):
		return unverifiedTimedOut
	}
	return ""
}

// returnUnverified returns the expired row a, whose update may or may not have landed,
// to pending, so that an approver can decide it: LastError, the audit record
// (finance.outcome_unverified) and the OutcomesUnverified metric, for an alarm,
// say that the outcome could not be verified and that the ERP record must be checked
// before approving again (approving writes the approval's values over whatever the
// record holds now). This is the one revert that may return a written row to pending: it
// is left to a person who can read the ERP, never decided by a guess. finished is false
// when another sweep or an approve had the row first.
func (s *Service) returnUnverified(ctx context.Context, who identity.Identity, a Approval, reason string, cause error, now time.Time) (finished bool, err error) {
	by := a.Lease.Holder
	if by == "" {
		by = "an earlier approver"
	}
	msg := fmt.Sprintf("the outcome of the approve by %s could not be verified (%s): the ERP record %s %s may already "+
		"hold the approval. Check the record in the ERP before approving again; reject the approval if it should not apply",
		by, unverifiedWords[reason], a.Entity, a.ERPID)
	err = s.Store.Revert(ctx, a.TenantID, a.ID, a.Lease.Token, msg, now)
	if errors.Is(err, ErrStateChanged) || errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("return unverified finance approval %s/%s: %w", a.TenantID, a.ID, err)
	}
	httpapi.Logger(ctx).Error("finance sweep: an expired approve's outcome could not be verified; returned to pending for a person",
		"id", a.ID, "reason", reason, "error", cause)
	emf.Emit(emf.Metric{Time: now, Dimensions: []string{"feature", "reason"}, Rollups: [][]string{{"feature"}},
		Counts: map[string]float64{"OutcomesUnverified": 1},
		Fields: map[string]any{"feature": "finance", "reason": reason, "tenant": a.TenantID}})
	details := map[string]any{"erpId": a.ERPID, "entity": a.Entity, "reason": reason, "leaseHolder": a.Lease.Holder,
		"leaseExpiredAt": a.Lease.ExpiresAt, "reverted": true}
	if kind := connector.ErrorKind(cause); kind != "" {
		details["connectorError"] = kind
	}
	s.audit(ctx, who, ActionOutcomeUnverified, audit.ResultFailure, a, details)
	return true, nil
}
