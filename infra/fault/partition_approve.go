package fault

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// approveUnderThrottle is the write-back half of partition-throttle: once the burst has
// settled and been checked, the hot tenant's limits are put on again at a trickle (half a
// unit a second per approve, at least 2: a handful of approves at once, 13 DynamoDB calls
// each, overruns it) and n of its claims are approved at once, each approver approving
// again after a 5xx or a 409 (the lease of an approve cut off mid-way), as the console's
// user would; then the fault is lifted for the completion and the checks. The approves
// run on the operator with a 3 s lease (crashLease), so that an approve that wrote the ERP
// but could not record it (answered 202) is completed within the scenario: by the
// reconcile or by the approver's next approve taking the expired lease over. The checks:
// every row ends approved, the fake ERP applied exactly one write per record and answered
// one 2xx write request per record (a second write, or a replay, would be doubled), and no
// approve was answered 502 (the write refused) for a record whose write the ERP applied.
func (pt *PartitionThrottle) approveUnderThrottle(n int) func(context.Context, *Stage, *Row, []string) {
	return func(ctx context.Context, st *Stage, row *Row, unique []string) {
		ids := unique[:min(n, len(unique))]
		for _, errorID := range ids {
			st.ERP.Seed("salesOrder", faultRecordID(errorID), map[string]any{"shipcountry": "Deutschland", "shipzip": "10115"})
		}
		before, _, _ := pt.counts()
		trickle := max(2, float64(len(ids))/2)
		pt.SetLimits(trickle, trickle)
		answers := map[int]int{}
		var mu sync.Mutex
		var wrong []string
		start := time.Now()
		_ = parallel(len(ids), len(ids), func(i int) error {
			got := st.approveUntilDone(ctx, rowIDOf(ids[i]))
			mu.Lock()
			defer mu.Unlock()
			for _, code := range got {
				answers[code]++
				if code == http.StatusBadGateway {
					wrong = append(wrong, ids[i])
				}
			}
			return nil
		})
		// The fault ends with the approves: what follows completes and checks them.
		pt.Lift()
		after, _, _ := pt.counts()
		throttled := after[tenantID] - before[tenantID]
		// The reconcile completes a lease whose approve wrote and could not record; the
		// approver's next approve would too. Both run until every row is approved.
		time.Sleep(crashLease + 200*time.Millisecond)
		if _, err := st.Reconcile(ctx); err != nil {
			row.failf("reconcile after the approves: %v", err)
		}
		var records []string
		for _, errorID := range ids {
			records = append(records, faultRecordID(errorID))
			if got := st.approveUntilDone(ctx, rowIDOf(errorID)); len(got) > 0 && got[len(got)-1] >= 300 {
				answers[got[len(got)-1]]++
			}
			c, err := st.View.Claims.Get(ctx, tenantID, rowIDOf(errorID))
			if err != nil || c.Status != syncerror.StatusApproved {
				row.Lost++
				row.failf("%s not approved after the throttled approves (%v, %v)", errorID, c.Status, err)
			}
		}
		applied, answered := st.erpWrites()
		for _, id := range wrong {
			if applied[faultRecordID(id)] > 0 {
				row.failf("%s: an approve was answered 502 (not written) but the ERP applied the write", id)
			}
		}
		countWrites(row, records, applied, answered)
		if throttled == 0 {
			row.failf("no request of the approves was throttled")
		}
		codes := make([]int, 0, len(answers))
		for c := range answers {
			codes = append(codes, c)
		}
		sort.Ints(codes)
		var parts []string
		for _, c := range codes {
			parts = append(parts, fmt.Sprintf("%d×%d", answers[c], c))
		}
		row.Note += fmt.Sprintf(" Then %d claims approved at once with the tenant's limits at %.0f unit/s: %d requests throttled, "+
			"approve answers %s, every approve done in %.1f s; each row approved with one ERP write.", len(ids), trickle,
			throttled, strings.Join(parts, " "), time.Since(start).Seconds())
	}
}

// approveUntilDone approves id as an approver would until it is answered 200 (approved) or
// 202 (written, recorded later), or the row is approved already; it returns the status of
// every answer. A 5xx or a 409 is approved again 1.5 s later.
func (st *Stage) approveUntilDone(ctx context.Context, id string) []int {
	var codes []int
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if c, err := st.View.Claims.Get(ctx, tenantID, id); err == nil && c.Status == syncerror.StatusApproved {
			return codes
		}
		op, err := st.Deps.Queue.Operator()
		if err != nil {
			return append(codes, 0)
		}
		op.LeaseTTL = crashLease
		r := httptest.NewRequest(http.MethodPost, "/api/sync-error-assist/proposals/"+id+"/approve", strings.NewReader("{}"))
		r = r.WithContext(identity.WithAuth(ctx, approverPrincipal()))
		r.SetPathValue("id", id)
		w := httptest.NewRecorder()
		op.ApproveHandler().ServeHTTP(w, r)
		codes = append(codes, w.Code)
		if w.Code == http.StatusOK || w.Code == http.StatusAccepted {
			return codes
		}
		if w.Code < 500 && w.Code != http.StatusConflict {
			return codes
		}
		time.Sleep(1500 * time.Millisecond)
	}
	return codes
}
