package flow_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/flow/flowtest"
	"github.com/syncassist/syncassist/shared/identity"
)

// TestXRefsHandler: a record's links are listed for the caller's tenant only, and a
// badly named record is a 400 with field errors.
func TestXRefsHandler(t *testing.T) {
	xrefs := &flowtest.XRefs{}
	ctx := context.Background()
	src := flow.Ref{System: connector.SystemHostERP, Entity: "customer", ID: "C 1/2"}
	e := flow.XRef{Source: src, Target: flow.Ref{System: connector.SystemCRM, Entity: "Account"}, State: flow.XRefPending,
		Anchor: src.ID, ClaimedBy: "run-1", CreatedAt: t0, UpdatedAt: t0}
	if _, err := xrefs.ClaimXRef(ctx, "t1", e); err != nil {
		t.Fatal(err)
	}
	e.State, e.Target.ID, e.LinkedBy, e.Action = flow.XRefLinked, "001A", "run-1", flow.ActionCreated
	if err := xrefs.LinkXRef(ctx, "t1", e); err != nil {
		t.Fatal(err)
	}
	h := (&flow.Service{Exec: &flow.Executor{XRefs: xrefs}}).XRefsHandler()
	get := func(tenant, query string) (int, string) {
		r := httptest.NewRequest(http.MethodGet, "/api/flows/xrefs?"+query, nil)
		r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{TenantID: tenant, Subject: "op"}))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code, w.Body.String()
	}
	code, body := get("t1", "system=hosterp&entity=customer&id=C+1%2F2")
	var list flow.XRefList
	if code != http.StatusOK || json.Unmarshal([]byte(body), &list) != nil || len(list.Items) != 1 || list.Items[0].Target.ID != "001A" {
		t.Fatalf("GET = %d %s", code, body)
	}
	if code, body := get("t1", "system=crm&entity=Account&id=001A"); code != http.StatusOK || !strings.Contains(body, `"id":"C 1/2"`) {
		t.Fatalf("reverse GET = %d %s", code, body)
	}
	if code, body := get("t2", "system=hosterp&entity=customer&id=C+1%2F2"); code != http.StatusOK || body != `{"items":[]}`+"\n" {
		t.Fatalf("another tenant's GET = %d %q", code, body)
	}
	code, body = get("t1", "system=sap&entity=&id=")
	for _, field := range []string{`"system"`, `"entity"`, `"id"`} {
		if code != http.StatusBadRequest || !strings.Contains(body, field) {
			t.Fatalf("bad GET = %d %s, want a field error on %s", code, body, field)
		}
	}
}
