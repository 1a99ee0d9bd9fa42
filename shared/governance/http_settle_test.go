package governance_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// settleBy serves an approve of id with body as c.
func settleBy(h http.Handler, id, body string, c *caller) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/api/governance/approvals/"+id+"/approve", strings.NewReader(body))
	ctx := httpapi.WithCorrelation(r.Context(), httpapi.Logger(r.Context()), "corr-test")
	ctx = identity.WithAuth(ctx, identity.Principal{Subject: c.subject, TenantID: c.tenant, Roles: c.roles})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r.WithContext(ctx))
	return w
}

// unsettledOptIn holds an opt-in of C-1 and releases it with its answer lost: the CRM
// holds the write, the approval is unsettled.
func (e *env) unsettledOptIn(h http.Handler) governance.PendingApproval {
	e.t.Helper()
	a := e.holdOptIn("t1", "C-1")
	e.fakes[crm].DelayNext(1, 0)
	e.fakes[crm].DelayNext(1, 800*time.Millisecond) // the PATCH lands, its answer is lost
	if w := approveBy(h, a.ID, 300*time.Millisecond); w.Code != http.StatusBadGateway {
		e.t.Fatalf("release: %d %s", w.Code, w.Body)
	}
	waitFor(e.t, func() bool { return e.fakes[crm].WriteCount() == 1 })
	return a
}

// An unsettled approval always has a way out that a person controls: an approver who
// checked the record says it holds the write (approved, nothing sent, its ledger entry
// recorded so the reconcile and the loop check find it under its key) or does not
// (pending again, and then deniable). Each is audited as governance.settle.
func TestAnUnsettledApprovalIsSettledByAnApproversWord(t *testing.T) {
	t.Parallel()
	t.Run("written", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		h := e.api()
		a := e.unsettledOptIn(h)
		w := settleBy(h, a.ID, `{"settle":"written"}`, approverT1)
		if w.Code != http.StatusOK {
			t.Fatalf("settle written: %d %s", w.Code, w.Body)
		}
		var item governance.ApprovalItem
		if err := json.Unmarshal(w.Body.Bytes(), &item); err != nil || item.Status != "approved" || !strings.Contains(item.Message, "written") {
			t.Fatalf("answer: %+v, %v", item, err)
		}
		if got := approvalStatus(t, e, "t1", a.ID); got.Status != governance.StatusApproved || got.DecidedBy != "victor" {
			t.Fatalf("after settling written: %+v", got)
		}
		if n := e.fakes[crm].WriteCount(); n != 1 {
			t.Fatalf("settling by word sent the write again: %d writes", n)
		}
		found, err := governance.Wrote(context.Background(), e.ledger, "t1", "contact", "C-1", t0.Add(-time.Hour), a.Request.IdempotencyKey)
		if err != nil || !found {
			t.Fatalf("the settled write is not in the ledger under its key: %v, %v", found, err)
		}
		if recs := e.audits(governance.ActionSettle); len(recs) != 1 || !strings.Contains(string(recs[0].Details), `"written":true`) {
			t.Fatalf("settle audit: %+v", recs)
		}
	})
	t.Run("not written, then denied", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		h := e.api()
		a := e.unsettledOptIn(h)
		if w := settleBy(h, a.ID, `{"settle":"not_written"}`, approverT1); w.Code != http.StatusOK {
			t.Fatalf("settle not written: %d %s", w.Code, w.Body)
		}
		if got := approvalStatus(t, e, "t1", a.ID); got.Status != governance.StatusPending || got.DecidedBy != "" {
			t.Fatalf("after settling not written: %+v", got)
		}
		d := serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/deny", &caller{"t1", "wendy", []string{identity.RoleApprover}})
		if d.Code != http.StatusOK || approvalStatus(t, e, "t1", a.ID).Status != governance.StatusDenied {
			t.Fatalf("deny after settling not written: %d %s", d.Code, d.Body)
		}
		if recs := e.audits(governance.ActionSettle); len(recs) != 1 || !strings.Contains(string(recs[0].Details), `"written":false`) {
			t.Fatalf("settle audit: %+v", recs)
		}
	})
}

