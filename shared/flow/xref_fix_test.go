package flow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/flow/flowtest"
	"github.com/syncassist/syncassist/shared/identity"
)

type fixEnv struct {
	t     *testing.T
	s     *flow.Service
	xrefs flow.XRefStore
	audit *audittest.Store
}

func newFixEnv(t *testing.T, xrefs flow.XRefStore) *fixEnv {
	a := &audittest.Store{}
	return &fixEnv{t: t, xrefs: xrefs, audit: a, s: &flow.Service{Exec: &flow.Executor{XRefs: xrefs},
		Audit: &audit.Log{Store: a, Redactor: plainRedactor{}}}}
}

func (e *fixEnv) put(body string) (int, string) {
	e.t.Helper()
	r := httptest.NewRequest(http.MethodPut, "/api/flows/xrefs", bytes.NewBufferString(body))
	r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{TenantID: "t1", Subject: "ann", Roles: []string{identity.RoleAdmin}}))
	w := httptest.NewRecorder()
	e.s.XRefFixHandler().ServeHTTP(w, r)
	return w.Code, w.Body.String()
}

func (e *fixEnv) entry(src flow.Ref, target flow.Endpoint) (flow.XRef, error) {
	return e.xrefs.XRef(context.Background(), "t1", src, target)
}

const (
	fixCustomer = `{"system":"hosterp","entity":"customer","id":"C-7"}`
	accountA    = `{"system":"crm","entity":"Account","id":"001A"}`
	accountB    = `{"system":"crm","entity":"Account","id":"001B"}`
	accountNone = `{"system":"crm","entity":"Account","id":""}`
)

