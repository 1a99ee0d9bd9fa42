package wire

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// retryFixture adds the retrier to the approve fixture: the real guard, the fake systems
// of governancetest, a two-step schedule and no jitter.
type retryFixture struct {
	*fixture
	rt    *syncerror.Retrier
	queue *syncerrortest.Queue
}

func newRetryFixture(t *testing.T) *retryFixture {
	f := newFixture(t)
	g := f.op.Fixes.(fixWriter).guard
	rf := &retryFixture{fixture: f, queue: &syncerrortest.Queue{}}
	rf.rt = &syncerror.Retrier{Claims: f.claims, Deliver: deliverer{guard: g}, Queue: rf.queue, Audit: f.op.Audit,
		Schedule: []time.Duration{5 * time.Minute, 30 * time.Minute}, Jitter: func(d time.Duration) time.Duration { return d },
		Now: func() time.Time { return f.now }}
	f.op.Retries = rf.rt
	return rf
}

// diagnosed claims a row and completes its diagnosis with class, then lets the retrier
// plan it as the worker does.
func (f *retryFixture) diagnosed(t *testing.T, errorID, class string) syncerror.Claim {
	t.Helper()
	ctx := context.Background()
	c := syncerror.NewClaim(syncerrortest.SampleRecord("acme", errorID), syncerror.SourceWebhook, "wh-1", f.now)
	if _, err := f.claims.Claim(ctx, c); err != nil {
		t.Fatal(err)
	}
	held, err := f.claims.BeginDiagnosis(ctx, "acme", c.ID, f.now, f.now)
	if err != nil {
		t.Fatal(err)
	}
	p := syncerrortest.SampleProposal("inf-1", f.now)
	p.Class, p.Fix = class, nil
	if err := f.claims.CompleteDiagnosis(ctx, "acme", c.ID, held.DiagnosisAttempts, p, f.now); err != nil {
		t.Fatal(err)
	}
	if err := f.rt.Plan(ctx, held, p); err != nil {
		t.Fatal(err)
	}
	return f.row(t, c.ID)
}

func unavailable() error {
	return &connector.Error{System: connector.SystemHostERP, Op: connector.OpWrite, Status: 503, Retryable: true, Err: connector.ErrUnavailable}
}

// A connection error is retried on schedule without a person: hidden from the queue while
// the host ERP refuses, resolved by the first attempt after it accepts writes again.
func TestAutomaticRetryResolvesOnceTheSystemIsBack(t *testing.T) {
	for _, class := range syncerror.RetryableClasses {
		t.Run(class, func(t *testing.T) { automaticRetryResolves(t, class) })
	}
}

func automaticRetryResolves(t *testing.T, class string) {
	f := newRetryFixture(t)
	ctx := context.Background()
	c := f.diagnosed(t, "E-1", class)
	if c.Status != syncerror.StatusRetrying || !c.Retry.NextAt.Equal(t0.Add(5*time.Minute)) {
		t.Fatalf("planned %s next %v", c.Status, c.Retry.NextAt)
	}
	if page, _ := f.claims.List(ctx, "acme", syncerror.ListQuery{Status: syncerror.StatusPending, Limit: 10}); len(page.Claims) != 0 {
		t.Fatal("a retrying row is shown as pending")
	}
	if n, err := f.rt.RunDue(ctx, "acme"); n != 0 || err != nil {
		t.Fatalf("ran %d before its time (err %v)", n, err)
	}
	f.conns.Err = unavailable()
	f.now = t0.Add(5 * time.Minute)
	if n, err := f.rt.RunDue(ctx, "acme"); n != 1 || err != nil {
		t.Fatalf("ran %d err %v", n, err)
	}
	row := f.row(t, c.ID)
	if row.Status != syncerror.StatusRetrying || row.Retry.Attempts != 1 || !row.Retry.NextAt.Equal(f.now.Add(30*time.Minute)) ||
		!strings.Contains(row.Retry.LastError, "unavailable") {
		t.Fatalf("after a transient failure %s %+v", row.Status, row.Retry)
	}
	f.conns.Err = nil
	f.now = f.now.Add(30 * time.Minute)
	if n, _ := f.rt.RunDue(ctx, "acme"); n != 1 {
		t.Fatalf("ran %d", n)
	}
	row = f.row(t, c.ID)
	if row.Status != syncerror.StatusResolved || row.Retry.Resolution != syncerror.ResolutionRetried || f.conns.Count() != 1 {
		t.Fatalf("after the system is back %s %+v, %d writes", row.Status, row.Retry, f.conns.Count())
	}
	w := f.conns.Writes()[0]
	if w.System != connector.SystemHostERP || w.Req.Entity != "salesOrder" || w.Req.RecordID != "SO-10042" || w.Req.Fields["shipcountry"] != "Deutschland" {
		t.Fatalf("write %+v", w)
	}
	var actions []string
	for _, h := range row.History {
		actions = append(actions, h.Action)
	}
	if got := strings.Join(actions, ","); got != "claimed,retry_scheduled,retry,retry_failed,retry,retried" || !strings.HasPrefix(row.History[1].Note, class) {
		t.Fatalf("history %s", got)
	}
	recs := f.audits.All()
	if last := recs[len(recs)-1]; last.ActionKey != "syncerror.retry" || last.Result != audit.ResultSuccess || last.Actor.Actor != "schedule:retry" {
		t.Fatalf("audit %+v", last)
	}
}

