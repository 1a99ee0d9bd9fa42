package governance_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

func (e *env) holdOptIn(tenant, record string) governance.PendingApproval {
	e.t.Helper()
	res, err := e.write(operator(tenant), req(crm, crm, "contact", record, map[string]any{"marketingOptIn": true}))
	if !errors.Is(err, governance.ErrPendingApproval) {
		e.t.Fatalf("hold: %v", err)
	}
	return *res.Held
}

func approvalStatus(t *testing.T, e *env, tenant, id string) governance.PendingApproval {
	t.Helper()
	a, err := e.records.GetApproval(context.Background(), tenant, id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestApprovalsListing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	first := e.holdOptIn("t1", "C-1")
	e.clock.Advance(time.Second)
	second := e.holdOptIn("t1", "C-2")
	e.holdOptIn("t2", "C-9")
	h := e.api()
	b := decodeList(t, serve(h, http.MethodGet, "/api/governance/approvals", approverT1))
	if !slices.Equal(ids(b), []string{second.ID, first.ID}) || b.Window != nil {
		t.Fatalf("pending of t1: %v (window %v)", ids(b), b.Window)
	}
	want := []string{"caller", "correlationId", "declaredOwner", "entity", "fields", "id", "reason", "requestedBy",
		"resource", "status", "target", "tenant", "time", "writeReason"}
	it := b.Items[0]
	if got := slices.Sorted(maps.Keys(it)); !slices.Equal(got, want) {
		t.Fatalf("item keys %v, want %v", got, want)
	}
	if it["status"] != "pending" || it["reason"] != "ownership" || it["declaredOwner"] != "marketing" ||
		it["caller"] != "crm" || it["resource"] != "crm/contact/C-2" || it["tenant"] != "t1" {
		t.Fatalf("item %v", it)
	}
	if b := decodeList(t, serve(h, http.MethodGet, "/api/governance/approvals?reason=ownership&status=pending&limit=1", approverT1)); len(b.Items) != 1 || b.NextCursor == nil {
		t.Fatalf("limit 1: %v, cursor %v", ids(b), b.NextCursor)
	}
	if b := decodeList(t, serve(h, http.MethodGet, "/api/governance/approvals?status=approved", approverT1)); len(b.Items) != 0 {
		t.Fatalf("approved: %v", ids(b))
	}
}

func TestApproveReleasesTheHeldWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.holdOptIn("t1", "C-1")
	if e.totalWrites() != 0 {
		t.Fatal("a held write reached a system")
	}
	h := e.api()
	w := serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", approverT1)
	if w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	var item governance.ApprovalItem
	if err := json.Unmarshal(w.Body.Bytes(), &item); err != nil {
		t.Fatal(err)
	}
	if item.Status != "approved" || item.DecidedBy != "victor" || item.DecidedAt == nil {
		t.Fatalf("answer %+v", item)
	}
	writes := e.fakes[crm].Writes()
	if len(writes) != 1 || writes[0].Origin != "crm" || writes[0].Fields["marketingOptIn"] != true ||
		writes[0].IdempotencyKey != a.Request.IdempotencyKey {
		t.Fatalf("writes %+v", writes)
	}
	if got := approvalStatus(t, e, "t1", a.ID); got.Status != governance.StatusApproved {
		t.Fatalf("stored %+v", got)
	}
	if e.ledger.Len() != 1 {
		t.Fatalf("ledger %d", e.ledger.Len())
	}
	approves := e.audits(governance.ActionApprove)
	if len(approves) != 1 || approves[0].Result != audit.ResultSuccess || approves[0].Actor.Actor != "victor" {
		t.Fatalf("governance.approve audit %+v", approves)
	}
	var released bool
	for _, r := range e.audits(governance.ActionConnectorWrite) {
		var d map[string]any
		_ = json.Unmarshal(r.Details, &d)
		if r.Result == audit.ResultSuccess && d["approvalId"] == a.ID && r.Actor.Actor == "victor" {
			released = true
		}
	}
	if !released {
		t.Fatal("no connector.write audit of the release, attributed to the approver")
	}
	w = serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", approverT1)
	if code, _ := problemCode(t, w); w.Code != http.StatusConflict || code != governance.CodeNotPending {
		t.Fatalf("second approve: %d %s", w.Code, code)
	}
	if e.fakes[crm].WriteCount() != 1 {
		t.Fatal("a second approve wrote again")
	}
}

func TestDeny(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.holdOptIn("t1", "C-1")
	h := e.api()
	w := serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/deny", approverT1)
	var item governance.ApprovalItem
	_ = json.Unmarshal(w.Body.Bytes(), &item)
	if w.Code != http.StatusOK || item.Status != "denied" || item.DecidedBy != "victor" {
		t.Fatalf("deny: %d %s", w.Code, w.Body)
	}
	for _, action := range []string{"approve", "deny"} {
		w = serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/"+action, approverT1)
		if code, _ := problemCode(t, w); w.Code != http.StatusConflict || code != governance.CodeNotPending {
			t.Fatalf("%s after deny: %d %s", action, w.Code, code)
		}
	}
	if e.totalWrites() != 0 {
		t.Fatal("a denied write reached a system")
	}
	if d := e.audits(governance.ActionDeny); len(d) != 1 || d[0].Result != audit.ResultSuccess || d[0].Actor.Actor != "victor" {
		t.Fatalf("governance.deny audit %+v", d)
	}
}