// A settle is only for an unsettled approval, only by another approver than the one who
// asked for the write, and only in the words the API knows: anything else changes nothing.
func TestASettleIsRefusedWhereItDoesNotFit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	h := e.api()
	pending := e.holdOptIn("t1", "C-2")
	if w := settleBy(h, pending.ID, `{"settle":"written"}`, approverT1); w.Code != http.StatusConflict {
		t.Fatalf("settle of a pending approval: %d %s", w.Code, w.Body)
	} else if code, _ := problemCode(t, w); code != governance.CodeNotUnsettled {
		t.Fatalf("settle of a pending approval: %s", code)
	}
	for _, body := range []string{`{"settle":"maybe"}`, `{"settle":"written","extra":1}`, `{"settle":"not_written","recordId":"X"}`, `[]`} {
		w := settleBy(h, pending.ID, body, approverT1)
		if code, _ := problemCode(t, w); w.Code != http.StatusBadRequest || code != governance.CodeInvalidBody {
			t.Fatalf("%s: %d %s", body, w.Code, code)
		}
	}
	a := e.unsettledOptIn(h)
	self := &caller{"t1", "alice", []string{identity.RoleApprover}}
	if w := settleBy(h, a.ID, `{"settle":"not_written"}`, self); w.Code != http.StatusForbidden {
		t.Fatalf("settle by the requester: %d %s", w.Code, w.Body)
	}
	for id, want := range map[string]governance.ApprovalStatus{pending.ID: governance.StatusPending, a.ID: governance.StatusUnsettled} {
		if got := approvalStatus(t, e, "t1", id); got.Status != want {
			t.Fatalf("%s after refused settles: %s, want %s", id, got.Status, want)
		}
	}
}

// An empty recordId is refused (the document's minLength 1), not read as none: sent alone
// it made the body {} and released the held write, a settle meant as a release.
func TestASettleRefusesAnEmptyRecordID(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	h := e.api()
	pending := e.holdOptIn("t1", "C-2")
	for _, body := range []string{`{"recordId":""}`, `{"settle":"written","recordId":""}`} {
		w := settleBy(h, pending.ID, body, approverT1)
		if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "recordId") {
			t.Errorf("%s: %d %s, want 400 naming recordId", body, w.Code, w.Body)
		} else if code, _ := problemCode(t, w); code != governance.CodeInvalidBody {
			t.Errorf("%s: %s, want %s", body, code, governance.CodeInvalidBody)
		}
	}
	if got := approvalStatus(t, e, "t1", pending.ID); got.Status != governance.StatusPending {
		t.Fatalf("after refused settles: %s, want pending", got.Status)
	}
}

// An approve whose body is an empty object (the console sends {} with every write) is a
// release, as one without a body.
func TestAnApproveWithAnEmptyBodyReleases(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.holdOptIn("t1", "C-3")
	if w := settleBy(e.api(), a.ID, `{}`, approverT1); w.Code != http.StatusOK || approvalStatus(t, e, "t1", a.ID).Status != governance.StatusApproved {
		t.Fatalf("approve with {}: %d %s", w.Code, w.Body)
	}
}

// An empty settle is no settle word (the document's enum is written or not_written), not
// none: sent it made the body {} and released the held write, as an empty recordId did.
func TestASettleRefusesAnEmptySettle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	h := e.api()
	pending := e.holdOptIn("t1", "C-2")
	w := settleBy(h, pending.ID, `{"settle":""}`, approverT1)
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "settle") {
		t.Errorf("%d %s, want 400 naming settle", w.Code, w.Body)
	} else if code, _ := problemCode(t, w); code != governance.CodeInvalidBody {
		t.Errorf("%s, want %s", code, governance.CodeInvalidBody)
	}
	if got := approvalStatus(t, e, "t1", pending.ID); got.Status != governance.StatusPending {
		t.Fatalf("after a refused settle: %s, want pending", got.Status)
	}
}
