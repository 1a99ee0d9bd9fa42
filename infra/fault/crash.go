package fault

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/syncassist/syncassist/shared/finance"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// The crash scenario stops approves between the ERP write and the completion write. A
// real crash (a Lambda timed out or killed mid-invocation) cannot be placed at that
// instant reliably, so the approve runs on its feature's real service with the store
// wrapped: every write after the ERP write fails, exactly as if the process had died there,
// and nothing the approve does afterwards reaches the row. The lease (3 s here) then
// expires and a second process completes the row: the reconcile's lease sweep, or the
// next approve taking the expired lease over. The fake ERP's write log and the gate's
// request log must show exactly one ERP write, and one ERP request, per approve.

// errCrashed is what the wrapped store answers once the approve has "died".
var errCrashed = errors.New("fault suite: the process died after the ERP write")

// crashLease is the approves' lease here: the recovery may start once it has passed. A
// finance approve gives its ERP update half the lease, so it is not shorter, lest a slow
// machine (CI under -race) time the update out before the crash point.
const crashLease = 3 * time.Second

// crashedClaims is the sync-error store of an approve that dies after its ERP write:
// completing fails, and so does marking the row applied unless keepMarker (the crash then
// falls between the marker and the completion).
type crashedClaims struct {
	syncerror.ClaimStore
	keepMarker bool
}

func (c crashedClaims) MarkApplied(ctx context.Context, tenantID, id, token string, w syncerror.AppliedWrite, now time.Time) error {
	if c.keepMarker {
		return c.ClaimStore.MarkApplied(ctx, tenantID, id, token, w, now)
	}
	return errCrashed
}

// CompleteApply is the approve's one write after the ERP's (marker and completion): it
// dies; the approve then stores the marker alone, which MarkApplied above lets through
// when keepMarker.
func (c crashedClaims) CompleteApply(context.Context, string, string, string, syncerror.AppliedWrite, syncerror.HistoryEntry, time.Time) (syncerror.Claim, error) {
	return syncerror.Claim{}, errCrashed
}

func (c crashedClaims) FinishApply(ctx context.Context, tenantID, id, token string, to syncerror.Status, applyErr string,
	entry syncerror.HistoryEntry, now time.Time) error {
	return errCrashed
}

// crashedApprovals is the finance store of an approve that dies after its ERP update was
// confirmed and marked (the marker is written with retries right after the update), before
// completeAccept.
type crashedApprovals struct{ finance.Store }

func (crashedApprovals) CompleteAccept(context.Context, string, string, string, string, time.Time) (finance.Approval, error) {
	return finance.Approval{}, errCrashed
}

func (crashedApprovals) Revert(context.Context, string, string, string, string, time.Time) error {
	return errCrashed
}

// crashItem is one approve that crashed, and how it is recovered.
type crashItem struct {
	feature, id, recordID string
	byApprove             bool // recovered by a second approve, else by the reconcile
}

// runCrash crashes cfg.CrashItems sync-error approves and as many finance approves after
// their ERP write, then recovers half of each by the reconcile and half by a second approve.
func runCrash(ctx context.Context, h *Harness, cfg Config) (row Row) {
	st, err := h.NewStage(ctx, stageName("crash"), StageOptions{})
	if err != nil {
		row.failf("stage: %v", err)
		return row
	}
	defer st.Close()
	logStart := h.Logs.Len()
	var items []crashItem
	synced, err := st.crashSyncErrorApproves(ctx, cfg.CrashItems)
	if err != nil {
		row.failf("sync-error approves: %v", err)
		return row
	}
	fin, err := st.crashFinanceApproves(ctx, cfg.CrashItems)
	if err != nil {
		row.failf("finance approves: %v", err)
		return row
	}
	items = append(synced, fin...)
	time.Sleep(crashLease + 200*time.Millisecond)
	start := time.Now()
	lat, err := st.recover(ctx, items)
	if err != nil {
		row.failf("recovery: %v", err)
	}
	row.latencies(fakeRun(len(items), time.Since(start)), lat)
	row.Rate = 0 // a handful of approves: no rate worth printing
	st.checkCrashed(ctx, &row, items)
	row.Leaked = st.logLeaks(logStart)
	row.Note = fmt.Sprintf("%d sync-error approves (half crashed before the applied marker: the reconcile finds the write in "+
		"the guard's ledger; half after it: a second approve takes the lease over) and %d finance approves (crashed after "+
		"the applied marker, before completeAccept) stopped after the ERP write; lease %s; half recovered by the reconcile, "+
		"half by a second approve; p50/p99 of the recoveries. Crash = store wrapper failing every write after the ERP write.",
		len(synced), len(fin), crashLease)
	return row
}

