package governance_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// approveBy serves an approve of id as approverT1 with the request's deadline at timeout.
func approveBy(h http.Handler, id string, timeout time.Duration) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/api/governance/approvals/"+id+"/approve", nil)
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	ctx = httpapi.WithCorrelation(ctx, httpapi.Logger(ctx), "corr-test")
	ctx = identity.WithAuth(ctx, identity.Principal{Subject: approverT1.subject, TenantID: "t1", Roles: approverT1.roles})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r.WithContext(ctx))
	return w
}

// waitFor polls cond until it holds: a write whose answer was lost lands late (the fake
// delays it 800 ms). The 30 s is a bound, not a wait: two seconds failed run 142, where the
// race lane ran beside other work at a load of 20 on two cores and the delayed write had
// not yet been counted.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("timed out")
		}
	}
}

// A release whose write reached the CRM but whose answer was lost (the CRM commits after
// the approve's deadline) is not answered write_failed ("the target system did not accept
// the write") and is not returned to pending, where an approver could deny it while the
// CRM holds the value: it is unsettled, answered 502 release_unsettled, audited, and a
// deny of it is refused.
func TestAReleaseWhoseAnswerWasLostIsNotReportedRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.holdOptIn("t1", "C-1")
	h := e.api()
	e.fakes[crm].DelayNext(1, 0)                    // the read of read-compare-write
	e.fakes[crm].DelayNext(1, 800*time.Millisecond) // the PATCH: applied, answered after the deadline
	w := approveBy(h, a.ID, 300*time.Millisecond)
	waitFor(t, func() bool { rec, _ := e.fakes[crm].Get("contact", "C-1"); return rec.Fields["marketingOptIn"] == true })
	if code, _ := problemCode(t, w); w.Code != http.StatusBadGateway || code != governance.CodeReleaseUnsettled {
		t.Fatalf("the write landed, but the release answered %d %s", w.Code, code)
	}
	if got := approvalStatus(t, e, "t1", a.ID); got.Status != governance.StatusUnsettled || got.DecidedBy != "victor" {
		t.Fatalf("after a lost answer: %+v", got)
	}
	deny := &caller{"t1", "wendy", []string{identity.RoleApprover}}
	d := serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/deny", deny)
	if code, _ := problemCode(t, d); d.Code != http.StatusConflict || code != governance.CodeReleaseUnsettled {
		t.Fatalf("deny of an unsettled release: %d %s", d.Code, d.Body)
	}
	if got := approvalStatus(t, e, "t1", a.ID); got.Status != governance.StatusUnsettled {
		t.Fatalf("after the deny: %+v", got)
	}
	var audited bool
	for _, r := range e.audits(governance.ActionApprove) {
		audited = audited || r.Result == "failure" && strings.Contains(string(r.Details), `"problem":"`+governance.CodeReleaseUnsettled+`"`)
	}
	if !audited {
		t.Fatalf("the unsettled release is not audited: %+v", e.audits(governance.ActionApprove))
	}
	if b := decodeList(t, serve(h, http.MethodGet, "/api/governance/approvals?status=unsettled", approverT1)); len(b.Items) != 1 {
		t.Fatalf("unsettled listing: %v", ids(b))
	}
}

// The next approve of an unsettled approval settles it: the write is sent again under the
// same idempotency key, the CRM (holding it already) is not written twice, the ledger gets
// the write's entry, and the approval ends approved.
func TestTheNextApproveSettlesAnUnsettledRelease(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.holdOptIn("t1", "C-1")
	h := e.api()
	e.fakes[crm].DelayNext(1, 0)
	e.fakes[crm].DelayNext(1, 800*time.Millisecond)
	if w := approveBy(h, a.ID, 300*time.Millisecond); w.Code != http.StatusBadGateway {
		t.Fatalf("release: %d %s", w.Code, w.Body)
	}
	waitFor(t, func() bool { return e.fakes[crm].WriteCount() == 1 })
	if got := approvalStatus(t, e, "t1", a.ID); got.Status != governance.StatusUnsettled || e.ledger.Len() != 0 {
		t.Fatalf("after a lost answer: %s, %d ledger entries (none: the guard records what it was told was written)", got.Status, e.ledger.Len())
	}
	w := serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", approverT1)
	if w.Code != http.StatusOK {
		t.Fatalf("settling approve: %d %s", w.Code, w.Body)
	}
	found, err := governance.Wrote(context.Background(), e.ledger, "t1", "contact", "C-1", t0, a.Request.IdempotencyKey)
	if got := approvalStatus(t, e, "t1", a.ID); got.Status != governance.StatusApproved || e.fakes[crm].WriteCount() != 1 || !found || err != nil {
		t.Fatalf("after settling: %s, %d writes at the CRM, ledger %v %v", got.Status, e.fakes[crm].WriteCount(), found, err)
	}
}

