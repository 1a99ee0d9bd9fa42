package flow_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/hostauth"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
	"github.com/syncassist/syncassist/shared/webhook"
)

// events is the change-event route over a real flows table, a tenant "t1" with the
// feature on and every purpose's secret of its own, and a guard that records writes.
type events struct {
	t     *testing.T
	store *flow.DynamoStore
	// db and table are the flows table's, for what a test reads past the store.
	db      *dynamodb.Client
	table   string
	admin   tenant.Admin
	guard   *scriptedGuard
	secrets map[tenant.Purpose]string
	mux     *http.ServeMux
}

func newEvents(t *testing.T) *events { return newEventsOn(t, emutest.Pair) }

func newEventsOn(t *testing.T, emu emutest.Emulator) *events {
	t.Helper()
	ctx, clock := context.Background(), func() time.Time { return t0 }
	db, table := emu.Tables(t)
	e := &events{t: t, db: db, table: table(blueprint.TableFlows), guard: &scriptedGuard{results: []guardResult{{}}}}
	e.store = flow.NewDynamoStore(e.db, e.table)
	tenants := tenanttest.NewStore()
	e.admin = tenant.Admin{Store: tenants, Now: clock}
	var err error
	if e.secrets, err = e.admin.Create(ctx, "t1", nil); err != nil {
		t.Fatal(err)
	}
	for _, k := range tenant.FeatureFlags {
		if err := e.admin.Set(ctx, "t1", k, "true"); err != nil {
			t.Fatal(err)
		}
	}
	// The case: a CRM-owned field (email) carried into the host ERP only by a
	// change the CRM made.
	for _, f := range []flow.Flow{
		{ID: "crm-to-erp", Enabled: true, Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
			Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}, Mapping: map[string]string{"email": "Email"}},
		{ID: "ship-to-erp", Enabled: true, Source: flow.Endpoint{System: connector.SystemShipping, Entity: "Account"},
			Target: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"}, Mapping: map[string]string{"email": "Email"}},
	} {
		if err := e.store.PutFlow(ctx, "t1", f); err != nil {
			t.Fatal(err)
		}
	}
	auth := map[connector.System]*hostauth.Authenticator[tenant.Config]{}
	for _, sys := range connector.Systems {
		auth[sys] = &hostauth.Authenticator[tenant.Config]{Purpose: string(tenant.FlowPurpose(string(sys))),
			Tenants: tenant.Directory{Reader: tenants}, Verifier: webhook.Verifier{Now: clock}, Now: clock, Hint: flow.SignatureHint(sys)}
	}
	svc := &flow.Service{Store: e.store, Claims: e.store, SourceAuth: auth, Now: clock,
		Exec: &flow.Executor{Store: e.store, Guard: e.guard, SyncErrors: &reporter{}, Now: clock}}
	e.mux = http.NewServeMux()
	e.mux.Handle("POST /api/flows/events/{system}", svc.EventHandler())
	return e
}

func changeBody(eventID string) []byte {
	b, _ := json.Marshal(map[string]any{"eventId": eventID, "entity": "Account", "recordId": "C-1",
		"changedAt": t0.Format(time.RFC3339), "fields": map[string]any{"Email": "attacker@example.com"}})
	return b
}

// signed is a request to system's path, signed with secret under webhook-id msgID.
func signed(system, secret, msgID string, body []byte) *http.Request {
	key, err := webhook.ParseSecret(secret)
	if err != nil {
		panic(err)
	}
	r := httptest.NewRequest("POST", "/api/flows/events/"+system, strings.NewReader(string(body)))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(hostauth.HeaderTenantID, "t1")
	webhook.Sign(key, msgID, t0, body).Set(r.Header)
	return r
}

