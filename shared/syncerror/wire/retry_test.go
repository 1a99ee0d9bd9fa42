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
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/retries"
)

// A connection error is retried on schedule without a person: hidden from the queue while
// the host ERP refuses, then the host ERP is asked to re-run the sync, and the row
// resolves once its script answers that the re-run landed.
func TestAutomaticRetryResolvesOnceTheSystemIsBack(t *testing.T) {
	for _, class := range retries.RetryableClasses {
		t.Run(class, func(t *testing.T) { automaticRetryResolves(t, class) })
	}
}

func automaticRetryResolves(t *testing.T, class string) {
	e := newHostEnv(t)
	ctx := context.Background()
	c := e.hostError(t, "E-1", class, nil)
	if c.Status != syncerror.StatusRetrying || !c.Retry.NextAt.Equal(t0.Add(5*time.Minute)) {
		t.Fatalf("planned %s next %v", c.Status, c.Retry.NextAt)
	}
	if page, _ := e.claims.List(ctx, "acme", syncerror.ListQuery{Status: syncerror.StatusPending, Limit: 10}); len(page.Claims) != 0 {
		t.Fatal("a retrying row is shown as pending")
	}
	if n, err := e.rt.RunDue(ctx, "acme"); n != 0 || err != nil {
		t.Fatalf("ran %d before its time (err %v)", n, err)
	}
	e.down.Store(503)
	row := e.due(t, c.ID)
	if row.Status != syncerror.StatusRetrying || row.Retry.Attempts != 1 || !row.Retry.NextAt.Equal(e.now.Add(30*time.Minute)) ||
		!strings.Contains(row.Retry.LastError, "unavailable") || row.Retry.Log[0].Class != syncerror.AttemptConnection {
		t.Fatalf("after a transient failure %s %+v", row.Status, row.Retry)
	}
	e.down.Store(0)
	if row = e.due(t, c.ID); row.Status != syncerror.StatusRetrying || row.Retry.Log[1].Result != syncerror.DeliveryRequested {
		t.Fatalf("once back, the host ERP is asked: %s %+v", row.Status, row.Retry.Log)
	}
	e.script(c, "succeeded", "re-ran the sync of salesorder SO-10042")
	row = e.due(t, c.ID)
	if row.Status != syncerror.StatusResolved || row.Retry.Resolution != syncerror.ResolutionRetried {
		t.Fatalf("after the re-run %s %+v", row.Status, row.Retry)
	}
	if row.Record.ErrorCode != c.Record.ErrorCode || row.Record.Message != c.Record.Message || len(row.Retry.Log) != 3 {
		t.Fatalf("the error as received %+v, attempts %+v", row.Record, row.Retry.Log)
	}
	if got := strings.Join(actions(row), ","); got != "claimed,retry_scheduled,retry,retry_failed,retry,retry_requested,retry,retried" ||
		!strings.HasPrefix(row.History[1].Note, class) {
		t.Fatalf("history %s", got)
	}
	recs := e.audits.All()
	if last := recs[len(recs)-1]; last.ActionKey != "syncerror.retry" || last.Result != audit.ResultSuccess || last.Actor.Actor != "schedule:retry" {
		t.Fatalf("audit %+v", last)
	}
}

// Retry-After is honoured, and when the schedule runs out the row goes to people.
func TestAutomaticRetryHonoursRetryAfterThenGivesUp(t *testing.T) {
	e := newHostEnv(t)
	e.rt.Schedule = e.rt.Schedule[:2]
	c := e.hostError(t, "E-1", "rate_limit", nil)
	e.down.Store(429)
	row := e.due(t, c.ID)
	if !row.Retry.NextAt.Equal(e.now.Add(2*time.Hour)) || row.Retry.Log[0].Code != "CONCURRENCY_LIMIT_EXCEEDED" {
		t.Fatalf("next %v, want Retry-After's 2h; attempts %+v", row.Retry.NextAt, row.Retry.Log)
	}
	row = e.due(t, c.ID)
	if row.Status != syncerror.StatusPending || row.Retry.Attempts != 2 || row.History[len(row.History)-1].Action != "retries_exhausted" {
		t.Fatalf("exhausted %s %+v", row.Status, row.Retry)
	}
}

