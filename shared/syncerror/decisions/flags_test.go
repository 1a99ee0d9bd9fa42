package decisions_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

// tenantsWith holds tenant "acme" with the sync-error flags set to on.
func tenantsWith(t *testing.T, on string) *tenanttest.Store {
	t.Helper()
	return syncerrortest.TenantsWith(t, on)
}

// A switched-off tenant's decisions are refused with 403 feature_disabled and write
// nothing; reads still answer.
func TestSwitchedOffTenantDecidesNothing(t *testing.T) {
	f := roomtest.NewOpFixture(t)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	op := &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: f.Claims, Tenants: tenantsWith(t, "false"), Now: func() time.Time { return clock }}}}, Fixes: f.Writer}
	f.Mux = http.NewServeMux()
	f.Mux.Handle("GET /p/{id}", op.DetailHandler())
	f.Mux.Handle("POST /p/{id}/approve", op.ApproveHandler())
	f.Mux.Handle("POST /p/{id}/reject", op.RejectHandler())
	f.Mux.Handle("POST /p/bulk", op.BulkHandler())
	for _, call := range []struct{ path, body string }{
		{"/p/" + c.ID + "/approve", ""},
		{"/p/" + c.ID + "/reject", `{"reason":"no"}`},
		{"/p/bulk", `{"action":"approve","ids":["` + c.ID + `"]}`},
	} {
		if w := f.Call(t, "acme", "POST", call.path, call.body); w.Code != http.StatusForbidden || roomtest.ProblemCode(t, w) != "feature_disabled" {
			t.Errorf("%s: %d %s", call.path, w.Code, w.Body)
		}
	}
	if row, _ := f.Claims.Get(context.Background(), "acme", c.ID); row.Status != syncerror.StatusPending || f.Writer.Count() != 0 {
		t.Fatalf("row %s, %d writes", row.Status, f.Writer.Count())
	}
	if w := f.Call(t, "acme", "GET", "/p/"+c.ID, ""); w.Code != http.StatusOK {
		t.Fatalf("detail: %d", w.Code)
	}
}