func TestDecisionsOnUnknownOrForeignApprovals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.holdOptIn("t1", "C-1")
	h := e.api()
	for _, c := range []struct {
		path   string
		caller *caller
	}{
		{"/api/governance/approvals/ap_unknown/approve", approverT1},
		{"/api/governance/approvals/ap_unknown/deny", approverT1},
		{"/api/governance/approvals/" + a.ID + "/approve", approverT2},
		{"/api/governance/approvals/" + a.ID + "/deny", approverT2},
		{"/api/governance/approvals/" + url.PathEscape("ap x") + "/approve", approverT1},
	} {
		w := serve(h, http.MethodPost, c.path, c.caller)
		if code, _ := problemCode(t, w); w.Code != http.StatusNotFound || code != governance.CodeNotFound {
			t.Errorf("%s as %s: %d %s, want 404", c.path, c.caller.tenant, w.Code, code)
		}
	}
	if got := approvalStatus(t, e, "t1", a.ID); got.Status != governance.StatusPending || e.totalWrites() != 0 {
		t.Fatalf("another tenant's call changed the approval: %+v", got)
	}
}

func TestConcurrentApprovesReleaseOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.holdOptIn("t1", "C-1")
	h := e.api()
	const n = 20
	codes := make([]int, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			codes[i] = serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", approverT1).Code
		}()
	}
	close(start)
	wg.Wait()
	ok, conflict := 0, 0
	for _, c := range codes {
		switch c {
		case http.StatusOK:
			ok++
		case http.StatusConflict:
			conflict++
		}
	}
	if ok != 1 || conflict != n-1 {
		t.Fatalf("codes %v: want one 200 and %d 409", codes, n-1)
	}
	if got := e.fakes[crm].WriteCount(); got != 1 {
		t.Fatalf("%d writes reached the CRM, want 1", got)
	}
	// One write is three requests to Salesforce: the read of read-compare-write, the PATCH
	// (204, no body) and the read-back. The losers send none.
	if got := e.fakes[crm].Requests(); got != 3 {
		t.Fatalf("%d requests reached the CRM, want the 3 of one write", got)
	}
	if e.ledger.Len() != 1 || len(e.audits(governance.ActionApprove)) != 1 {
		t.Fatalf("ledger %d, approve audits %d", e.ledger.Len(), len(e.audits(governance.ActionApprove)))
	}
}

func TestFailedReleaseLeavesTheApprovalPending(t *testing.T) {
	t.Parallel()
	t.Run("target refuses", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		a := e.holdOptIn("t1", "C-1")
		h := e.api()
		e.fakes[crm].FailNext(1, http.StatusBadRequest)
		w := serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", approverT1)
		if code, _ := problemCode(t, w); w.Code != http.StatusBadGateway || code != governance.CodeWriteFailed {
			t.Fatalf("approve: %d %s", w.Code, code)
		}
		if got := approvalStatus(t, e, "t1", a.ID); got.Status != governance.StatusPending || got.DecidedBy != "" {
			t.Fatalf("after a failed release: %+v", got)
		}
		if f := e.audits(governance.ActionApprove); len(f) != 1 || f[0].Result != audit.ResultFailure {
			t.Fatalf("governance.approve audit %+v", f)
		}
		w = serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", approverT1)
		if w.Code != http.StatusOK || e.fakes[crm].WriteCount() != 1 {
			t.Fatalf("second approve: %d %s, writes %d", w.Code, w.Body, e.fakes[crm].WriteCount())
		}
	})
	t.Run("target record changed", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		a := e.holdOptIn("t1", "C-1")
		e.fakes[crm].FailNext(1, http.StatusPreconditionFailed)
		w := serve(e.api(), http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", approverT1)
		if code, _ := problemCode(t, w); w.Code != http.StatusConflict || code != governance.CodeRecordChanged {
			t.Fatalf("approve: %d %s", w.Code, code)
		}
	})
	t.Run("connector not configured", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, withNotConfigured(hosterp))
		res, err := e.write(operator("t1"), req(erp2, hosterp, "vendorBill", "VB-1", map[string]any{"amount": 10}))
		if !errors.Is(err, governance.ErrPendingApproval) {
			t.Fatal(err)
		}
		w := serve(e.api(), http.MethodPost, "/api/governance/approvals/"+res.Held.ID+"/approve", approverT1)
		if code, _ := problemCode(t, w); w.Code != http.StatusServiceUnavailable || code != governance.CodeConnectorNotConfigured {
			t.Fatalf("approve: %d %s", w.Code, code)
		}
		if got := approvalStatus(t, e, "t1", res.Held.ID); got.Status != governance.StatusPending {
			t.Fatalf("after a failed release: %+v", got)
		}
	})
	t.Run("release is loop-checked", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t)
		held, err := e.write(operator("t1"), req(erp2, hosterp, "vendorBill", "VB-1", map[string]any{"amount": 10}))
		if !errors.Is(err, governance.ErrPendingApproval) {
			t.Fatal(err)
		}
		// The host ERP, owner of vendor bills, sends the same bill to the second ERP.
		if _, err := e.write(operator("t1"), req(hosterp, erp2, "vendorBill", "VB-1", map[string]any{"amount": 10})); err != nil {
			t.Fatal(err)
		}
		h := e.api()
		w := serve(h, http.MethodPost, "/api/governance/approvals/"+held.Held.ID+"/approve", approverT1)
		if code, _ := problemCode(t, w); w.Code != http.StatusConflict || code != governance.CodeLoopDetected {
			t.Fatalf("approve: %d %s", w.Code, code)
		}
		if e.fakes[hosterp].WriteCount() != 0 || len(e.records.Loops()) != 1 {
			t.Fatalf("writes %d, loops %d", e.fakes[hosterp].WriteCount(), len(e.records.Loops()))
		}
		e.clock.Advance(governance.DefaultLoopWindow + time.Second)
		if w := serve(h, http.MethodPost, "/api/governance/approvals/"+held.Held.ID+"/approve", approverT1); w.Code != http.StatusOK {
			t.Fatalf("approve after the window: %d %s", w.Code, w.Body)
		}
	})
}