// post serves r and checks its status and problem code ("" for a 202).
func (e *events) post(r *http.Request, status int, code string) *httptest.ResponseRecorder {
	e.t.Helper()
	w := httptest.NewRecorder()
	e.mux.ServeHTTP(w, r)
	var p struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(w.Body.Bytes(), &p)
	if w.Code != status || p.Code != code {
		e.t.Fatalf("%s %s: %d %s, want %d %s", r.Method, r.URL.Path, w.Code, w.Body, status, code)
	}
	return w
}

// unchanged fails unless the guard wrote exactly writes times and the tenant has exactly
// runs runs.
func (e *events) unchanged(writes, runs int) {
	e.t.Helper()
	got, _, err := e.store.Runs(context.Background(), "t1", flow.RunQuery{Limit: 50})
	if err != nil || len(e.guard.writes) != writes || len(got) != runs {
		e.t.Fatalf("%d writes, %d runs (%v); want %d and %d", len(e.guard.writes), len(got), err, writes, runs)
	}
}

func TestFlowEventsAreSignedByTheirOwnSource(t *testing.T) {
	e := newEvents(t)
	body := changeBody("ev-1")
	// The host ERP's sync-error secret, and another system's own, sign nothing here.
	w := e.post(signed("crm", e.secrets[tenant.PurposeIngest], "msg_1", body), 401, "invalid_signature")
	if !strings.Contains(w.Body.String(), "flow.crm") {
		t.Fatalf("the refusal does not name the secret to sign with: %s", w.Body)
	}
	e.post(signed("crm", e.secrets[tenant.FlowPurpose("hosterp")], "msg_2", body), 401, "invalid_signature")
	e.post(signed("crm", e.secrets[tenant.FlowPurpose("shipping")], "msg_3", body), 401, "invalid_signature")
	e.unchanged(0, 0)

	// Signed by the CRM: the run is the CRM's, and so is the guarded write.
	crmSecret := e.secrets[tenant.FlowPurpose("crm")]
	e.post(signed("crm", crmSecret, "msg_4", body), 202, "")
	e.unchanged(1, 1)
	if w := e.guard.writes[0]; w.Source != connector.SystemCRM || w.Target != connector.SystemHostERP {
		t.Fatalf("guarded write %+v, want crm → hosterp", w)
	}
	// The captured request, replayed as it is on the other sources' paths, verifies on none;
	// on its own path it is the sender's redelivery, which starts nothing.
	e.post(signed("crm", crmSecret, "msg_4", body), 202, "")
	for _, sys := range []string{"hosterp", "shipping", "marketing", "erp2"} {
		r := signed("crm", crmSecret, "msg_4", body)
		r.URL.Path = "/api/flows/events/" + sys
		e.post(r, 401, "invalid_signature")
	}
	e.unchanged(1, 1)
}

func TestAWebhookIDIsOneMessageAcrossSources(t *testing.T) {
	e := newEvents(t)
	e.post(signed("crm", e.secrets[tenant.FlowPurpose("crm")], "msg_same", changeBody("ev-1")), 202, "")
	// The same webhook-id validly signed for another source, or for another event of the
	// same source, is a replay: refused, nothing started.
	e.post(signed("shipping", e.secrets[tenant.FlowPurpose("shipping")], "msg_same", changeBody("ev-1")), 409, "request_replayed")
	e.post(signed("crm", e.secrets[tenant.FlowPurpose("crm")], "msg_same", changeBody("ev-2")), 409, "request_replayed")
	e.unchanged(1, 1)
	// The sender's redelivery of the message is answered as a duplicate.
	w := e.post(signed("crm", e.secrets[tenant.FlowPurpose("crm")], "msg_same", changeBody("ev-1")), 202, "")
	if !strings.Contains(w.Body.String(), `"duplicate":true`) {
		t.Fatalf("redelivery: %s", w.Body)
	}
	e.post(signed("shipping", e.secrets[tenant.FlowPurpose("shipping")], "msg_other", changeBody("ev-1")), 202, "")
	e.unchanged(2, 2)
}