// A lost answer whose write never landed is settled the same way: the next approve writes
// it, once. A settling attempt that fails leaves the approval unsettled (its first write
// may still land), and a refusal by the target of a release that sent nothing before is
// still write_failed, back to pending.
func TestAFailedSettlingStaysUnsettledAndARefusalIsStillWriteFailed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.holdOptIn("t1", "C-1")
	h := e.api()
	e.fakes[crm].FailNextWrite(1, http.StatusGatewayTimeout) // a gateway gave up on the PATCH: the CRM may still apply it
	w := serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", approverT1)
	if code, _ := problemCode(t, w); w.Code != http.StatusBadGateway || code != governance.CodeReleaseUnsettled {
		t.Fatalf("a 504: %d %s", w.Code, w.Body)
	}
	e.fakes[crm].FailNext(1, http.StatusBadRequest)
	w = serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", approverT1)
	if code, _ := problemCode(t, w); w.Code != http.StatusBadGateway || code != governance.CodeReleaseUnsettled {
		t.Fatalf("a failed settling: %d %s", w.Code, w.Body)
	}
	if got := approvalStatus(t, e, "t1", a.ID); got.Status != governance.StatusUnsettled {
		t.Fatalf("after a failed settling: %+v", got)
	}
	if w := serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", approverT1); w.Code != http.StatusOK ||
		e.fakes[crm].WriteCount() != 1 {
		t.Fatalf("settling: %d %s, %d writes", w.Code, w.Body, e.fakes[crm].WriteCount())
	}

	b := e.holdOptIn("t1", "C-2")
	e.fakes[crm].FailNext(1, http.StatusUnprocessableEntity)
	w = serve(h, http.MethodPost, "/api/governance/approvals/"+b.ID+"/approve", approverT1)
	if code, _ := problemCode(t, w); w.Code != http.StatusBadGateway || code != governance.CodeWriteFailed {
		t.Fatalf("a refusal: %d %s", w.Code, w.Body)
	}
	if got := approvalStatus(t, e, "t1", b.ID); got.Status != governance.StatusPending {
		t.Fatalf("after a refusal: %+v", got)
	}
}

// deadlines records the deadline of each write's context.
type deadlines struct {
	governance.Connectors
	mu  sync.Mutex
	got []time.Time
}

func (d *deadlines) Client(ctx context.Context, tenant string, s connector.System) (governance.Writer, error) {
	w, err := d.Connectors.Client(ctx, tenant, s)
	if err != nil {
		return nil, err
	}
	return deadlineWriter{w, d}, nil
}

type deadlineWriter struct {
	governance.Writer
	d *deadlines
}

func (w deadlineWriter) Write(ctx context.Context, req connector.WriteRequest) (connector.WriteResult, error) {
	dl, _ := ctx.Deadline()
	w.d.mu.Lock()
	w.d.got = append(w.d.got, dl)
	w.d.mu.Unlock()
	return w.Writer.Write(ctx, req)
}

// A release's write keeps ReleaseReserve of the request's deadline for marking the
// approval and the audit, as the sync-error approve keeps WriteReserve; a request with
// less than twice that left keeps half of it.
func TestAReleaseWritesWithinTheRequestsDeadlineLessAReserve(t *testing.T) {
	t.Parallel()
	d := &deadlines{}
	e := newEnv(t, withConnectors(func(c governance.Connectors) governance.Connectors { d.Connectors = c; return d }))
	h := e.api()
	for _, timeout := range []time.Duration{time.Minute, 2 * time.Second} {
		a := e.holdOptIn("t1", "C-"+timeout.String())
		start := time.Now()
		if w := approveBy(h, a.ID, timeout); w.Code != http.StatusOK {
			t.Fatalf("release: %d %s", w.Code, w.Body)
		}
		d.mu.Lock()
		got := d.got[len(d.got)-1]
		d.mu.Unlock()
		reserve := min(governance.ReleaseReserve, timeout/2)
		// start is taken just before the request's deadline is set, and the reserve of a
		// short deadline is half of what is left when the release begins: a little leeway.
		if want := start.Add(timeout - reserve); got.IsZero() || got.After(want.Add(50*time.Millisecond)) || got.Before(want.Add(-time.Second)) {
			t.Fatalf("deadline %s: the write's deadline is %v, want %v", timeout, got, want)
		}
	}
}