// Retry-After is honoured, and when the schedule runs out the row goes to people.
func TestAutomaticRetryHonoursRetryAfterThenGivesUp(t *testing.T) {
	f := newRetryFixture(t)
	ctx := context.Background()
	c := f.diagnosed(t, "E-1", "rate_limit")
	f.conns.Err = &connector.Error{System: connector.SystemHostERP, Op: connector.OpWrite, Status: 429, Retryable: true,
		RetryAfter: 2 * time.Hour, Err: connector.ErrRateLimited}
	f.now = t0.Add(5 * time.Minute)
	f.rt.RunDue(ctx, "acme")
	if row := f.row(t, c.ID); !row.Retry.NextAt.Equal(f.now.Add(2 * time.Hour)) {
		t.Fatalf("next %v, want Retry-After's 2h", row.Retry.NextAt)
	}
	f.now = f.now.Add(2 * time.Hour)
	f.rt.RunDue(ctx, "acme")
	row := f.row(t, c.ID)
	if row.Status != syncerror.StatusPending || row.Retry.Attempts != 2 || row.History[len(row.History)-1].Action != "retries_exhausted" {
		t.Fatalf("exhausted %s %+v", row.Status, row.Retry)
	}
}

// A permission error retried on request while the system still refuses returns to
// pending, re-diagnosed from the new error, with the attempt in its history.
func TestRetryOnRequestOfAPermissionErrorReturnsToPending(t *testing.T) {
	f := newRetryFixture(t)
	c := f.diagnosed(t, "E-1", "permission")
	if c.Status != syncerror.StatusPending {
		t.Fatalf("a permission error was planned for automatic retry: %s", c.Status)
	}
	f.conns.Err = &connector.Error{System: connector.SystemHostERP, Op: connector.OpWrite, Status: 403, Code: "INSUFFICIENT_PERMISSION",
		Err: connector.ErrUnauthorized}
	w := f.call(t, f.op.RetryHandler(), c.ID, "")
	if w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	var d syncerror.Detail
	if err := json.Unmarshal(w.Body.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	if d.Status != syncerror.StatusPending || d.Diagnosis != syncerror.DiagnosisQueued || d.RetryAttempts != 1 ||
		d.ErrorCode != "INSUFFICIENT_PERMISSION" || !strings.Contains(d.RetryError, "unauthorized") {
		t.Fatalf("answer %+v", d)
	}
	if sent := f.queue.Sent(); len(sent) != 1 || sent[0].ID != c.ID {
		t.Fatalf("re-diagnosis not queued: %+v", sent)
	}
	if n := len(d.History); d.History[n-2].Action != "retry" || d.History[n-2].Actor != "alice" || d.History[n-1].Action != "retry_failed" {
		t.Fatalf("history %+v", d.History)
	}
	// Again, now that the system accepts it: resolved.
	f.conns.Err = nil
	if w := f.call(t, f.op.RetryHandler(), c.ID, ""); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"resolution":"retried"`) {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if w := f.call(t, f.op.RetryHandler(), c.ID, ""); w.Code != http.StatusConflict {
		t.Fatalf("retry of a resolved row: %d %s", w.Code, w.Body)
	}
}

// A write that lands on a system pulls its waiting retries forward: here a person's
// retry of one row; the row waiting on the same system is due at once.
func TestAWriteThatLandsPullsRetriesForward(t *testing.T) {
	f := newRetryFixture(t)
	ctx := context.Background()
	waiting := f.diagnosed(t, "E-1", "connection")
	asked := f.diagnosed(t, "E-2", "permission")
	f.now = t0.Add(time.Minute)
	if w := f.call(t, f.op.RetryHandler(), asked.ID, ""); w.Code != http.StatusOK || f.row(t, asked.ID).Status != syncerror.StatusResolved {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	row := f.row(t, waiting.ID)
	if !row.Retry.NextAt.Equal(f.now) || row.History[len(row.History)-1].Action != "retry_pulled_forward" {
		t.Fatalf("not pulled forward: %v %+v", row.Retry.NextAt, row.History)
	}
	if n, _ := f.rt.RunDue(ctx, "acme"); n != 1 || f.row(t, waiting.ID).Status != syncerror.StatusResolved {
		t.Fatalf("the pulled retry did not run: %d %s", n, f.row(t, waiting.ID).Status)
	}
}

// Resolve closes a row with a reason and no write, audited; bulk retries and resolves
// run each item's own route, and bulk approve stays the approver's.
func TestResolveAndBulk(t *testing.T) {
	f := newRetryFixture(t)
	a, b, c := f.diagnosed(t, "E-1", "permission"), f.diagnosed(t, "E-2", "permission"), f.diagnosed(t, "E-3", "permission")
	if w := f.call(t, f.op.ResolveHandler(), a.ID, `{"reason":"fixed"}`); w.Code != http.StatusBadRequest {
		t.Fatalf("unknown reason: %d %s", w.Code, w.Body)
	}
	w := f.call(t, f.op.ResolveHandler(), a.ID, `{"reason":"not_an_error","note":"test order"}`)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"resolution":"not_an_error"`) || f.conns.Count() != 0 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	recs := f.audits.All()
	if last := recs[len(recs)-1]; last.ActionKey != "syncerror.resolve" || !strings.Contains(string(last.Details), "test order") {
		t.Fatalf("audit %+v", last)
	}
	if w := f.call(t, f.op.ResolveHandler(), a.ID, `{"reason":"duplicate"}`); w.Code != http.StatusConflict {
		t.Fatalf("resolve twice: %d", w.Code)
	}
	bulk := func(body string, roles ...string) (int, syncerror.BulkResult) {
		r := f.call(t, f.op.BulkHandler(), "", body)
		if len(roles) > 0 {
			r = f.callAs(t, f.op.BulkHandler(), body, roles...)
		}
		var res syncerror.BulkResult
		_ = json.Unmarshal(r.Body.Bytes(), &res)
		return r.Code, res
	}
	code, res := bulk(`{"action":"retry","ids":["` + b.ID + `","` + a.ID + `"]}`)
	if code != http.StatusOK || res.Succeeded != 1 || res.Results[0].Outcome != "retried" || res.Results[1].Status != http.StatusConflict {
		t.Fatalf("bulk retry %d %+v", code, res)
	}
	if row := f.row(t, b.ID); row.Status != syncerror.StatusResolved {
		t.Fatalf("bulk retried row %s", row.Status)
	}
	if code, res := bulk(`{"action":"resolve","reason":"duplicate","ids":["` + c.ID + `"]}`); code != http.StatusOK || res.Succeeded != 1 {
		t.Fatalf("bulk resolve %d %+v", code, res)
	}
	if code, _ := bulk(`{"action":"resolve","ids":["` + c.ID + `"]}`); code != http.StatusBadRequest {
		t.Fatalf("bulk resolve without a reason: %d", code)
	}
	// An operator reaches bulk approve (the approval policy decides each item); a resolved
	// row is not approved.
	if code, res := bulk(`{"action":"approve","ids":["`+c.ID+`"]}`, identity.RoleOperator); code != http.StatusOK || res.Failed != 1 {
		t.Fatalf("bulk approve by an operator: %d %+v", code, res)
	}
}

// callAs posts body as a caller with roles.
func (f *fixture) callAs(t *testing.T, h http.Handler, body string, roles ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/p/bulk", strings.NewReader(body))
	r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{Subject: "olga", TenantID: "acme", Roles: roles}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}
