// Package navcounts answers the console's navigation badges in one request: what waits in
// the queue, in finance and (for approvers) in governance. It reads each feature's own
// listing through its store, so it knows their keys no more than the console does.
package navcounts

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// Cap is the most a badge counts: each count is one page of its listing (one Query of one
// index partition), so a badge costs the same whatever waits; past it the badge says
// "100+" (More). Counting further would read every waiting row on every navigation.
const Cap = 100

// Count is one badge.
type Count struct {
	Pending int  `json:"pending"`
	More    bool `json:"more"`
}

// Counter counts what waits for one panel: at most Cap, and whether there is more.
type Counter func(ctx context.Context, tenantID string) (Count, error)

// Counts serves GET /api/console/counts.
type Counts struct {
	Queue, Finance Counter
	// Governance is counted for approvers only, who alone may open the panel; so is
	// Escalated, the sync errors escalated to an approver (the Escalated inbox).
	Governance, Escalated Counter
}

// Answer is the route's body; a panel the caller cannot open is left out.
type Answer struct {
	Queue      *Count `json:"queue,omitempty"`
	Finance    *Count `json:"finance,omitempty"`
	Governance *Count `json:"governance,omitempty"`
	Escalated  *Count `json:"escalated,omitempty"`
}

// ServeHTTP answers every count or, when one cannot be read, 503: a badge that silently
// reads 0 would tell an operator the queue is clear.
func (c *Counts) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, ok := identity.FromContext(r.Context())
	if !ok || !id.Attributable() {
		httpapi.WriteProblem(w, r, httpapi.NewProblem(http.StatusUnauthorized, "unauthenticated", "Sign in to read the counts."))
		return
	}
	var a Answer
	panels := []struct {
		count Counter
		dst   **Count
		show  bool
	}{
		{c.Queue, &a.Queue, true},
		{c.Finance, &a.Finance, true},
		{c.Governance, &a.Governance, id.HasRole(identity.RoleApprover)},
		{c.Escalated, &a.Escalated, id.HasRole(identity.RoleApprover)},
	}
	// The counts read three tables: at once, so the nav waits for the slowest, not the sum.
	errs := make([]error, len(panels))
	var wg sync.WaitGroup
	for i, p := range panels {
		if !p.show || p.count == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := p.count(r.Context(), id.TenantID)
			*p.dst, errs[i] = &n, err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		httpapi.WriteUnavailable(w, r, err, "The counts are unavailable; retry shortly.")
		return
	}
	httpapi.WriteJSON(w, http.StatusOK, a)
}

// Of counts a page: its length, and more when it has a next page.
func Of(items int, next string) Count { return Count{Pending: items, More: next != ""} }
