package queue

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
)

// SortWindow is how many rows a class or confidence sort orders. DynamoDB keeps a status's
// rows in claim order only (the by_status index); a sort on anything else must read the
// rows and order them itself, so it orders the newest SortWindow rows that pass the
// filters (at most SortWindow/MaxListLimit store pages, each bounded by ListScanCap) and
// says when the status held more (Page.Partial). Paging through the sorted window re-reads
// it; its cursor is a position in it.
const SortWindow = 500

// SortWindowHeader is set on a sorted page when the status held more rows than the sorted
// window: its value is the window's size, and the console says the sort is of those rows.
const SortWindowHeader = "X-Sort-Window"

// windowed reports whether q in sort order is answered from a bounded window: a sort
// with no index, or the decider filter (the approval policy is not in the table).
func windowed(q syncerror.ListQuery, sort string) bool {
	return sort == SortClass || sort == SortConfidence || sort == SortEscalated || q.Decider != ""
}

// sortedPage answers one page of the listing in the order sort names.
func (o *Service) sortedPage(ctx context.Context, tenantID string, q syncerror.ListQuery, sort string) (syncerror.Page, bool, error) {
	if !windowed(q, sort) {
		p, err := o.list(ctx, tenantID, q)
		return p, false, err
	}
	off := 0
	if q.Cursor != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(q.Cursor, "w"))
		if err != nil || !strings.HasPrefix(q.Cursor, "w") || n < 0 || n > SortWindow {
			return syncerror.Page{}, false, syncerror.ErrBadCursor
		}
		off = n
	}
	all, partial, err := o.Collect(ctx, tenantID, q, SortWindow)
	if err != nil {
		return syncerror.Page{}, false, err
	}
	// Stable on the newest-first read: among equals the newest row comes first.
	switch sort {
	case SortOldest:
		slices.Reverse(all)
	case SortClass, SortConfidence, SortEscalated:
		slices.SortStableFunc(all, func(a, b syncerror.Claim) int {
			switch sort {
			case SortClass:
				return cmp.Compare(classOf(a), classOf(b))
			case SortEscalated:
				return escalatedAt(b).Compare(escalatedAt(a))
			}
			return -cmp.Compare(confidenceOf(a), confidenceOf(b))
		})
	}
	off = min(off, len(all))
	end := min(off+q.Limit, len(all))
	p := syncerror.Page{Claims: all[off:end]}
	if end < len(all) {
		p.NextCursor = "w" + strconv.Itoa(end)
	}
	return p, partial, nil
}

// Collect reads up to max rows of q from the first page on, newest first, and reports
// whether more were left. It reads at most 2·max/MaxListLimit store pages, each bounded by
// ListScanCap, so a filter that matches little cannot make it read the whole status. The
// decider filter keeps the rows it names among those read.
func (o *Service) Collect(ctx context.Context, tenantID string, q syncerror.ListQuery, max int) ([]syncerror.Claim, bool, error) {
	keep, err := o.deciderFilter(ctx, tenantID, q)
	if err != nil {
		return nil, false, err
	}
	var claims []syncerror.Claim
	q.Cursor, q.Limit, q.Oldest = "", syncerror.MaxListLimit, false
	for pages := 1; ; pages++ {
		page, err := o.list(ctx, tenantID, q)
		if err != nil {
			return nil, false, err
		}
		claims = append(claims, slices.DeleteFunc(page.Claims, func(c syncerror.Claim) bool { return !keep(c) })...)
		if q.Cursor = page.NextCursor; q.Cursor == "" {
			return claims, false, nil
		}
		if len(claims) >= max || pages >= 2*max/syncerror.MaxListLimit {
			return claims[:min(max, len(claims))], true, nil
		}
	}
}

// deciderFilter keeps the rows whose decider (for the viewer q names) is q.Decider; every
// row when q has none. It reads the tenant's policy once.
func (o *Service) deciderFilter(ctx context.Context, tenantID string, q syncerror.ListQuery) (func(syncerror.Claim) bool, error) {
	if q.Decider == "" {
		return func(syncerror.Claim) bool { return true }, nil
	}
	pol, err := o.TenantPolicy(ctx, tenantID)
	if err != nil {
		return nil, err
	}
	return func(c syncerror.Claim) bool {
		d, ok := policy.DecisionOf(pol, c)
		return ok && d.Decider(c.Status, q.Approver) == q.Decider
	}, nil
}

// escalatedAt is when c was escalated (its newest escalate), else when it was claimed.
func escalatedAt(c syncerror.Claim) time.Time {
	for i := len(c.History) - 1; i >= 0; i-- {
		if c.History[i].Action == "escalated" {
			return c.History[i].At
		}
	}
	return c.ClaimedAt
}

// classOf sorts undiagnosed rows last.
func classOf(c syncerror.Claim) string {
	if c.Proposal == nil {
		return "~"
	}
	return c.Proposal.Class
}

func confidenceOf(c syncerror.Claim) float64 {
	if c.Proposal == nil {
		return -1
	}
	return c.Proposal.Confidence
}