// crashSyncErrorApproves diagnoses n sync errors and approves each through an operator
// whose store dies after the ERP write.
func (st *Stage) crashSyncErrorApproves(ctx context.Context, n int) ([]crashItem, error) {
	posts := make([]Post, n)
	ids := make([]string, n)
	for i := range posts {
		ids[i] = fmt.Sprintf("FCRASH-%03d", i)
		posts[i] = Post{ErrorID: ids[i], MsgID: "msg_crash_" + ids[i], Body: syncErrorBody(ids[i], 900+i, false)}
		st.ERP.Seed("salesOrder", faultRecordID(ids[i]), map[string]any{"shipcountry": "Deutschland", "shipzip": "10115"})
	}
	if b := st.burst(ctx, posts, 2, nil); b.Run.Failures > 0 {
		return nil, fmt.Errorf("%d posts failed", b.Run.Failures)
	}
	st.StartPollers(1, nil)
	if s, err := st.settle(ctx, ids, time.Minute, false); err != nil || len(s.Missing)+len(s.Undiagnosed) > 0 {
		return nil, fmt.Errorf("claims not diagnosed: %+v %v", s, err)
	}
	var items []crashItem
	for i, errorID := range ids {
		op, err := st.Deps.Queue.Operator()
		if err != nil {
			return nil, err
		}
		keep := i%2 == 1
		op.Claims, op.LeaseTTL = crashedClaims{ClaimStore: op.Claims, keepMarker: keep}, crashLease
		id := rowIDOf(errorID)
		r := httptest.NewRequest(http.MethodPost, "/api/sync-error-assist/proposals/"+id+"/approve", strings.NewReader("{}"))
		r = r.WithContext(identity.WithAuth(ctx, approverPrincipal()))
		r.SetPathValue("id", id)
		w := httptest.NewRecorder()
		op.ApproveHandler().ServeHTTP(w, r)
		if w.Code != http.StatusAccepted {
			return nil, fmt.Errorf("crashed approve of %s answered %d, want 202 (written, not recorded): %s", id, w.Code, w.Body)
		}
		items = append(items, crashItem{feature: "syncerror", id: id, recordID: faultRecordID(errorID), byApprove: keep})
	}
	return items, nil
}

// crashFinanceApproves creates n finance approvals and approves each through a service
// whose store dies after the ERP update.
func (st *Stage) crashFinanceApproves(ctx context.Context, n int) ([]crashItem, error) {
	var items []crashItem
	for i := range n {
		a := financeApproval(fmt.Sprintf("FA-CRASH-%03d", i), fmt.Sprintf("VB-%d", 70000+i))
		if _, err := st.Deps.Finance.Store.Create(ctx, a); err != nil {
			return nil, err
		}
		st.ERP.Seed(a.Entity, a.ERPID, map[string]any{"approvalStatus": "pendingApproval", "amount": a.Amount})
		svc, err := finance.New(st.Deps.Base)
		if err != nil {
			return nil, err
		}
		svc.Store, svc.LeaseTTL = crashedApprovals{svc.Store}, crashLease
		who, _ := identity.FromContext(identity.WithAuth(ctx, approverPrincipal()))
		_, err = svc.Approve(ctx, who, a.ID, nil)
		var ae *finance.ApproveError
		if !errors.As(err, &ae) || !ae.Applied || ae.Cause != finance.CauseCompletionPending {
			return nil, fmt.Errorf("crashed finance approve of %s: %v, want completion pending after the ERP update", a.ID, err)
		}
		items = append(items, crashItem{feature: "finance", id: a.ID, recordID: a.ERPID, byApprove: i%2 == 1})
	}
	return items, nil
}

