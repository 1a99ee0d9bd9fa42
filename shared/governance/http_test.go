package governance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
	"github.com/syncassist/syncassist/shared/httpapi"
	"github.com/syncassist/syncassist/shared/identity"
)

// api mounts the handlers as the wiring does, behind the real role middleware.
func (e *env) api() http.Handler {
	s := &governance.Service{Records: e.records, Guard: e.guard, Audit: e.auditLog, Now: e.clock.Now}
	mux := http.NewServeMux()
	for pattern, h := range map[string]http.Handler{
		governance.PatternApprovals:           s.ApprovalsHandler(),
		governance.PatternOwnershipRejections: s.OwnershipRejectionsHandler(),
		governance.PatternLoopDetections:      s.LoopDetectionsHandler(),
		governance.PatternApprove:             s.ApproveHandler(),
		governance.PatternDeny:                s.DenyHandler(),
	} {
		mux.Handle(pattern, identity.ValidateGuestContext(identity.RequireApproverRole(h)))
	}
	return mux
}

type caller struct {
	tenant, subject string
	roles           []string
}

var (
	approverT1 = &caller{"t1", "victor", []string{identity.RoleApprover}}
	approverT2 = &caller{"t2", "trent", []string{identity.RoleApprover}}
)

func serve(h http.Handler, method, target string, c *caller) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, nil)
	ctx := httpapi.WithCorrelation(r.Context(), httpapi.Logger(r.Context()), "corr-test")
	if c != nil {
		ctx = identity.WithAuth(ctx, identity.Principal{Subject: c.subject, TenantID: c.tenant, Roles: c.roles})
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r.WithContext(ctx))
	return w
}

type listBody struct {
	Items  []map[string]any `json:"items"`
	Window *struct {
		From time.Time `json:"from"`
		To   time.Time `json:"to"`
	} `json:"window"`
	NextCursor *string `json:"nextCursor"`
}

func decodeList(t *testing.T, w *httptest.ResponseRecorder) listBody {
	t.Helper()
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(w.Body.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["nextCursor"]; !ok {
		t.Fatalf("envelope without nextCursor: %s", w.Body)
	}
	var b listBody
	if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	if b.Items == nil {
		t.Fatalf("items is not an array: %s", w.Body)
	}
	return b
}

func ids(b listBody) []string {
	var out []string
	for _, it := range b.Items {
		out = append(out, it["id"].(string))
	}
	return out
}

func problemCode(t *testing.T, w *httptest.ResponseRecorder) (string, []httpapi.FieldError) {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("content type %q, body %s", ct, w.Body)
	}
	var p httpapi.Problem
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	if p.CorrelationID == "" {
		t.Fatalf("problem without correlation id: %s", w.Body)
	}
	return p.Code, p.Errors
}

// seedReads stores rejections and loops of two tenants at the given ages before now.
func (e *env) seedReads(ages map[string]time.Duration) {
	ctx := context.Background()
	now := e.clock.Now()
	for id, age := range ages {
		for _, tenant := range []string{"t1", "t2"} {
			r := governancetest.SampleRejection(tenant, 0)
			r.ID, r.Time = tenant+"-"+id, now.Add(-age)
			l := governancetest.SampleLoop(tenant, 0)
			l.ID, l.Time = tenant+"-"+id, now.Add(-age)
			if err := e.records.PutRejection(ctx, r); err != nil {
				e.t.Fatal(err)
			}
			if err := e.records.PutLoop(ctx, l); err != nil {
				e.t.Fatal(err)
			}
		}
	}
}

func TestReadsServeTheLastHourOfTheCallersTenant(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.clock.Advance(3 * time.Hour)
	e.seedReads(map[string]time.Duration{
		"2h": 2 * time.Hour, "61m": 61 * time.Minute, "59m": 59 * time.Minute, "30m": 30 * time.Minute,
		"1m": time.Minute, "future": -time.Minute,
	})
	now := e.clock.Now()
	h := e.api()
	rejectionKeys := []string{"caller", "correlationId", "declaredOwner", "entity", "fields", "id", "policy", "resource", "target", "tenant", "time"}
	loopKeys := []string{"breakingCondition", "caller", "correlationId", "entity", "id", "resource", "target", "tenant", "time"}
	for _, c := range []struct {
		path string
		keys []string
	}{
		{"/api/governance/ownership-rejections", rejectionKeys},
		{"/api/governance/loop-detections", loopKeys},
	} {
		for _, q := range []struct {
			name     string
			query    string
			tenant   *caller
			want     []string
			wantFrom time.Time
		}{
			{"default window", "", approverT1, []string{"t1-1m", "t1-30m", "t1-59m"}, now.Add(-time.Hour)},
			{"since narrows", "?since=" + url.QueryEscape(now.Add(-45*time.Minute).Format(time.RFC3339)), approverT1,
				[]string{"t1-1m", "t1-30m"}, now.Add(-45 * time.Minute)},
			{"since never widens", "?since=" + url.QueryEscape(now.Add(-24*time.Hour).Format(time.RFC3339Nano)), approverT1,
				[]string{"t1-1m", "t1-30m", "t1-59m"}, now.Add(-time.Hour)},
			{"since in the future is an empty window", "?since=" + url.QueryEscape(now.Add(time.Hour).Format(time.RFC3339)),
				approverT1, nil, now},
			{"the other tenant sees its own", "", approverT2, []string{"t2-1m", "t2-30m", "t2-59m"}, now.Add(-time.Hour)},
		} {
			t.Run(c.path+"/"+q.name, func(t *testing.T) {
				b := decodeList(t, serve(h, http.MethodGet, c.path+q.query, q.tenant))
				if !slices.Equal(ids(b), q.want) {
					t.Fatalf("items %v, want %v", ids(b), q.want)
				}
				if b.Window == nil || !b.Window.From.Equal(q.wantFrom) || !b.Window.To.Equal(now) || b.NextCursor != nil {
					t.Fatalf("window %+v, cursor %v; want from %v to %v", b.Window, b.NextCursor, q.wantFrom, now)
				}
				for _, it := range b.Items {
					if got := slices.Sorted(maps.Keys(it)); !slices.Equal(got, c.keys) {
						t.Fatalf("item keys %v, want %v", got, c.keys)
					}
					if it["tenant"] != q.tenant.tenant {
						t.Fatalf("another tenant's record: %v", it)
					}
				}
			})
		}
	}
}

