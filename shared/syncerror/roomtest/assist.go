package roomtest

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/automation"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/diagnosis"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

// ScriptedAI is the AI's diagnosis: a value error proposing Fix (none when empty), with
// its calls counted.
type ScriptedAI struct {
	mu    sync.Mutex
	Fix   []syncerror.FieldChange
	calls int
}

// Diagnose answers the scripted proposal.
func (a *ScriptedAI) Diagnose(_ context.Context, c syncerror.Claim, inferenceID string) (syncerror.Proposal, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls++
	return syncerror.Proposal{Class: "value", Summary: "invalid subsidiary", Fix: append([]syncerror.FieldChange{}, a.Fix...),
		Rationale: "The target has no such subsidiary.", Confidence: 0.6, InferenceID: inferenceID, Provider: "fake", DiagnosedAt: Clock}, nil
}

// Count is how many diagnoses were asked for.
func (a *ScriptedAI) Count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls
}

// Records is the record store a revert reads: what the fake ERP holds now, at Version.
type Records struct {
	mu      sync.Mutex
	Fields  map[string]any
	Version string
}

// ReadFields answers a copy of Fields, and Version.
func (f *Records) ReadFields(context.Context, syncerror.Claim) (map[string]any, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]any{}
	for k, v := range f.Fields {
		out[k] = v
	}
	return out, f.Version, nil
}

// AssistFixture is the operator's routes with the approval policy, the knowledge, the
// automation records, revert, bulk and insights, and the diagnosis worker that feeds them,
// for tenant acme with the feature on; Now moves its clock.
type AssistFixture struct {
	Claims  *syncerrortest.ClaimStore
	Writer  *Writer
	Audits  *audittest.Store
	AI      *ScriptedAI
	Records *Records
	Tenants *tenanttest.Store
	Op      *decisions.Service
	Worker  *diagnosis.Worker
	Mux     *http.ServeMux
	Now     time.Time
}

// NewAssistFixture builds the stack at Clock.
func NewAssistFixture(t *testing.T) *AssistFixture {
	f := &AssistFixture{Claims: syncerrortest.NewClaimStore(), Writer: &Writer{}, Audits: &audittest.Store{}, AI: &ScriptedAI{},
		Records: &Records{Fields: map[string]any{}}, Tenants: syncerrortest.TenantsWith(t, "true"), Now: Clock}
	clk := func() time.Time { return f.Now }
	assist := &policy.Assist{Store: f.Claims, Reader: f.Records}
	f.Op = &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: f.Claims, Tenants: f.Tenants, Now: clk,
		Audit: &audit.Log{Store: f.Audits, Redactor: NoRedact{}, Now: clk}}, Assist: assist}}, Fixes: f.Writer}
	f.Worker = &diagnosis.Worker{Claims: f.Claims, Tenants: f.Tenants, Diagnoser: f.AI, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Now: clk, Assist: assist, Apply: f.Op}
	f.Mux = http.NewServeMux()
	f.Mux.Handle("GET /p", f.Op.ListHandler())
	f.Mux.Handle("GET /p/{id}", f.Op.DetailHandler())
	f.Mux.Handle("POST /p/{id}/approve", f.Op.ApproveHandler())
	f.Mux.Handle("POST /p/{id}/reject", f.Op.RejectHandler())
	f.Mux.Handle("POST /p/{id}/revert", f.Op.RevertHandler())
	f.Mux.Handle("POST /p/bulk", f.Op.BulkHandler())
	f.Mux.Handle("GET /policy", f.Op.PolicyGetHandler())
	f.Mux.Handle("PUT /policy", f.Op.PolicyPutHandler())
	f.Mux.Handle("GET /knowledge", f.Op.KnowledgeListHandler())
	f.Mux.Handle("PUT /knowledge/{id}", f.Op.KnowledgePutHandler())
	f.Mux.Handle("DELETE /knowledge/{id}", f.Op.KnowledgeDeleteHandler())
	f.Mux.Handle("GET /automation", f.Op.AutomationListHandler())
	f.Mux.Handle("GET /insights", (&automation.InsightsReader{Claims: f.Claims, Tenants: f.Tenants, Assist: assist, Now: clk}).Handler())
	return f
}

// As calls the fixture's routes as user of tenant acme with one role.
func (f *AssistFixture) As(t *testing.T, user, role, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	return serve(f.Mux, &identity.Principal{Subject: user, TenantID: "acme", Roles: []string{role}}, method, path, body)
}

// Arrive claims an error about record recordID with payload and runs the worker on it.
func (f *AssistFixture) Arrive(t *testing.T, errorID, recordID, payload string) syncerror.Claim {
	t.Helper()
	rec := syncerrortest.SampleRecord("acme", errorID)
	rec.RecordID, rec.ErrorCode, rec.Payload = recordID, "INVALID_SUBSIDIARY", json.RawMessage(payload)
	c := syncerror.NewClaim(rec, syncerror.SourceWebhook, "m-"+errorID, f.Now)
	if _, err := f.Claims.Claim(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if resp := syncerrortest.RunOne(t, f.Worker, c); len(resp.BatchItemFailures) > 0 {
		t.Fatalf("worker failed %s", c.ID)
	}
	got, err := f.Claims.Get(context.Background(), "acme", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// PutPolicy puts the tenant's approval policy as an admin.
func (f *AssistFixture) PutPolicy(t *testing.T, body string) {
	t.Helper()
	if w := f.As(t, "ada", "admin", "PUT", "/policy", body); w.Code != http.StatusOK {
		t.Fatalf("policy: %d %s", w.Code, w.Body)
	}
}

// AutoApply sets the tenant's auto-apply setting.
func (f *AssistFixture) AutoApply(t *testing.T, on string) {
	t.Helper()
	cfg, _ := f.Tenants.Get(context.Background(), "acme")
	cfg.Settings[tenant.KeyAutoApply] = on
	if err := f.Tenants.Update(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
}

// Insights reads the insights of the last 7 days as an operator.
func (f *AssistFixture) Insights(t *testing.T) automation.Insights {
	t.Helper()
	w := f.As(t, "olga", "operator", "GET", "/insights?window=7d", "")
	var in automation.Insights
	if err := json.Unmarshal(w.Body.Bytes(), &in); err != nil || w.Code != http.StatusOK {
		t.Fatalf("insights %d %s", w.Code, w.Body)
	}
	return in
}
