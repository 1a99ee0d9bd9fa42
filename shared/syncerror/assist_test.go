package syncerror_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
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
	"github.com/syncassist/syncassist/shared/tenant/tenanttest"
)

// scriptedAI is the AI's diagnosis: a value error proposing fix (none when empty), with
// its calls counted.
type scriptedAI struct {
	mu    sync.Mutex
	fix   []syncerror.FieldChange
	calls int
}

func (a *scriptedAI) Diagnose(_ context.Context, c syncerror.Claim, inferenceID string) (syncerror.Proposal, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls++
	return syncerror.Proposal{Class: "value", Summary: "invalid subsidiary", Fix: append([]syncerror.FieldChange{}, a.fix...),
		Rationale: "The target has no such subsidiary.", Confidence: 0.6, InferenceID: inferenceID, Provider: "fake", DiagnosedAt: clock}, nil
}

func (a *scriptedAI) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calls
}

// fakeRecords is the record store a revert reads: what the fake ERP holds now.
type fakeRecords struct {
	mu     sync.Mutex
	fields map[string]any
}

func (f *fakeRecords) ReadFields(context.Context, syncerror.Claim) (map[string]any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]any{}
	for k, v := range f.fields {
		out[k] = v
	}
	return out, nil
}

type assistFixture struct {
	claims  *syncerrortest.ClaimStore
	writer  *fakeWriter
	audits  *audittest.Store
	ai      *scriptedAI
	records *fakeRecords
	tenants *tenanttest.Store
	op      *decisions.Service
	worker  *diagnosis.Worker
	mux     *http.ServeMux
	now     time.Time
}

func newAssistFixture(t *testing.T) *assistFixture {
	f := &assistFixture{claims: syncerrortest.NewClaimStore(), writer: &fakeWriter{}, audits: &audittest.Store{}, ai: &scriptedAI{},
		records: &fakeRecords{fields: map[string]any{}}, tenants: tenantsWith(t, "true"), now: clock}
	clk := func() time.Time { return f.now }
	assist := &policy.Assist{Store: f.claims, Reader: f.records}
	f.op = &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: f.claims, Tenants: f.tenants, Now: clk,
		Audit: &audit.Log{Store: f.audits, Redactor: noRedact{}, Now: clk}}, Assist: assist}}, Fixes: f.writer}
	f.worker = &diagnosis.Worker{Claims: f.claims, Tenants: f.tenants, Diagnoser: f.ai, Log: discardLogger(), Now: clk, Assist: assist, Apply: f.op}
	f.mux = http.NewServeMux()
	f.mux.Handle("GET /p", f.op.ListHandler())
	f.mux.Handle("GET /p/{id}", f.op.DetailHandler())
	f.mux.Handle("POST /p/{id}/approve", f.op.ApproveHandler())
	f.mux.Handle("POST /p/{id}/reject", f.op.RejectHandler())
	f.mux.Handle("POST /p/{id}/revert", f.op.RevertHandler())
	f.mux.Handle("POST /p/bulk", f.op.BulkHandler())
	f.mux.Handle("GET /policy", f.op.PolicyGetHandler())
	f.mux.Handle("PUT /policy", f.op.PolicyPutHandler())
	f.mux.Handle("GET /knowledge", f.op.KnowledgeListHandler())
	f.mux.Handle("PUT /knowledge/{id}", f.op.KnowledgePutHandler())
	f.mux.Handle("DELETE /knowledge/{id}", f.op.KnowledgeDeleteHandler())
	f.mux.Handle("GET /automation", f.op.AutomationListHandler())
	f.mux.Handle("GET /insights", (&automation.InsightsReader{Claims: f.claims, Tenants: f.tenants, Assist: assist, Now: clk}).Handler())
	return f
}

// as calls the fixture's routes as user with one role.
func (f *assistFixture) as(t *testing.T, user, role, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{Subject: user, TenantID: "acme", Roles: []string{role}}))
	w := httptest.NewRecorder()
	f.mux.ServeHTTP(w, r)
	return w
}