func TestReadsPaginate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.clock.Advance(time.Hour)
	ages := map[string]time.Duration{}
	for i := 1; i <= 5; i++ {
		ages[fmt.Sprintf("%02dm", i)] = time.Duration(i) * time.Minute
	}
	e.seedReads(ages)
	h := e.api()
	for _, path := range []string{"/api/governance/ownership-rejections", "/api/governance/loop-detections"} {
		var got []string
		target := path + "?limit=2"
		for pages := 0; ; pages++ {
			b := decodeList(t, serve(h, http.MethodGet, target, approverT1))
			if len(b.Items) > 2 {
				t.Fatalf("page of %d with limit 2", len(b.Items))
			}
			got = append(got, ids(b)...)
			if b.NextCursor == nil {
				break
			}
			if pages > 5 {
				t.Fatal("pagination does not end")
			}
			target = path + "?limit=2&cursor=" + url.QueryEscape(*b.NextCursor)
		}
		if want := []string{"t1-01m", "t1-02m", "t1-03m", "t1-04m", "t1-05m"}; !slices.Equal(got, want) {
			t.Fatalf("%s: %v, want %v", path, got, want)
		}
	}
}

func TestReadsRefuseBadQueries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	h := e.api()
	for _, c := range []struct {
		target string
		code   string
		fields []string
	}{
		{"/api/governance/ownership-rejections?since=yesterday", governance.CodeInvalidQuery, []string{"since"}},
		{"/api/governance/loop-detections?limit=0", governance.CodeInvalidQuery, []string{"limit"}},
		{"/api/governance/loop-detections?limit=201&since=x", governance.CodeInvalidQuery, []string{"since", "limit"}},
		{"/api/governance/ownership-rejections?cursor=garbage", governance.CodeInvalidCursor, nil},
		{"/api/governance/approvals?reason=finance&status=open", governance.CodeInvalidQuery, []string{"reason", "status"}},
		{"/api/governance/approvals?limit=abc", governance.CodeInvalidQuery, []string{"limit"}},
	} {
		w := serve(h, http.MethodGet, c.target, approverT1)
		code, errs := problemCode(t, w)
		var fields []string
		for _, fe := range errs {
			fields = append(fields, fe.Field)
		}
		if w.Code != http.StatusBadRequest || code != c.code || !slices.Equal(fields, c.fields) {
			t.Errorf("%s: %d %s %v, want 400 %s %v", c.target, w.Code, code, fields, c.code, c.fields)
		}
	}
}

func TestHandlersNeedAnApprover(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := &governance.Service{Records: e.records, Guard: e.guard, Now: e.clock.Now}
	for _, c := range []struct {
		name   string
		h      http.Handler
		caller *caller
		status int
	}{
		{"handler alone, anonymous", s.OwnershipRejectionsHandler(), nil, http.StatusUnauthorized},
		{"handler alone, no tenant", s.ApprovalsHandler(), &caller{"", "alice", []string{identity.RoleApprover}}, http.StatusUnauthorized},
		{"behind middleware, anonymous", e.api(), nil, http.StatusUnauthorized},
		{"behind middleware, operator", e.api(), &caller{"t1", "olga", []string{identity.RoleOperator}}, http.StatusForbidden},
		{"behind middleware, admin", e.api(), &caller{"t1", "ada", []string{identity.RoleAdmin}}, http.StatusOK},
	} {
		w := serve(c.h, http.MethodGet, "/api/governance/approvals", c.caller)
		if w.Code != c.status {
			t.Errorf("%s: %d, want %d (%s)", c.name, w.Code, c.status, w.Body)
		}
	}
}

// holdOptIn holds a CRM write of a contact's consent flag for approval.
