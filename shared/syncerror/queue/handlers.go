package queue

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
)

// ListHandler serves GET /api/sync-error-assist/proposals?status=&limit=&cursor= with the
// filters, search and sort of listFilters; format=csv exports the same rows (export.go).
func (o *Service) ListHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := syncerror.Who(w, r)
		if !ok {
			return
		}
		q, ok := httpapi.ParseList(w, r, httpapi.ListSpec{DefaultLimit: syncerror.DefaultListLimit, MaxLimit: syncerror.MaxListLimit,
			Statuses: ListStatuses()})
		if !ok {
			return
		}
		lq, sort, ok := ListFilters(w, r, id, syncerror.ListQuery{Status: syncerror.Status(q.Status), Limit: q.Limit, Cursor: q.Cursor})
		if !ok {
			return
		}
		names := o.SystemNames(r.Context(), id.TenantID)
		lq = WithSystemNames(names, lq)
		switch r.URL.Query().Get("format") {
		case "", "json":
		case "csv":
			o.exportCSV(w, r, id.TenantID, lq, sort)
			return
		default:
			// Refused like every other filter's bad value, never answered as JSON (issue 36 §2).
			httpapi.WriteInvalidQuery(w, r, []httpapi.FieldError{{Field: "format", Message: "must be json or csv"}})
			return
		}
		page, partial, err := o.sortedPage(r.Context(), id.TenantID, lq, sort)
		if errors.Is(err, syncerror.ErrBadCursor) {
			httpapi.WriteBadCursor(w, r)
			return
		}
		if err != nil {
			httpapi.WriteUnavailable(w, r, err, "The queue is unavailable; retry shortly.")
			return
		}
		if partial {
			w.Header().Set(SortWindowHeader, strconv.Itoa(SortWindow))
		}
		items := make([]Summary, len(page.Claims))
		rows := make([]*Summary, len(page.Claims))
		for i, c := range page.Claims {
			items[i], rows[i] = o.Summarize(r.Context(), c), &items[i]
		}
		nameSystems(names, rows)
		o.Annotate(r.Context(), id.TenantID, rows, page.Claims)
		writeListing(w, items, page.NextCursor, q.Cursor == "", names)
	})
}

// DetailHandler serves GET /api/sync-error-assist/proposals/{id}.
func (o *Service) DetailHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := syncerror.Who(w, r)
		if !ok {
			return
		}
		c, ok := o.Load(w, r, id.TenantID)
		if ok {
			d := o.Detail(r.Context(), c)
			nameSystems(o.SystemNames(r.Context(), id.TenantID), []*Summary{&d.Summary})
			pol, err := o.TenantPolicy(r.Context(), id.TenantID)
			o.annotate(r.Context(), pol, err, []*Summary{&d.Summary}, []syncerror.Claim{c})
			if err == nil {
				o.showCoApproval(r.Context(), pol, c, &d)
			}
			httpapi.WriteJSON(w, http.StatusOK, d)
		}
	})
}

// showCoApproval puts on d the row's two-approver round (one more read, only when the
// tenant's policy has a two_approvers rule). An edit waiting for its second approval is
// what an approve without a fix approves and writes (policy/coapproval.go): the detail
// judges it by the policy, unmasks the record's fields it writes, and leaves out a kept
// edit it supersedes, and its fixKey names it. Unreadable, the detail is shown without it:
// an approve reads it again (and, sent the row's fixKey, refuses an edit that waits).
func (o *Service) showCoApproval(ctx context.Context, pol *policy.Policy, c syncerror.Claim, d *Detail) {
	ca, err := o.CoApprovalOf(ctx, pol, c)
	if err != nil {
		httpapi.Logger(ctx).Error("co-approval unreadable; detail shown without it", "id", c.ID, "error", err)
		return
	}
	if ca == nil {
		return
	}
	d.CoApproval = o.coApprovalView(ctx, c, ca)
	if ca.Fix == nil {
		return
	}
	d.EditedFix, d.EditKept = nil, ""
	d.FixKey = fixKey(c, ca.Fix)
	d.Error = o.Mask.Show(c.Record, ca.Fix)
	viewer, _ := identity.FromContext(ctx)
	dec := pol.Decide(policy.FactsOf(c, ca.Fix))
	d.Approval, d.Decider = &dec, dec.Decider(c.Status, viewer.HasRole(identity.RoleApprover))
}