func TestWebhookClaimsExpire(t *testing.T) {
	s, ctx := newStore(t), context.Background()
	if err := s.ClaimWebhook(ctx, "t1", "msg_1", connector.SystemCRM, "ev-1", t0); err != nil {
		t.Fatal(err)
	}
	if err := s.ClaimWebhook(ctx, "t2", "msg_1", connector.SystemShipping, "ev-1", t0); err != nil {
		t.Fatalf("another tenant's webhook-id: %v", err)
	}
	if err := s.ClaimWebhook(ctx, "t1", "msg_1", connector.SystemShipping, "ev-1", t0.Add(flow.ClaimWindow-time.Second)); !errors.Is(err, flow.ErrReplayed) {
		t.Fatalf("within the window: %v", err)
	}
	if err := s.ClaimWebhook(ctx, "t1", "msg_1", connector.SystemShipping, "ev-1", t0.Add(flow.ClaimWindow)); err != nil {
		t.Fatalf("after the window: %v", err)
	}
	if err := s.ClaimWebhook(ctx, "t1", "msg_1", connector.SystemCRM, "ev-1", t0.Add(flow.ClaimWindow)); !errors.Is(err, flow.ErrReplayed) {
		t.Fatalf("the new claim holds: %v", err)
	}
}

func TestATenantWithoutSourceSecretsIsRefusedUntilOneIsRotatedIn(t *testing.T) {
	e := newEvents(t)
	ctx := context.Background()
	// A tenant stored before sources had secrets of their own.
	err := e.admin.Update(ctx, "t1", func(c *tenant.Config) error {
		c.FlowSecrets = [len(tenant.FlowSources)][]tenant.Secret{}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	old := e.secrets[tenant.FlowPurpose("crm")]
	w := e.post(signed("crm", old, "msg_1", changeBody("ev-1")), 401, "invalid_signature")
	if !strings.Contains(w.Body.String(), "rotates one in") {
		t.Fatalf("no hint: %s", w.Body)
	}
	fresh, err := e.admin.RotateSecret(ctx, "t1", tenant.FlowPurpose("crm"), "", tenant.DefaultRotationGrace)
	if err != nil {
		t.Fatal(err)
	}
	e.post(signed("crm", fresh, "msg_2", changeBody("ev-1")), 202, "")
	e.unchanged(1, 1)
}

func TestFlowEventsHonourTheFlagsAndThePollersIDs(t *testing.T) {
	e := newEvents(t)
	ctx, crm := context.Background(), e.secrets[tenant.FlowPurpose("crm")]
	w := e.post(signed("crm", crm, "msg_1", changeBody("poll:ABC")), 400, "validation_failed")
	if !strings.Contains(w.Body.String(), `"field":"eventId"`) {
		t.Fatalf("poll: id: %s", w.Body)
	}
	e.post(signed("nope", crm, "msg_2", changeBody("ev-1")), 404, "unknown_system")
	for _, k := range tenant.FeatureFlags {
		if err := e.admin.Set(ctx, "t1", k, "false"); err != nil {
			t.Fatal(err)
		}
		e.post(signed("crm", crm, "msg_3", changeBody("ev-1")), 403, "feature_disabled")
		if err := e.admin.Set(ctx, "t1", k, "true"); err != nil {
			t.Fatal(err)
		}
	}
	e.unchanged(0, 0)
	// Nothing above claimed the webhook-id: the same message is accepted once on.
	e.post(signed("crm", crm, "msg_3", changeBody("ev-1")), 202, "")
	e.unchanged(1, 1)
}

// The tenant package lists the flow sources without importing connector; they must agree.
func TestEverySystemIsAFlowSource(t *testing.T) {
	if len(tenant.FlowSources) != len(connector.Systems) {
		t.Fatalf("tenant.FlowSources %v, connector.Systems %v", tenant.FlowSources, connector.Systems)
	}
	for i, sys := range connector.Systems {
		if tenant.FlowSources[i] != string(sys) || !tenant.ValidPurpose(tenant.FlowPurpose(string(sys))) {
			t.Fatalf("system %s is not flow source %d", sys, i)
		}
	}
}

// An id no flow or run can have is a missing resource (or, where it is being created, an
// invalid field), never an outage: it does not reach the store.
func TestFlowRoutesRefuseIDsNoneCanHave(t *testing.T) {
	s := newStore(t)
	svc := &flow.Service{Store: s}
	mux := http.NewServeMux()
	mux.Handle("GET /api/settings/flows/{id}", svc.FlowHandler())
	mux.Handle("PUT /api/settings/flows/{id}", svc.PutFlowHandler())
	mux.Handle("DELETE /api/settings/flows/{id}", svc.DeleteFlowHandler())
	mux.Handle("GET /api/flows/runs/{id}", svc.RunHandler())
	mux.Handle("GET /api/flows/runs", svc.RunsHandler())
	long := strings.Repeat("x", 1100)
	for _, c := range []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"GET", "/api/settings/flows/" + long, "", 404, "not_found"},
		{"DELETE", "/api/settings/flows/" + long, "", 404, "not_found"},
		{"GET", "/api/settings/flows/has%23hash", "", 404, "not_found"},
		{"DELETE", "/api/settings/flows/-leading-dash", "", 404, "not_found"},
		{"GET", "/api/settings/flows/no-such-flow", "", 404, "not_found"},
		{"DELETE", "/api/settings/flows/no-such-flow", "", 404, "not_found"},
		{"PUT", "/api/settings/flows/" + long, `{}`, 400, "validation_failed"},
		{"GET", "/api/flows/runs/" + long, "", 404, "not_found"},
		{"GET", "/api/flows/runs?flowId=" + long, "", 400, "invalid_query"},
	} {
		r := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
		r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{TenantID: "t1", Subject: "admin", Roles: []string{"admin"}}))
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		var p struct {
			Code string `json:"code"`
		}
		_ = json.Unmarshal(w.Body.Bytes(), &p)
		if w.Code != c.status || p.Code != c.code {
			t.Errorf("%s %.60s: %d %s, want %d %s", c.method, c.path, w.Code, w.Body, c.status, c.code)
		}
	}
}

