package flow_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/identity"
)

// settleEnv is a flow with match none whose first create's answer was lost: its run
// failed, and the record's claim stays marked Creating.
type settleEnv struct {
	*matchEnv
	s     *flow.Service
	audit *audittest.Store
	src   flow.Ref
}

func newSettleEnv(t *testing.T, record string) *settleEnv {
	e := newMatchEnv(t, flow.Match{By: flow.MatchNone, Create: true})
	e.dropCreates = 1
	e.x.Backoff = []time.Duration{time.Minute}
	s := e.service()
	a := &audittest.Store{}
	s.Audit.Store = a
	se := &settleEnv{matchEnv: e, s: s, audit: a, src: flow.Ref{System: connector.SystemHostERP, Entity: "customer", ID: record}}
	r := e.change(record, "+1")
	e.redriveAll()
	if r = e.run(r.ID); r.Outcome != flow.OutcomeFailed || e.crm.WriteCount() != 1 {
		t.Fatalf("run %+v, %d CRM writes; want failed after one create", r, e.crm.WriteCount())
	}
	if x := se.entry(); x.State != flow.XRefPending || !x.Creating {
		t.Fatalf("entry %+v; want pending, marked Creating", x)
	}
	return se
}

func (e *settleEnv) put(body string) (int, string) {
	e.t.Helper()
	r := httptest.NewRequest(http.MethodPut, "/api/flows/xrefs", bytes.NewBufferString(body))
	r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{TenantID: "t1", Subject: "ann", Roles: []string{identity.RoleAdmin}}))
	w := httptest.NewRecorder()
	e.s.XRefFixHandler().ServeHTTP(w, r)
	return w.Code, w.Body.String()
}

func (e *settleEnv) entry() flow.XRef {
	x, _ := e.store.XRef(context.Background(), "t1", e.src, flow.Endpoint{System: connector.SystemCRM, Entity: "Account"})
	return x
}

func (e *settleEnv) body(settle, targetID string) string {
	return `{"source":{"system":"hosterp","entity":"customer","id":"` + e.src.ID + `"},"target":{"system":"crm","entity":"Account","id":"` +
		targetID + `"},"settle":"` + settle + `"}`
}

// created is the id of the Account the lost create made.
func (e *settleEnv) created() string {
	ids, err := registryFinder{e.reg}.Find(context.Background(), "t1", connector.SystemCRM, "Account", "Name", "Nordwind Handel GmbH")
	if err != nil || len(ids) != 1 {
		e.t.Fatalf("Accounts %v, %v; want the one created", ids, err)
	}
	return ids[0]
}

// TestSettleCreatingAsCreated: the admin finds the record the lost create made and links
// it: the entry is linked as created both ways, audited with the admin, and the record's
// next change updates it (one Account). A fix-up that is no settle is told to settle.
func TestSettleCreatingAsCreated(t *testing.T) {
	e := newSettleEnv(t, "C-9201")
	id := e.created()
	if code, body := e.put(`{"source":{"system":"hosterp","entity":"customer","id":"C-9201"},"target":{"system":"crm","entity":"Account","id":"` +
		id + `"}}`); code != http.StatusConflict || !strings.Contains(body, "settle") {
		t.Fatalf("fix-up of a claim marked Creating = %d %s; want 409 pointing at settle", code, body)
	}
	if code, body := e.put(e.body("created", id)); code != http.StatusOK || !strings.Contains(body, `"action":"created"`) {
		t.Fatalf("settle created = %d %s", code, body)
	}
	if x := e.entry(); x.State != flow.XRefLinked || x.Target.ID != id || x.LinkedBy != "admin:ann" || x.Creating {
		t.Fatalf("entry after settle %+v", x)
	}
	if back, err := e.store.XRef(context.Background(), "t1", flow.Ref{System: connector.SystemCRM, Entity: "Account", ID: id},
		flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}); err != nil || back.Target.ID != "C-9201" {
		t.Fatalf("reverse %+v, %v", back, err)
	}
	recs := e.audit.All()
	if len(recs) != 1 || recs[0].ActionKey != "settings.xref.settle_created" || recs[0].Actor.Actor != "ann" {
		t.Fatalf("audit %+v", recs)
	}
	next := e.change("C-9201", "+2")
	if next.Outcome != flow.OutcomeWritten || next.TargetID != id || e.crm.WriteCount() != 2 {
		t.Fatalf("next change %+v, %d CRM writes; want the linked Account updated", next, e.crm.WriteCount())
	}
	if code, body := e.put(e.body("created", id)); code != http.StatusConflict || !strings.Contains(body, "xref_not_creating") {
		t.Fatalf("settle of a linked entry = %d %s", code, body)
	}
}

// TestSettleCreatingAsNotCreated: the admin found nothing: the claim is dropped, and the
// record's next change creates its Account.
func TestSettleCreatingAsNotCreated(t *testing.T) {
	e := newSettleEnv(t, "C-9202")
	if code, body := e.put(e.body("not_created", "x")); code != http.StatusBadRequest || !strings.Contains(body, "target.id") {
		t.Fatalf("not_created with an id = %d %s", code, body)
	}
	if code, body := e.put(e.body("created", "")); code != http.StatusBadRequest || !strings.Contains(body, "target.id") {
		t.Fatalf("created without an id = %d %s", code, body)
	}
	if code, body := e.put(e.body("not_created", "")); code != http.StatusOK || !strings.Contains(body, `"items":[]`) {
		t.Fatalf("settle not_created = %d %s", code, body)
	}
	if recs := e.audit.All(); len(recs) != 1 || recs[0].ActionKey != "settings.xref.settle_not_created" {
		t.Fatalf("audit %+v", recs)
	}
	next := e.change("C-9202", "+2")
	if next.Outcome != flow.OutcomeWritten || next.TargetAction != flow.ActionCreated || e.crm.WriteCount() != 2 {
		t.Fatalf("next change %+v, %d CRM writes; want a create", next, e.crm.WriteCount())
	}
	if code, body := e.put(e.body("not_created", "")); code != http.StatusConflict || !strings.Contains(body, "xref_not_creating") {
		t.Fatalf("settle of a linked entry = %d %s", code, body)
	}
}

// TestSettleRefusedWhileTheRunAttempts: a claim marked Creating whose run is still
// retrying is the run's to settle (its next attempt looks for, or links, what it made).
func TestSettleRefusedWhileTheRunAttempts(t *testing.T) {
	e := newMatchEnv(t, flow.Match{By: flow.MatchNone, Create: true})
	e.dropCreates = 1
	r := e.change("C-9203", "+1")
	if r.Outcome != flow.OutcomeRetrying {
		t.Fatalf("run %+v; want retrying after the lost answer", r)
	}
	se := &settleEnv{matchEnv: e, s: e.service(), src: flow.Ref{System: connector.SystemHostERP, Entity: "customer", ID: "C-9203"}}
	if code, body := se.put(se.body("not_created", "")); code != http.StatusConflict || !strings.Contains(body, r.ID) {
		t.Fatalf("settle while the run retries = %d %s", code, body)
	}
	if x := se.entry(); !x.Creating || x.ClaimedBy != r.ID {
		t.Fatalf("entry changed: %+v", x)
	}
}