func financeApproval(id, erpID string) finance.Approval {
	now := time.Now().UTC().Truncate(time.Second)
	return finance.Approval{TenantID: tenantID, ID: id, ERPID: erpID, Entity: "vendorBill", Amount: "1250.00", Currency: "EUR",
		Vendor: "Nordwind Logistik GmbH", Description: "fault suite", RequestedBy: "m.keller", Fields: finance.DefaultFields,
		Status: finance.StatusPending, CreatedAt: now, UpdatedAt: now}
}

func approverPrincipal() identity.Principal {
	return identity.Principal{Subject: "fault-approver", TenantID: tenantID, Roles: []string{identity.RoleApprover}}
}

// recover completes the crashed approves: a second approve, through the API, of those
// marked byApprove, then one reconcile run for the others (first, it would complete all).
func (st *Stage) recover(ctx context.Context, items []crashItem) ([]time.Duration, error) {
	var lat []time.Duration
	for _, it := range items {
		if !it.byApprove {
			continue
		}
		path, req := "/api/sync-error-assist/proposals/"+it.id+"/approve", "{}"
		if it.feature == "finance" {
			// An approver who has confirmed the amount, whatever the tenant's threshold.
			path, req = "/api/finance-ops/approvals/"+it.id+"/approve", `{"confirm": true}`
		}
		t0 := time.Now()
		status, body, err := st.call(ctx, http.MethodPost, path, req)
		lat = append(lat, time.Since(t0))
		if err != nil || status != http.StatusOK {
			return lat, fmt.Errorf("second approve of %s: %d %s %v", it.id, status, body, err)
		}
	}
	t0 := time.Now()
	rep, err := st.Reconcile(ctx)
	if err != nil {
		return lat, err
	}
	lat = append(lat, time.Since(t0))
	// The reconcile's own count proves it (and not something else) completed the
	// sync-error rows left to it, from the guard's ledger.
	want := 0
	for _, it := range items {
		if it.feature == "syncerror" && !it.byApprove {
			want++
		}
	}
	if rep.LeasesCompleted != want {
		return lat, fmt.Errorf("the reconcile completed %d sync-error leases, want %d", rep.LeasesCompleted, want)
	}
	return lat, nil
}

// checkCrashed: every row completed, one ERP write and one ERP request per approve, as
// the fake ERP and the gate in front of it logged them.
func (st *Stage) checkCrashed(ctx context.Context, row *Row, items []crashItem) {
	applied, answered := st.erpWrites()
	requests := 0
	for _, e := range st.Gate.Log() {
		if isWrite(e.Method, e.Path) {
			requests++
		}
	}
	row.Ops = len(items)
	var records []string
	for _, it := range items {
		records = append(records, it.recordID)
		done, err := st.completed(ctx, it)
		if err != nil || !done {
			row.failf("%s %s not completed after the recovery (%v)", it.feature, it.id, err)
		}
	}
	countWrites(row, records, applied, answered)
	if requests != len(items) {
		row.failf("the ERP got %d write requests for %d approves (a recovery wrote again)", requests, len(items))
	}
}

// completed says the item's row ended approved (sync error) or accepted (finance).
func (st *Stage) completed(ctx context.Context, it crashItem) (bool, error) {
	if it.feature == "finance" {
		a, err := st.Deps.Finance.Store.Get(ctx, tenantID, it.id)
		return err == nil && a.Status == finance.StatusAccepted, err
	}
	c, err := st.Deps.Claims.Get(ctx, tenantID, it.id)
	return err == nil && c.Status == syncerror.StatusApproved, err
}

// call makes an approver's request to the stage's API.
func (st *Stage) call(ctx context.Context, method, path, body string) (int, string, error) {
	status, b, _, err := st.exchange(ctx, method, path, body)
	return status, b, err
}

// exchange is call that also returns the answer's headers.
func (st *Stage) exchange(ctx context.Context, method, path, body string) (int, string, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, method, st.URL+path, strings.NewReader(body))
	if err != nil {
		return 0, "", nil, err
	}
	req.Header.Set("Authorization", "Bearer approver@"+tenantID)
	req.Header.Set("Content-Type", "application/json")
	resp, err := st.Client.Do(req)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b), resp.Header, err
}