func TestApproveTakesOverAStaleRelease(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.holdOptIn("t1", "C-1")
	ctx := context.Background()
	// A release that died midway: releasing, and the write may or may not have been made.
	if _, err := e.records.DecideApproval(ctx, "t1", a.ID, governance.StatusPending, governance.StatusReleasing, "bob", e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	h := e.api()
	e.clock.Advance(30 * time.Second)
	w := serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", approverT1)
	if code, _ := problemCode(t, w); w.Code != http.StatusConflict || code != governance.CodeNotPending {
		t.Fatalf("approve during a live release: %d %s", w.Code, code)
	}
	e.clock.Advance(governance.DefaultReleaseTimeout)
	w = serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", approverT1)
	if w.Code != http.StatusOK || e.fakes[crm].WriteCount() != 1 {
		t.Fatalf("approve of a stale release: %d %s", w.Code, w.Body)
	}
	if got := approvalStatus(t, e, "t1", a.ID); got.Status != governance.StatusApproved || got.DecidedBy != "victor" {
		t.Fatalf("stored %+v", got)
	}
}

// Embedded sessions reach the handlers as an identity the middleware resolved; the
// X-Embedded-Context-Id header itself means nothing to them.
func TestEmbeddedCallerIsAnyOtherCaller(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.holdOptIn("t1", "C-1")
	r := httptest.NewRequest(http.MethodGet, "/api/governance/approvals", nil)
	r.Header.Set(identity.HeaderEmbeddedContextID, "ctx_123")
	ctx := identity.WithUser(r.Context(), identity.Principal{Subject: "host-user", TenantID: "t1",
		Roles: []string{identity.RoleApprover}, SessionID: "s1", Module: "governance"})
	w := httptest.NewRecorder()
	e.api().ServeHTTP(w, r.WithContext(ctx))
	if b := decodeList(t, w); len(b.Items) != 1 {
		t.Fatalf("embedded caller: %s", w.Body)
	}
}

// Four eyes holds across channels: whoever asked for a held write signed in to the
// console (login id, e-mail alias) may not release it from the embedded surface, where the
// host names them by that e-mail; another approver may.
func TestFourEyesHoldsAcrossTheConsoleAndTheEmbeddedSurface(t *testing.T) {
	e := newEnv(t)
	requester := identity.Identity{TenantID: "t1", Actor: "u-7f3a", Aliases: []string{"alice@acme.example"},
		Roles: []string{identity.RoleApprover}, Source: identity.SourceAuth}
	res, err := e.write(requester, req(crm, crm, "contact", "C-9", map[string]any{"marketingOptIn": true}))
	if !errors.Is(err, governance.ErrPendingApproval) {
		t.Fatalf("hold: %v", err)
	}
	release := func(subject string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/api/governance/approvals/"+res.Held.ID+"/approve", nil)
		ctx := httpapi.WithCorrelation(r.Context(), httpapi.Logger(r.Context()), "corr")
		ctx = identity.WithUser(ctx, identity.Principal{Subject: subject, TenantID: "t1",
			Roles: []string{identity.RoleApprover}, SessionID: "ses_x", Module: "governance"})
		w := httptest.NewRecorder()
		e.api().ServeHTTP(w, r.WithContext(ctx))
		return w
	}
	if w := release("Alice@acme.example"); w.Code != http.StatusForbidden {
		t.Fatalf("the requester released her own write from the embedded surface: %d %s", w.Code, w.Body)
	}
	if w := release("bob@acme.example"); w.Code != http.StatusOK {
		t.Fatalf("another approver's release: %d %s", w.Code, w.Body)
	}
}
