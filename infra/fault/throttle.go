package fault

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/syncassist/syncassist/infra/bench/loadgen"
	"github.com/syncassist/syncassist/shared/finance"
)

// throttleRetryAfter is what the refusing ERP asks a client to wait: within the connector's
// MaxRetryAfter, so the connector waits it out itself rather than giving up at once.
const throttleRetryAfter = time.Second

// throttleLease is the finance approves' lease in the scenario.
const throttleLease = 5 * time.Second

// approverPause is how long the approver waits before approving again after a 5xx answer.
const approverPause = 1500 * time.Millisecond

// throttleOutage refuses every request until end: in turn 429 with Retry-After and the
// X-RateLimit-* reset headers, 503, and 500.
func throttleOutage(end time.Time) func(now time.Time, n int) (int, time.Duration) {
	return func(now time.Time, n int) (int, time.Duration) {
		if !now.Before(end) {
			return 0, 0
		}
		switch n % 3 {
		case 0:
			return http.StatusTooManyRequests, throttleRetryAfter
		case 1:
			return http.StatusServiceUnavailable, 0
		}
		return http.StatusInternalServerError, 0
	}
}

// runThrottle: the fake ERP answers only 429 (with reset headers) and 5xx for
// cfg.ThrottleWindow while approvers approve cfg.ThrottleApprovals finance approvals and
// approve again after each 5xx. Every approval must end accepted with exactly one ERP
// write, and no retry may come before the Retry-After it was given.
func runThrottle(ctx context.Context, h *Harness, cfg Config) (row Row) {
	// An approve whose ERP answer was lost holds its row until its lease ends: short here,
	// so that the approver's next approve settles it within the scenario.
	st, err := h.NewStage(ctx, stageName("throttle"), StageOptions{FinanceLease: throttleLease})
	if err != nil {
		row.failf("stage: %v", err)
		return row
	}
	defer st.Close()
	logStart := h.Logs.Len()
	ids := make([]string, cfg.ThrottleApprovals)
	records := make([]string, len(ids))
	for i := range ids {
		a := financeApproval(fmt.Sprintf("FA-THR-%03d", i), fmt.Sprintf("VB-%d", 80000+i))
		if _, err := st.Deps.Finance.Store.Create(ctx, a); err != nil {
			row.failf("create: %v", err)
			return row
		}
		st.ERP.Seed(a.Entity, a.ERPID, map[string]any{"approvalStatus": "pendingApproval", "amount": a.Amount})
		ids[i], records[i] = a.ID, a.ERPID
	}
	st.Gate.SetOutage(throttleOutage(time.Now().Add(cfg.ThrottleWindow)))
	var mu sync.Mutex
	var lat []time.Duration
	var retried int64
	res := loadgen.Measure("approve", len(ids), len(ids), func(i int) error {
		l, n, err := st.approveUntilAccepted(ctx, ids[i], cfg.ThrottleWindow+throttleLease+time.Minute)
		mu.Lock()
		lat = append(lat, l...)
		mu.Unlock()
		atomic.AddInt64(&retried, int64(n))
		return err
	})
	st.Gate.SetOutage(nil)
	row.latencies(res, lat)
	row.Ops, row.Rate = len(lat), float64(len(lat))/res.Elapsed.Seconds()
	row.Retried = int(retried)
	if res.Failures > 0 {
		row.failf("%d approvals never accepted", res.Failures)
	}
	st.checkThrottled(ctx, &row, ids, records, cfg.ThrottleWindow)
	row.Leaked = st.logLeaks(logStart)
	return row
}

// approveUntilAccepted approves id through the API until it is accepted, pausing after
// each refusal as an approver would; it returns each request's latency and the refusals.
func (st *Stage) approveUntilAccepted(ctx context.Context, id string, timeout time.Duration) ([]time.Duration, int, error) {
	var lat []time.Duration
	deadline := time.Now().Add(timeout)
	for refused := 0; ; refused++ {
		t0 := time.Now()
		status, body, h, err := st.exchange(ctx, http.MethodPost, "/api/finance-ops/approvals/"+id+"/approve", `{"confirm": true}`)
		lat = append(lat, time.Since(t0))
		if err == nil && status == http.StatusOK {
			return lat, refused, nil
		}
		if time.Now().After(deadline) {
			return lat, refused, fmt.Errorf("%s: still %d after %s: %s %v", id, status, timeout, body, err)
		}
		pause := approverPause
		if s, err := strconv.Atoi(h.Get("Retry-After")); err == nil && status == http.StatusConflict {
			// The row is held until its lease ends (an approve whose outcome is being
			// settled): the approver waits for it rather than ask every second.
			pause = time.Duration(s) * time.Second
		}
		time.Sleep(pause)
	}
}

// checkThrottled: every approval accepted with one ERP write (by record, as the fake ERP
// and its gate logged them); every request that followed
// a 429 for the same write came after its Retry-After.
func (st *Stage) checkThrottled(ctx context.Context, row *Row, ids, records []string, window time.Duration) {
	applied, answered := st.erpWrites()
	countWrites(row, records, applied, answered)
	for _, id := range ids {
		if a, err := st.Deps.Finance.Store.Get(ctx, tenantID, id); err != nil || a.Status != finance.StatusAccepted {
			row.failf("%s is %s (%v), want accepted", id, a.Status, err)
		}
	}
	log := st.Gate.Log()
	last := map[string]GateEntry{}
	early, throttled, failed := 0, 0, 0
	for _, e := range log {
		// A write is retried as a read then a write of the same record (read-compare-write;
		// the vendors have no idempotency key), so a retry is the next request for the path.
		if isQuery(e.Path) {
			continue // the reconcile's poll, not a write being retried
		}
		if p, ok := last[e.Path]; ok && p.Status == http.StatusTooManyRequests && e.At.Before(p.At.Add(p.RetryAfter)) {
			early++
		}
		switch {
		case e.Status == http.StatusTooManyRequests:
			throttled++
		case e.Status >= 500:
			failed++
		}
		last[e.Path] = e
	}
	if throttled == 0 || failed == 0 {
		row.failf("the outage was never met: %d answers 429, %d answers 5xx", throttled, failed)
	}
	if early > 0 {
		row.failf("%d ERP requests came before the Retry-After of the 429 before them", early)
	}
	row.Note = fmt.Sprintf("%d finance approvals approved through the API while the fake ERP answered only 429 (Retry-After %s, "+
		"X-RateLimit-Reset) and 500/503 for %s; the approver approves again %s after each 5xx answer (after a lease_held, once its Retry-After has passed). The ERP got %d requests: "+
		"%d answered 429, %d answered 5xx, %d retries came before their Retry-After. ops are approve requests.",
		len(ids), throttleRetryAfter, window, approverPause, len(log), throttled, failed, early)
}
