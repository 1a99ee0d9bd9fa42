package decisions

import (
	"github.com/syncassist/syncassist/shared/syncerror"

	"errors"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/httpapi"
)

// resolveFrom are the statuses a person may resolve: every open row no write holds.
var resolveFrom = []syncerror.Status{syncerror.StatusPending, syncerror.StatusRetrying, syncerror.StatusEscalated}

type resolveBody struct {
	Reason string `json:"reason"`
	Note   string `json:"note"`
}

// ResolveHandler serves POST /api/sync-error-assist/proposals/{id}/resolve: closes the row
// with a reason and no ERP write, audited like a reject.
func (o *Service) ResolveHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, ok := syncerror.Who(w, r)
		if !ok || !syncerror.FeatureOn(w, r, o.Tenants, actor.TenantID) {
			return
		}
		var body resolveBody
		// ResolveRequest takes no other member (additionalProperties: false): an unknown one
		// is refused, never ignored (a FuzzOpenAPI finding).
		if !syncerror.ReadStrictJSON(w, r, &body) {
			return
		}
		if !slices.Contains(syncerror.ResolveReasons, body.Reason) {
			syncerror.WriteFieldError(w, r, "reason", "must be one of "+strings.Join(syncerror.ResolveReasons, ", "))
			return
		}
		if utf8.RuneCountInString(body.Note) > 1000 {
			syncerror.WriteFieldError(w, r, "note", "must be at most 1000 characters")
			return
		}
		c, ok := o.Load(w, r, actor.TenantID)
		if !ok {
			return
		}
		ctx, now := r.Context(), o.NowUTC()
		note := body.Reason
		if body.Note != "" {
			note += ": " + body.Note
		}
		// Idle: a retrying row whose attempt is writing is not taken from under it.
		row, err := o.Claims.ChangeRetry(ctx, actor.TenantID, c.ID, syncerror.RetryChange{From: resolveFrom, AnyAttempts: true, Idle: true,
			To: syncerror.StatusResolved, Resolution: body.Reason, LastError: c.Retry.LastError,
			Entry: syncerror.HistoryEntry{At: now, Actor: actor.Actor, Action: "resolved", Note: note}}, now)
		if errors.Is(err, syncerror.ErrStateChanged) && o.attemptRunning(w, r, c, now) {
			return
		}
		if !o.changed(w, r, c, err) {
			return
		}
		details := map[string]any{"reason": body.Reason}
		if body.Note != "" {
			details["note"] = body.Note
		}
		o.WriteAudit(ctx, actor, "syncerror.resolve", audit.ResultSuccess, "syncerror/"+c.ID, details)
		httpapi.WriteJSON(w, http.StatusOK, o.Detail(ctx, row))
	})
}

// attemptRunning answers 409 attempt_running when a resolve was held back because a retry
// attempt holds the row (Idle): the operator learns that, and when it ends, rather than
// that a retrying row cannot be resolved, which it can.
func (o *Service) attemptRunning(w http.ResponseWriter, r *http.Request, c syncerror.Claim, now time.Time) bool {
	cur, err := o.Claims.Get(r.Context(), c.TenantID, c.ID)
	if err != nil || cur.Status != syncerror.StatusRetrying || !cur.Retry.HeldUntil.After(now) {
		return false
	}
	httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "attempt_running",
		"A retry attempt is running on this sync error until "+cur.Retry.HeldUntil.Format(time.RFC3339)+
			"; nothing was changed. Resolve it once the attempt has ended (its outcome may resolve it already)."))
	return true
}

// RetryHandler serves POST /api/sync-error-assist/proposals/{id}/retry: sends the failed
// delivery again now and answers the row as the attempt left it (resolved, retrying or
// pending again).
func (o *Service) RetryHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, ok := syncerror.Who(w, r)
		if !ok || !syncerror.FeatureOn(w, r, o.Tenants, actor.TenantID) {
			return
		}
		if o.Retries == nil {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusServiceUnavailable, "retry_not_configured",
				"Retries are not configured for this service; nothing was sent."))
			return
		}
		c, ok := o.Load(w, r, actor.TenantID)
		if !ok {
			return
		}
		ctx := r.Context()
		wctx, cancel := writeContext(ctx)
		row, err := o.Retries.Attempt(wctx, actor, c)
		cancel()
		if errors.Is(err, syncerror.ErrOutcomeNotRecorded) {
			// The attempt ran: what it sent was sent. Never answered as a conflict.
			httpapi.Logger(ctx).Error("retry outcome not recorded", "id", c.ID, "error", err)
			httpapi.WriteJSON(w, http.StatusAccepted, map[string]any{"id": c.ID, "status": row.Status,
				"message": "The retry ran and was sent, but its outcome could not be recorded on the sync error (it may have changed meanwhile)."})
			return
		}
		if errors.Is(err, syncerror.ErrNotRetryable) {
			p := httpapi.NewProblem(http.StatusConflict, "not_retryable", "The sync error is "+string(c.Status)+
				" and cannot be retried now (a retry may be running).")
			httpapi.WriteProblem(w, r, p)
			return
		}
		if err != nil && row.ID == "" || errors.Is(err, syncerror.ErrStateChanged) || errors.Is(err, syncerror.ErrNotFound) {
			o.changed(w, r, c, err)
			return
		}
		if err != nil {
			// The attempt ran; only its outcome is not recorded yet. The schedule takes the
			// row again once the attempt's lease ends.
			httpapi.Logger(ctx).Error("retry outcome not recorded", "id", c.ID, "error", err)
			httpapi.WriteJSON(w, http.StatusAccepted, map[string]any{"id": c.ID, "status": syncerror.StatusRetrying,
				"message": "The retry ran but its outcome could not be recorded; the schedule completes it."})
			return
		}
		httpapi.WriteJSON(w, http.StatusOK, o.Detail(ctx, row))
	})
}

// changed answers a failed conditional change (false) or lets the caller go on (true).
func (o *Service) changed(w http.ResponseWriter, r *http.Request, c syncerror.Claim, err error) bool {
	switch {
	case err == nil:
		return true
	case errors.Is(err, syncerror.ErrNotFound):
		syncerror.NotFound(w, r)
	case errors.Is(err, syncerror.ErrStateChanged):
		if cur, gerr := o.Claims.Get(r.Context(), c.TenantID, c.ID); gerr == nil {
			conflict(w, r, cur, o.NowUTC())
		} else {
			httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusConflict, "state_changed", "The sync error changed meanwhile."))
		}
	default:
		httpapi.WriteUnavailable(w, r, err, "The queue is unavailable; nothing was changed. Retry shortly.")
	}
	return false
}
