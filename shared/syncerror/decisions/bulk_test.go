package decisions_test

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
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

func bulkCall(t *testing.T, h http.Handler, ctx context.Context, body string) decisions.BulkResult {
	t.Helper()
	r := httptest.NewRequest("POST", "/bulk", strings.NewReader(body)).WithContext(
		identity.WithAuth(ctx, identity.Principal{Subject: "alice", TenantID: "t1", Roles: []string{"approver"}}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var res decisions.BulkResult
	if err := json.Unmarshal(w.Body.Bytes(), &res); w.Code != 200 || err != nil {
		t.Fatalf("bulk: %d %s", w.Code, w.Body)
	}
	return res
}

// Each item is decided by the single-item handler: one write per approved item, and the
// results say per item what happened, in request order.
func TestBulkApproveItemByItem(t *testing.T) {
	f := roomtest.NewOpFixture(t)
	op := &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: f.Claims, Now: func() time.Time { return clock },
		Audit: &audit.Log{Store: f.Audits, Redactor: roomtest.NoRedact{}, Now: func() time.Time { return clock }}}}}, Fixes: f.Writer}
	a := roomtest.ReadyClaim(t, f.Claims, "t1", "b-1", clock)
	b := roomtest.ReadyClaim(t, f.Claims, "t1", "b-2", clock)
	other := roomtest.ReadyClaim(t, f.Claims, "t2", "b-3", clock)
	res := bulkCall(t, op.BulkHandler(), context.Background(),
		`{"action":"approve","fixKeys":`+fixKeysOf(t, f.Claims, "t1", a.ID, b.ID)+`,"ids":["`+a.ID+`","`+other.ID+`","`+b.ID+`"]}`)
	got := []string{}
	for _, it := range res.Results {
		got = append(got, it.ID+":"+it.Outcome)
	}
	want := []string{a.ID + ":approved", other.ID + ":failed", b.ID + ":approved"}
	if strings.Join(got, " ") != strings.Join(want, " ") || res.Succeeded != 2 || res.Failed != 1 {
		t.Fatalf("results %v (%d/%d), want %v", got, res.Succeeded, res.Failed, want)
	}
	if res.Results[1].Status != 404 || res.Results[1].Problem == nil || res.Results[1].Problem.Code != "not_found" {
		t.Fatalf("another tenant's id: %+v", res.Results[1])
	}
	if f.Writer.Count() != 2 {
		t.Fatalf("ERP writes %d, want 2", f.Writer.Count())
	}
}

// Items that cannot finish before the request's deadline are not started: they come back
// skipped for a retry, and nothing is written for them.
func TestBulkSkipsWhatTheDeadlineCannotHold(t *testing.T) {
	f := roomtest.NewOpFixture(t)
	op := &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: f.Claims, Now: func() time.Time { return clock }}}}, Fixes: f.Writer}
	a := roomtest.ReadyClaim(t, f.Claims, "t1", "d-1", clock)
	ctx, cancel := context.WithTimeout(context.Background(), decisions.BulkDeadlineReserve/2)
	defer cancel()
	res := bulkCall(t, op.BulkHandler(), ctx, `{"action":"approve","fixKeys":`+fixKeysOf(t, f.Claims, "t1", a.ID)+`,"ids":["`+a.ID+`"]}`)
	it := res.Results[0]
	if it.Outcome != "skipped" || it.Status != 503 || it.Problem.Code != "not_attempted" || f.Writer.Count() != 0 {
		t.Fatalf("item %+v, writes %d", it, f.Writer.Count())
	}
	if row, _ := f.Claims.Get(context.Background(), "t1", a.ID); row.Status != syncerror.StatusPending {
		t.Fatalf("skipped row is %s, want pending", row.Status)
	}
}

func TestBulkValidation(t *testing.T) {
	op := &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: roomtest.NewOpFixture(t).Claims}}}}
	for _, body := range []string{`{"action":"approve","ids":[]}`, `{"action":"delete","ids":["se_a"]}`,
		`{"action":"reject","ids":["se_a"]}`, `{"action":"approve","ids":["se_a","se_a"]}`} {
		r := httptest.NewRequest("POST", "/bulk", strings.NewReader(body)).WithContext(
			identity.WithAuth(context.Background(), identity.Principal{Subject: "alice", TenantID: "t1", Roles: []string{"approver"}}))
		w := httptest.NewRecorder()
		op.BulkHandler().ServeHTTP(w, r)
		if w.Code != 400 || roomtest.ProblemCode(t, w) != "validation_failed" {
			t.Errorf("%s: %d %s", body, w.Code, roomtest.ProblemCode(t, w))
		}
	}
}