// A permission error retried on request while the host still refuses returns to pending
// with the attempt listed, the vendor's code on it; the error as received and its
// diagnosis stay, three failed attempts later too.
func TestFailedRetriesKeepTheErrorAsReceived(t *testing.T) {
	e := newHostEnv(t)
	c := e.hostError(t, "E-1", "permission", nil)
	if c.Status != syncerror.StatusPending {
		t.Fatalf("a permission error was planned for automatic retry: %s", c.Status)
	}
	var d queue.Detail
	for i := range 3 {
		e.down.Store(403)
		if i == 1 {
			// The host answers; its re-run failed.
			e.down.Store(0)
			e.script(c, "failed", "SSS_CONNECTION_TIME_OUT")
		}
		w := e.call(t, e.op.RetryHandler(), c.ID, "")
		if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &d) != nil {
			t.Fatalf("retry %d: %d %s", i, w.Code, w.Body)
		}
		if d.Status != syncerror.StatusPending {
			t.Fatalf("retry %d ended %s", i, d.Status)
		}
	}
	if d.ErrorCode != c.Record.ErrorCode || d.Error.Message != c.Record.Message || d.Diagnosis != syncerror.DiagnosisReady ||
		d.Class != "permission" || d.RetryAttempts != 3 {
		t.Fatalf("the error or its diagnosis changed: %+v", d.Summary)
	}
	if len(d.Attempts) != 3 || d.Attempts[0].Code != "INSUFFICIENT_PERMISSION" || d.Attempts[0].Class != syncerror.AttemptPermission ||
		d.Attempts[1].Code != "RETRY_FAILED_AT_HOST" || !strings.Contains(d.Attempts[1].Reason, "SSS_CONNECTION_TIME_OUT") ||
		d.Attempts[2].Code != "INSUFFICIENT_PERMISSION" || d.Attempts[0].Actor != "alice" {
		t.Fatalf("attempts %+v", d.Attempts)
	}
	if n := len(d.History); d.History[n-2].Action != "retry" || d.History[n-1].Action != "retry_failed" {
		t.Fatalf("history %+v", d.History)
	}
	// Again, now that the host re-runs it: asked, then resolved.
	e.down.Store(0)
	e.call(t, e.op.RetryHandler(), c.ID, "")
	e.script(c, "succeeded", "")
	if w := e.call(t, e.op.RetryHandler(), c.ID, ""); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"resolution":"retried"`) {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if w := e.call(t, e.op.RetryHandler(), c.ID, ""); w.Code != http.StatusConflict {
		t.Fatalf("retry of a resolved row: %d %s", w.Code, w.Body)
	}
}

// A re-run that lands pulls the host's waiting retries forward: here a person's retry of
// one row; the row waiting on the same system is due at once.
func TestAReRunThatLandsPullsRetriesForward(t *testing.T) {
	e := newHostEnv(t)
	ctx := context.Background()
	waiting := e.hostError(t, "E-1", "connection", nil)
	asked := e.hostError(t, "E-2", "permission", nil)
	e.script(asked, "succeeded", "")
	e.now = t0.Add(time.Minute)
	if w := e.call(t, e.op.RetryHandler(), asked.ID, ""); w.Code != http.StatusOK || e.row(t, asked.ID).Status != syncerror.StatusResolved {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	row := e.row(t, waiting.ID)
	if !row.Retry.NextAt.Equal(e.now) || row.History[len(row.History)-1].Action != "retry_pulled_forward" {
		t.Fatalf("not pulled forward: %v %+v", row.Retry.NextAt, row.History)
	}
	e.script(waiting, "succeeded", "")
	if n, _ := e.rt.RunDue(ctx, "acme"); n != 1 || e.row(t, waiting.ID).Status != syncerror.StatusResolved {
		t.Fatalf("the pulled retry did not run: %d %s", n, e.row(t, waiting.ID).Status)
	}
}

// Resolve closes a row with a reason and no write, audited; bulk retries and resolves
// run each item's own route, and bulk approve stays the approver's.
func TestResolveAndBulk(t *testing.T) {
	e := newHostEnv(t)
	f := e.fixture
	a, b, c := e.hostError(t, "E-1", "permission", nil), e.hostError(t, "E-2", "permission", nil), e.hostError(t, "E-3", "permission", nil)
	e.script(b, "succeeded", "")
	if w := f.call(t, f.op.ResolveHandler(), a.ID, `{"reason":"fixed"}`); w.Code != http.StatusBadRequest {
		t.Fatalf("unknown reason: %d %s", w.Code, w.Body)
	}
	w := f.call(t, f.op.ResolveHandler(), a.ID, `{"reason":"not_an_error","note":"test order"}`)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"resolution":"not_an_error"`) || len(e.host.Writes()) != 0 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	recs := f.audits.All()
	if last := recs[len(recs)-1]; last.ActionKey != "syncerror.resolve" || !strings.Contains(string(last.Details), "test order") {
		t.Fatalf("audit %+v", last)
	}
	if w := f.call(t, f.op.ResolveHandler(), a.ID, `{"reason":"duplicate"}`); w.Code != http.StatusConflict {
		t.Fatalf("resolve twice: %d", w.Code)
	}
	bulk := func(body string, roles ...string) (int, decisions.BulkResult) {
		r := f.call(t, f.op.BulkHandler(), "", body)
		if len(roles) > 0 {
			r = f.callAs(t, f.op.BulkHandler(), body, roles...)
		}
		var res decisions.BulkResult
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
	if code, res := bulk(`{"action":"approve","fixKeys":["`+fixKey(f.row(t, c.ID))+`"],"ids":["`+c.ID+`"]}`, identity.RoleOperator); code != http.StatusOK || res.Failed != 1 {
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

// midResolve is a host that takes the re-run request; while it does, another operator
// resolves the row.
type midResolve struct {
	t     *testing.T
	f     *fixture
	wrote int
}

func (m *midResolve) Target(syncerror.Claim) string { return "hosterp" }
func (m *midResolve) Rerun(_ context.Context, _ string, c syncerror.Claim, _ string) syncerror.Delivery {
	if w := m.f.call(m.t, m.f.op.ResolveHandler(), c.ID, `{"reason":"fixed_at_source"}`); w.Code != http.StatusOK {
		m.t.Logf("mid-attempt resolve: %d %s", w.Code, w.Body)
	}
	m.wrote++ // the host ERP was asked to re-run the sync (a write to its record)
	return syncerror.Delivery{Result: syncerror.DeliveryRequested, System: "hosterp", Reason: "asked the host ERP to re-run the sync"}
}

// A resolve while a retry attempt is writing does not take the row from under it: the
// attempt's outcome is recorded and the retry answers what it sent, never 409.
func TestResolveWaitsForAnAttemptInFlight(t *testing.T) {
	f := newFixture(t)
	c := f.ready(t, "E-1")
	d := &midResolve{t: t, f: f}
	f.op.Retries = &retries.Retrier{Claims: f.claims, Deliver: d, Now: func() time.Time { return f.now }}
	w := f.call(t, f.op.RetryHandler(), c.ID, "")
	row := f.row(t, c.ID)
	if d.wrote == 1 && (w.Code == http.StatusConflict || row.Status == syncerror.StatusResolved) {
		t.Fatalf("the re-run was requested from the host, but the retry answered %d %s and the row is %s with %d attempts logged",
			w.Code, code(w), row.Status, len(row.Retry.Log))
	}
}

type midResolveSeen struct {
	midResolve
	seen *httptest.ResponseRecorder
}

func (m *midResolveSeen) Rerun(_ context.Context, _ string, c syncerror.Claim, _ string) syncerror.Delivery {
	m.seen = m.f.call(m.t, m.f.op.ResolveHandler(), c.ID, `{"reason":"fixed_at_source"}`)
	return syncerror.Delivery{Result: syncerror.DeliveryRequested, System: "hosterp", Reason: "re-run asked"}
}

// A resolve held back by a live attempt (Idle) says an attempt is running and until when,
// not that a retrying row cannot be resolved (it can).
func TestAResolveHeldByAnAttemptSaysWhy(t *testing.T) {
	f := newFixture(t)
	c := f.ready(t, "E-1")
	d := &midResolveSeen{midResolve: midResolve{t: t, f: f}}
	f.op.Retries = &retries.Retrier{Claims: f.claims, Deliver: d, Now: func() time.Time { return f.now }}
	f.call(t, f.op.RetryHandler(), c.ID, "")
	if d.seen == nil {
		t.Fatal("no resolve ran during the attempt")
	}
	if d.seen.Code != http.StatusConflict || code(d.seen) != "attempt_running" || !strings.Contains(d.seen.Body.String(), "until 20") {
		t.Fatalf("resolve during an attempt: %d %s", d.seen.Code, d.seen.Body)
	}
}