// A flow's enabled is stated, never implied: missing or null it is 400 naming the field,
// and nothing is stored (it decoded as false and saved a disabled flow; found by the
// OpenAPI fuzz search, issue 36).
func TestPutFlowRequiresEnabled(t *testing.T) {
	s := newStore(t)
	svc := &flow.Service{Store: s, Audit: &audit.Log{Store: &audittest.Store{}, Redactor: plainRedactor{}}}
	mux := http.NewServeMux()
	mux.Handle("PUT /api/settings/flows/{id}", svc.PutFlowHandler())
	const rest = `"source":{"system":"crm","entity":"contact"},"target":{"system":"marketing","entity":"member"},"mapping":{"email":"email"}`
	for _, body := range []string{`{` + rest + `}`, `{"enabled":null,` + rest + `}`} {
		r := httptest.NewRequest("PUT", "/api/settings/flows/f1", strings.NewReader(body))
		r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{TenantID: "t1", Subject: "admin", Roles: []string{"admin"}}))
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		var p struct {
			Code   string `json:"code"`
			Errors []struct {
				Field string `json:"field"`
			} `json:"errors"`
		}
		_ = json.Unmarshal(w.Body.Bytes(), &p)
		if w.Code != 400 || p.Code != "validation_failed" || len(p.Errors) != 1 || p.Errors[0].Field != "enabled" {
			t.Errorf("%s: %d %s, want 400 validation_failed naming enabled", body, w.Code, w.Body)
		}
	}
	if flows, err := s.Flows(context.Background(), "t1"); err != nil || len(flows) != 0 {
		t.Errorf("stored %v (%v), want nothing", flows, err)
	}
}