// arrive claims an error about record recordID with payload and runs the worker on it.
func (f *assistFixture) arrive(t *testing.T, errorID, recordID, payload string) syncerror.Claim {
	t.Helper()
	rec := syncerrortest.SampleRecord("acme", errorID)
	rec.RecordID, rec.ErrorCode, rec.Payload = recordID, "INVALID_SUBSIDIARY", json.RawMessage(payload)
	c := syncerror.NewClaim(rec, syncerror.SourceWebhook, "m-"+errorID, f.now)
	if _, err := f.claims.Claim(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if resp := runOne(t, f.worker, c); len(resp.BatchItemFailures) > 0 {
		t.Fatalf("worker failed %s", c.ID)
	}
	got, err := f.claims.Get(context.Background(), "acme", c.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func (f *assistFixture) putPolicy(t *testing.T, body string) {
	t.Helper()
	if w := f.as(t, "ada", "admin", "PUT", "/policy", body); w.Code != http.StatusOK {
		t.Fatalf("policy: %d %s", w.Code, w.Body)
	}
}

func approvalOf(t *testing.T, w *httptest.ResponseRecorder) policy.Decision {
	t.Helper()
	var body struct{ Approval policy.Decision }
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatalf("%s: %v", w.Body, err)
	}
	return body.Approval
}

// Under the default policy an operator approves a value fix; the row said so before.
func TestDefaultPolicyLetsAnOperatorApproveAValueFix(t *testing.T) {
	f := newAssistFixture(t)
	c := readyClaim(t, f.claims, "acme", "E-1", clock)
	w := f.as(t, "olga", "operator", "GET", "/p", "")
	var page struct{ Items []queue.Summary }
	_ = json.Unmarshal(w.Body.Bytes(), &page)
	if len(page.Items) != 1 || page.Items[0].Approval == nil || page.Items[0].Approval.Apply != "operator" ||
		page.Items[0].Approval.RuleID != "operator-value-fixes" || !strings.Contains(page.Items[0].Approval.Reason, "class value") {
		t.Fatalf("listing %s", w.Body)
	}
	if w := f.as(t, "olga", "operator", "POST", "/p/"+c.ID+"/approve", ""); w.Code != http.StatusOK {
		t.Fatalf("operator approve: %d %s", w.Code, w.Body)
	}
	if f.writer.count() != 1 || f.writer.writes[0].who.Actor != "olga" {
		t.Fatalf("writes %+v", f.writer.writes)
	}
}

// A fix to a field the DLP takes for sensitive is the approvers'; an operator is told
// which rule says so.
func TestDefaultPolicyKeepsSensitiveFieldsForApprovers(t *testing.T) {
	f := newAssistFixture(t)
	c := readyClaim(t, f.claims, "acme", "E-1", clock)
	edit := `{"fix":[{"path":"contactPhone","after":"+44 20 7946 0000"}]}`
	w := f.as(t, "olga", "operator", "POST", "/p/"+c.ID+"/approve", edit)
	if w.Code != http.StatusForbidden || problemCode(t, w) != "approval_not_allowed" {
		t.Fatalf("operator on a phone field: %d %s", w.Code, w.Body)
	}
	if d := approvalOf(t, w); d.Apply != "approver" || d.RuleID != "approver-everything-else" {
		t.Fatalf("rule %+v", d)
	}
	if w := f.as(t, "anna", "approver", "POST", "/p/"+c.ID+"/approve", edit); w.Code != http.StatusOK {
		t.Fatalf("approver: %d %s", w.Code, w.Body)
	}
}

// two_approvers: the editor may not approve, nor anyone twice; the second distinct
// approver writes the editor's fix.
func TestTwoApproversRefusesTheEditor(t *testing.T) {
	f := newAssistFixture(t)
	f.putPolicy(t, `{"version":0,"rules":[{"id":"four-eyes","match":{},"apply":"two_approvers"}]}`)
	c := readyClaim(t, f.claims, "acme", "E-1", clock)
	path := "/p/" + c.ID + "/approve"
	if w := f.as(t, "olga", "operator", "POST", path, ""); w.Code != http.StatusForbidden {
		t.Fatalf("operator: %d", w.Code)
	}
	if w := f.as(t, "anna", "approver", "POST", path, `{"fix":[{"path":"shipcountry","after":"DEU"}]}`); w.Code != http.StatusAccepted {
		t.Fatalf("edit: %d %s", w.Code, w.Body)
	}
	w := f.as(t, "anna", "approver", "POST", path, "")
	if w.Code != http.StatusForbidden || approvalOf(t, w).RuleID != "four-eyes" {
		t.Fatalf("the editor approved: %d %s", w.Code, w.Body)
	}
	if w := f.as(t, "bert", "approver", "POST", path, ""); w.Code != http.StatusAccepted {
		t.Fatalf("first approval: %d %s", w.Code, w.Body)
	}
	if w := f.as(t, "bert", "approver", "POST", path, ""); w.Code != http.StatusForbidden {
		t.Fatalf("approved twice: %d %s", w.Code, w.Body)
	}
	if f.writer.count() != 0 {
		t.Fatal("written before two approvals")
	}
	f.writer.err = errors.New("ERP down")
	if w := f.as(t, "carl", "approver", "POST", path, ""); w.Code != http.StatusBadGateway {
		t.Fatalf("second approval, ERP down: %d %s", w.Code, w.Body)
	}
	f.writer.err = nil
	// Both approved; the write failed: the second approver retries it.
	if w := f.as(t, "carl", "approver", "POST", path, ""); w.Code != http.StatusOK {
		t.Fatalf("retry of the second approval: %d %s", w.Code, w.Body)
	}
	if f.writer.count() != 1 || f.writer.writes[0].fix[0].After != "DEU" {
		t.Fatalf("writes %+v", f.writer.writes)
	}
}

// The policy is validated whole, versioned and audited with before and after.
func TestApprovalPolicyPut(t *testing.T) {
	f := newAssistFixture(t)
	w := f.as(t, "ada", "admin", "GET", "/policy", "")
	var p policy.Policy
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || p.Version != 0 || len(p.Rules) != 2 {
		t.Fatalf("default: %s", w.Body)
	}
	bad := `{"version":0,"rules":[{"id":"A b","match":{"classes":["nope"],"fields":["["],"minConfidence":2},"apply":"sometimes"},` +
		`{"id":"x","apply":"operator","mode":"enforce"},{"id":"x","apply":"auto","mode":"loud"}]}`
	w = f.as(t, "ada", "admin", "PUT", "/policy", bad)
	var prob struct{ Errors []struct{ Field string } }
	_ = json.Unmarshal(w.Body.Bytes(), &prob)
	fields := map[string]bool{}
	for _, e := range prob.Errors {
		fields[e.Field] = true
	}
	for _, want := range []string{"rules[0].id", "rules[0].apply", "rules[0].match.classes[0]", "rules[0].match.fields[0]",
		"rules[0].match.minConfidence", "rules[1].mode", "rules[2].id", "rules[2].mode"} {
		if !fields[want] {
			t.Errorf("no error for %s: %s", want, w.Body)
		}
	}
	if w := f.as(t, "ada", "admin", "PUT", "/policy", `{"version":0,"rules":[],"extra":1}`); w.Code != http.StatusBadRequest {
		t.Fatalf("unknown field: %d", w.Code)
	}
	if w := f.as(t, "ada", "admin", "PUT", "/policy", `{"rules":[]}`); w.Code != http.StatusBadRequest {
		t.Fatalf("no version: %d", w.Code)
	}
	// null is no value: a null mode or match is refused, not read as the default.
	for field, body := range map[string]string{
		"rules[0].mode":  `{"version":0,"rules":[{"id":"a","match":{},"apply":"auto","mode":null}]}`,
		"rules[0].match": `{"version":0,"rules":[{"id":"a","match":null,"apply":"approver"}]}`,
		"rules[0]":       `{"version":0,"rules":[null]}`,
		"rules":          `{"version":0,"rules":null}`,
		"version":        `null`,
	} {
		w := f.as(t, "ada", "admin", "PUT", "/policy", body)
		var prob struct{ Errors []struct{ Field string } }
		_ = json.Unmarshal(w.Body.Bytes(), &prob)
		if w.Code != http.StatusBadRequest || problemCode(t, w) != "validation_failed" || len(prob.Errors) == 0 || prob.Errors[0].Field != field {
			t.Errorf("%s: %d %s, want validation_failed naming %s", body, w.Code, w.Body, field)
		}
	}
	if got := f.as(t, "ada", "admin", "GET", "/policy", ""); !strings.Contains(got.Body.String(), `"version":0`) {
		t.Fatalf("a refused policy was stored: %s", got.Body)
	}
	good := `{"version":0,"rules":[{"id":"auto-countries","match":{"classes":["value"],"fields":["ship*"],"minConfidence":0.8},"apply":"auto"}]}`
	w = f.as(t, "ada", "admin", "PUT", "/policy", good)
	_ = json.Unmarshal(w.Body.Bytes(), &p)
	if w.Code != http.StatusOK || p.Version != 1 || p.Rules[0].Mode != "shadow" {
		t.Fatalf("put: %d %s", w.Code, w.Body)
	}
	if w := f.as(t, "ada", "admin", "PUT", "/policy", good); w.Code != http.StatusConflict || problemCode(t, w) != "stale_version" {
		t.Fatalf("stale: %d %s", w.Code, w.Body)
	}
	recs := f.audits.All()
	last := recs[len(recs)-1]
	if last.ActionKey != "settings.approval_policy" || !strings.Contains(string(last.Details), "operator-value-fixes") ||
		!strings.Contains(string(last.Details), "auto-countries") {
		t.Fatalf("audit %+v", last)
	}
}

// In bulk, a two-approver approval that waits for the second approver says "recorded".
func TestBulkTwoApproversRecords(t *testing.T) {
	f := newAssistFixture(t)
	f.putPolicy(t, `{"version":0,"rules":[{"id":"four-eyes","match":{},"apply":"two_approvers"}]}`)
	c := readyClaim(t, f.claims, "acme", "E-1", clock)
	w := f.as(t, "anna", "approver", "POST", "/p/bulk", `{"action":"approve","ids":["`+c.ID+`"]}`)
	var res decisions.BulkResult
	if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil || res.Results[0].Outcome != "recorded" || f.writer.count() != 0 {
		t.Fatalf("bulk: %s", w.Body)
	}
}