// TestXRefFixUp: an admin links, re-links and unlinks a record's counterpart, both
// directions following and each change audited; a fix-up whose expectation is stale, or of
// an entry a run holds, or to a target linked to another record, is a 409 that changes
// nothing. Against the in-memory store and the flows table.
func TestXRefFixUp(t *testing.T) {
	for name, newXRefs := range map[string]func(t *testing.T) flow.XRefStore{
		"memory": func(*testing.T) flow.XRefStore { return &flowtest.XRefs{} },
		"dynamo": func(t *testing.T) flow.XRefStore { return newStore(t) },
	} {
		t.Run(name, func(t *testing.T) {
			e := newFixEnv(t, newXRefs(t))
			src := flow.Ref{System: connector.SystemHostERP, Entity: "customer", ID: "C-7"}
			account := flow.Endpoint{System: connector.SystemCRM, Entity: "Account"}
			back := func(id string) (flow.XRef, error) {
				return e.entry(flow.Ref{System: connector.SystemCRM, Entity: "Account", ID: id}, flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"})
			}

			if code, body := e.put(`{"source":` + fixCustomer + `,"target":` + accountA + `}`); code != http.StatusOK || !strings.Contains(body, `"linked_by_admin"`) {
				t.Fatalf("link = %d %s", code, body)
			}
			if x, err := e.entry(src, account); err != nil || x.Target.ID != "001A" || x.State != flow.XRefLinked {
				t.Fatalf("after link: %+v %v", x, err)
			}
			if r, err := back("001A"); err != nil || r.Target.ID != "C-7" {
				t.Fatalf("reverse after link: %+v %v", r, err)
			}
			// Expecting no link where there is one: someone (a run, another admin) was first.
			if code, body := e.put(`{"source":` + fixCustomer + `,"target":` + accountB + `}`); code != http.StatusConflict || !strings.Contains(body, "xref_changed") {
				t.Fatalf("stale link = %d %s", code, body)
			}
			if code, body := e.put(`{"source":` + fixCustomer + `,"target":` + accountB + `,"expect":"001A"}`); code != http.StatusOK {
				t.Fatalf("relink = %d %s", code, body)
			}
			if _, err := back("001A"); err == nil {
				t.Fatal("the old counterpart's reverse entry is still there after the relink")
			}
			if r, err := back("001B"); err != nil || r.Target.ID != "C-7" {
				t.Fatalf("reverse after relink: %+v %v", r, err)
			}
			// Another record may not take 001B as its counterpart too.
			other := `{"system":"hosterp","entity":"customer","id":"C-8"}`
			if code, body := e.put(`{"source":` + other + `,"target":` + accountB + `}`); code != http.StatusConflict || !strings.Contains(body, "target_linked_elsewhere") {
				t.Fatalf("second record to the same target = %d %s", code, body)
			}
			if code, body := e.put(`{"source":` + fixCustomer + `,"target":` + accountNone + `,"expect":"001B"}`); code != http.StatusOK || !strings.Contains(body, `"items":[]`) {
				t.Fatalf("unlink = %d %s", code, body)
			}
			if _, err := back("001B"); err == nil {
				t.Fatal("the reverse entry is still there after the unlink")
			}

			// A run holds the record's claim: the fix-up waits for it rather than race it.
			ctx := context.Background()
			if _, err := e.xrefs.ClaimXRef(ctx, "t1", flow.XRef{Source: src, Target: flow.Ref{System: account.System, Entity: account.Entity},
				State: flow.XRefPending, Anchor: src.ID, ClaimedBy: "run-1", CreatedAt: t0, UpdatedAt: t0}); err != nil {
				t.Fatal(err)
			}
			if code, body := e.put(`{"source":` + fixCustomer + `,"target":` + accountA + `}`); code != http.StatusConflict || !strings.Contains(body, "run-1") {
				t.Fatalf("fix-up of a claimed entry = %d %s", code, body)
			}
			if x, _ := e.entry(src, account); x.State != flow.XRefPending || x.ClaimedBy != "run-1" {
				t.Fatalf("the run's claim changed: %+v", x)
			}

			var keys []string
			for _, rec := range e.audit.All() {
				keys = append(keys, rec.ActionKey)
			}
			if strings.Join(keys, ",") != "settings.xref.link,settings.xref.relink,settings.xref.unlink" {
				t.Fatalf("audited %v", keys)
			}
			if code, body := e.put(`{"source":{"system":"sap","entity":"","id":""},"target":` + accountA + `}`); code != http.StatusBadRequest ||
				!strings.Contains(body, "source.system") || !strings.Contains(body, "source.id") {
				t.Fatalf("invalid fix = %d %s", code, body)
			}
			var problem map[string]any
			if _, body := e.put(`{"source":` + fixCustomer + `}`); json.Unmarshal([]byte(body), &problem) != nil || problem["code"] != "validation_failed" {
				t.Fatalf("fix without a target = %s", body)
			}
		})
	}
}

// A target without its id, or an empty settle, is refused naming the field, the link left
// as it was: the document requires target.id ("" unlinks) and settle is created or
// not_created. An absent id was read as "" and unlinked (found by a deep schema probe).
func TestXRefFixRefusesAnAbsentTargetID(t *testing.T) {
	e := newFixEnv(t, &flowtest.XRefs{})
	if code, body := e.put(`{"source":` + fixCustomer + `,"target":` + accountA + `}`); code != http.StatusOK {
		t.Fatalf("link = %d %s", code, body)
	}
	for _, c := range []struct{ field, body string }{
		{"target.id", `{"source":` + fixCustomer + `,"target":{"system":"crm","entity":"Account"},"expect":"001A"}`},
		{"settle", `{"source":` + fixCustomer + `,"target":` + accountNone + `,"expect":"001A","settle":""}`},
	} {
		field, body := c.field, c.body
		if code, got := e.put(body); code != http.StatusBadRequest || !strings.Contains(got, `"field":"`+field+`"`) {
			t.Errorf("%s: %d %s, want 400 naming %s", body, code, got, field)
		}
	}
	src := flow.Ref{System: connector.SystemHostERP, Entity: "customer", ID: "C-7"}
	if x, err := e.entry(src, flow.Endpoint{System: connector.SystemCRM, Entity: "Account"}); err != nil || x.Target.ID != "001A" {
		t.Fatalf("after refused fix-ups: %+v %v, want still linked to 001A", x, err)
	}
}

// TestXRefFixUpRacesARun: an admin's link and a flow's first run of the same record, at
// once, end in one link both ways, whichever came first: the run either writes the
// Account the admin linked, or the admin's fix-up is refused and the run's link stands.
func TestXRefFixUpRacesARun(t *testing.T) {
	for i := range 4 {
		e := newMatchEnv(t, matches["lookup"])
		e.crm.Seed("Account", "001X", map[string]any{"Name": "Chosen by hand"})
		s := e.service()
		record := fmt.Sprintf("C-77%d", i)
		src := flow.Ref{System: connector.SystemHostERP, Entity: "customer", ID: record}
		var wg sync.WaitGroup
		var fixErr error
		var run flow.Run
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, fixErr = s.FixXRef(context.Background(), "t1", "ann", flow.XRefFix{Source: src,
				Target: flow.Ref{System: connector.SystemCRM, Entity: "Account", ID: "001X"}})
		}()
		go func() {
			defer wg.Done()
			run = e.change(record, "+49 40 7")
		}()
		wg.Wait()
		e.redriveAll()
		x, err := e.store.XRef(context.Background(), "t1", src, flow.Endpoint{System: connector.SystemCRM, Entity: "Account"})
		if err != nil || x.State != flow.XRefLinked {
			t.Fatalf("round %d: entry %+v, %v", i, x, err)
		}
		if fixErr == nil && x.Target.ID != "001X" || fixErr != nil && !errors.Is(fixErr, flow.ErrXRefChanged) {
			t.Fatalf("round %d: fix-up %v, link to %s", i, fixErr, x.Target.ID)
		}
		back, err := e.store.XRef(context.Background(), "t1", x.Target, flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"})
		if err != nil || back.Target.ID != record {
			t.Fatalf("round %d: reverse %+v, %v", i, back, err)
		}
		if final := e.run(run.ID); final.Outcome == flow.OutcomeWritten && final.TargetID != x.Target.ID {
			t.Fatalf("round %d: the run wrote %s, the link is to %s", i, final.TargetID, x.Target.ID)
		}
		if fixErr == nil && len(e.accounts(record)) > 0 {
			t.Fatalf("round %d: the run created an Account although the admin linked one", i)
		}
	}
}
