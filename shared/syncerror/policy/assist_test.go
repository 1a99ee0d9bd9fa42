package policy_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

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
	f := roomtest.NewAssistFixture(t)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	w := f.As(t, "olga", "operator", "GET", "/p", "")
	var page struct{ Items []queue.Summary }
	_ = json.Unmarshal(w.Body.Bytes(), &page)
	if len(page.Items) != 1 || page.Items[0].Approval == nil || page.Items[0].Approval.Apply != "operator" ||
		page.Items[0].Approval.RuleID != "operator-value-fixes" || !strings.Contains(page.Items[0].Approval.Reason, "class value") {
		t.Fatalf("listing %s", w.Body)
	}
	if w := f.As(t, "olga", "operator", "POST", "/p/"+c.ID+"/approve", ""); w.Code != http.StatusOK {
		t.Fatalf("operator approve: %d %s", w.Code, w.Body)
	}
	if f.Writer.Count() != 1 || f.Writer.Writes[0].Who.Actor != "olga" {
		t.Fatalf("writes %+v", f.Writer.Writes)
	}
}

// A fix to a field the DLP takes for sensitive is the approvers'; an operator is told
// which rule says so.
func TestDefaultPolicyKeepsSensitiveFieldsForApprovers(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	edit := `{"fix":[{"path":"contactPhone","after":"+44 20 7946 0000"}]}`
	w := f.As(t, "olga", "operator", "POST", "/p/"+c.ID+"/approve", edit)
	if w.Code != http.StatusForbidden || roomtest.ProblemCode(t, w) != "approval_not_allowed" {
		t.Fatalf("operator on a phone field: %d %s", w.Code, w.Body)
	}
	if d := approvalOf(t, w); d.Apply != "approver" || d.RuleID != "approver-everything-else" {
		t.Fatalf("rule %+v", d)
	}
	if w := f.As(t, "anna", "approver", "POST", "/p/"+c.ID+"/approve", edit); w.Code != http.StatusOK {
		t.Fatalf("approver: %d %s", w.Code, w.Body)
	}
}

// two_approvers: the editor may not approve, nor anyone twice; the second distinct
// approver writes the editor's fix.
func TestTwoApproversRefusesTheEditor(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"four-eyes","match":{},"apply":"two_approvers"}]}`)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	path := "/p/" + c.ID + "/approve"
	if w := f.As(t, "olga", "operator", "POST", path, ""); w.Code != http.StatusForbidden {
		t.Fatalf("operator: %d", w.Code)
	}
	if w := f.As(t, "anna", "approver", "POST", path, `{"fix":[{"path":"shipcountry","after":"DEU"}]}`); w.Code != http.StatusAccepted {
		t.Fatalf("edit: %d %s", w.Code, w.Body)
	}
	w := f.As(t, "anna", "approver", "POST", path, "")
	if w.Code != http.StatusForbidden || approvalOf(t, w).RuleID != "four-eyes" {
		t.Fatalf("the editor approved: %d %s", w.Code, w.Body)
	}
	if w := f.As(t, "bert", "approver", "POST", path, ""); w.Code != http.StatusAccepted {
		t.Fatalf("first approval: %d %s", w.Code, w.Body)
	}
	if w := f.As(t, "bert", "approver", "POST", path, ""); w.Code != http.StatusForbidden {
		t.Fatalf("approved twice: %d %s", w.Code, w.Body)
	}
	if f.Writer.Count() != 0 {
		t.Fatal("written before two approvals")
	}
	if w := f.As(t, "carl", "approver", "POST", path, ""); w.Code != http.StatusOK {
		t.Fatalf("second approval: %d %s", w.Code, w.Body)
	}
	if f.Writer.Count() != 1 || f.Writer.Writes[0].Fix[0].After != "DEU" {
		t.Fatalf("writes %+v", f.Writer.Writes)
	}
}

// A two-approver edit whose write failed is not written by the next approve without an
// edit: the row is back as the AI proposed it (the detail shows no edit; the history
// names the attempt), the edit's approvals went with it, and a new round approves the
// AI's fix, which is what is written. Approvals of the AI's own fix do survive a failed
// write: either approver retries it alone.
func TestTwoApproversAFailedEditLeavesNoPendingEdit(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"four-eyes","match":{},"apply":"two_approvers"}]}`)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	path := "/p/" + c.ID + "/approve"
	for _, a := range []struct{ who, body string }{{"anna", `{"fix":[{"path":"shipcountry","after":"DEU"}]}`}, {"bert", ""}} {
		if w := f.As(t, a.who, "approver", "POST", path, a.body); w.Code != http.StatusAccepted {
			t.Fatalf("%s: %d %s", a.who, w.Code, w.Body)
		}
	}
	f.Writer.Err = errors.New("ERP down")
	if w := f.As(t, "carl", "approver", "POST", path, ""); w.Code != http.StatusBadGateway {
		t.Fatalf("second approval, ERP down: %d %s", w.Code, w.Body)
	}
	f.Writer.Err = nil
	if w := f.As(t, "bert", "approver", "GET", "/p/"+c.ID, ""); strings.Contains(w.Body.String(), `"editedFix"`) ||
		!strings.Contains(w.Body.String(), `edited fix: shipcountry = \"DEU\"`) {
		t.Fatalf("detail after the failed write: %s", w.Body)
	}
	// Carl's approve starts a new round for the AI's fix; anna, no longer an editor, ends it.
	if w := f.As(t, "carl", "approver", "POST", path, ""); w.Code != http.StatusAccepted || f.Writer.Count() != 0 {
		t.Fatalf("a retry wrote the edit nobody is shown: %d %s (writes %+v)", w.Code, w.Body, f.Writer.Writes)
	}
	f.Writer.Err = errors.New("ERP down")
	if w := f.As(t, "anna", "approver", "POST", path, ""); w.Code != http.StatusBadGateway {
		t.Fatalf("second approval of the AI's fix, ERP down: %d %s", w.Code, w.Body)
	}
	f.Writer.Err = nil
	if w := f.As(t, "anna", "approver", "POST", path, ""); w.Code != http.StatusOK {
		t.Fatalf("retry of the AI's fix: %d %s", w.Code, w.Body)
	}
	if f.Writer.Count() != 1 || f.Writer.Writes[0].Fix[0].After != "DE" {
		t.Fatalf("writes %+v", f.Writer.Writes)
	}
}

// two_approvers counts a person once across channels: signed in to the console (login id,
// e-mail alias) and in the embedded surface (the host's user id, that e-mail), whether as
// the editor or as an approver.
func TestTwoApproversCountsAPersonOnceAcrossChannels(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"four-eyes","match":{},"apply":"two_approvers"}]}`)
	console := identity.Principal{Subject: "u-7f3a", TenantID: "acme", Email: "anna@acme.example", Roles: []string{identity.RoleApprover}}
	embedded := identity.Principal{Subject: "Anna@acme.example", TenantID: "acme", Roles: []string{identity.RoleApprover},
		SessionID: "ses_x", Module: "sync-errors"}
	call := func(path, body string, with func(context.Context, identity.Principal) context.Context, p identity.Principal) int {
		r := httptest.NewRequest("POST", path, strings.NewReader(body))
		w := httptest.NewRecorder()
		f.Mux.ServeHTTP(w, r.WithContext(with(r.Context(), p)))
		return w.Code
	}
	approved := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	path := "/p/" + approved.ID + "/approve"
	if code := call(path, "", identity.WithAuth, console); code != http.StatusAccepted {
		t.Fatalf("first approval: %d", code)
	}
	if code := call(path, "", identity.WithUser, embedded); code != http.StatusForbidden {
		t.Fatalf("the same person's second approval from the embedded surface: %d, want 403", code)
	}
	edited := roomtest.ReadyClaim(t, f.Claims, "acme", "E-2", clock)
	path = "/p/" + edited.ID + "/approve"
	if code := call(path, `{"fix":[{"path":"shipcountry","after":"DEU"}]}`, identity.WithUser, embedded); code != http.StatusAccepted {
		t.Fatalf("edit: %d", code)
	}
	if code := call(path, "", identity.WithAuth, console); code != http.StatusForbidden {
		t.Fatalf("the editor approved from the console: %d, want 403", code)
	}
	if f.Writer.Count() != 0 {
		t.Fatalf("written with one person's approval: %d writes", f.Writer.Count())
	}
}

// The policy is validated whole, versioned and audited with before and after.
func TestApprovalPolicyPut(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	w := f.As(t, "ada", "admin", "GET", "/policy", "")
	var p policy.Policy
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || p.Version != 0 || len(p.Rules) != 2 {
		t.Fatalf("default: %s", w.Body)
	}
	bad := `{"version":0,"rules":[{"id":"A b","match":{"classes":["nope"],"fields":["["],"minConfidence":2},"apply":"sometimes"},` +
		`{"id":"x","apply":"operator","mode":"enforce"},{"id":"x","apply":"auto","mode":"loud"}]}`
	w = f.As(t, "ada", "admin", "PUT", "/policy", bad)
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
	if w := f.As(t, "ada", "admin", "PUT", "/policy", `{"version":0,"rules":[],"extra":1}`); w.Code != http.StatusBadRequest {
		t.Fatalf("unknown field: %d", w.Code)
	}
	if w := f.As(t, "ada", "admin", "PUT", "/policy", `{"rules":[]}`); w.Code != http.StatusBadRequest {
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
		w := f.As(t, "ada", "admin", "PUT", "/policy", body)
		var prob struct{ Errors []struct{ Field string } }
		_ = json.Unmarshal(w.Body.Bytes(), &prob)
		if w.Code != http.StatusBadRequest || roomtest.ProblemCode(t, w) != "validation_failed" || len(prob.Errors) == 0 || prob.Errors[0].Field != field {
			t.Errorf("%s: %d %s, want validation_failed naming %s", body, w.Code, w.Body, field)
		}
	}
	if got := f.As(t, "ada", "admin", "GET", "/policy", ""); !strings.Contains(got.Body.String(), `"version":0`) {
		t.Fatalf("a refused policy was stored: %s", got.Body)
	}
	good := `{"version":0,"rules":[{"id":"auto-countries","match":{"classes":["value"],"fields":["ship*"],"minConfidence":0.8},"apply":"auto"}]}`
	w = f.As(t, "ada", "admin", "PUT", "/policy", good)
	_ = json.Unmarshal(w.Body.Bytes(), &p)
	if w.Code != http.StatusOK || p.Version != 1 || p.Rules[0].Mode != "shadow" {
		t.Fatalf("put: %d %s", w.Code, w.Body)
	}
	if w := f.As(t, "ada", "admin", "PUT", "/policy", good); w.Code != http.StatusConflict || roomtest.ProblemCode(t, w) != "stale_version" {
		t.Fatalf("stale: %d %s", w.Code, w.Body)
	}
	recs := f.Audits.All()
	last := recs[len(recs)-1]
	if last.ActionKey != "settings.approval_policy" || !strings.Contains(string(last.Details), "operator-value-fixes") ||
		!strings.Contains(string(last.Details), "auto-countries") {
		t.Fatalf("audit %+v", last)
	}
}

// In bulk, a two-approver approval that waits for the second approver says "recorded".
func TestBulkTwoApproversRecords(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"four-eyes","match":{},"apply":"two_approvers"}]}`)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	row, _ := f.Claims.Get(t.Context(), "acme", c.ID)
	key, _ := syncerror.ConfirmKey(row.Proposal.Class, syncerror.FixOf(row))
	w := f.As(t, "anna", "approver", "POST", "/p/bulk", `{"action":"approve","fixKeys":["`+key+`"],"ids":["`+c.ID+`"]}`)
	var res decisions.BulkResult
	if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil || res.Results[0].Outcome != "recorded" || f.Writer.Count() != 0 {
		t.Fatalf("bulk: %s", w.Body)
	}
}

// An edit approved under two_approvers waits in the co-approval document; the second
// approver writes it with every digit it was sent with, not as float64.
func TestTwoApproversWriteTheEditDigitForDigit(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"four-eyes","match":{},"apply":"two_approvers"}]}`)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	path := "/p/" + c.ID + "/approve"
	if w := f.As(t, "anna", "approver", "POST", path, `{"fix":[{"path":"shipcountry","after":9007199254740993}]}`); w.Code != http.StatusAccepted {
		t.Fatalf("edit: %d %s", w.Code, w.Body)
	}
	if w := f.As(t, "bert", "approver", "POST", path, ""); w.Code != http.StatusAccepted {
		t.Fatalf("first approval: %d %s", w.Code, w.Body)
	}
	if w := f.As(t, "carl", "approver", "POST", path, ""); w.Code != http.StatusOK {
		t.Fatalf("second approval: %d %s", w.Code, w.Body)
	}
	got := f.Writer.Writes[0].Fix[0].After
	b, _ := json.Marshal(got)
	if string(b) != "9007199254740993" {
		t.Fatalf("written %s (%T), want 9007199254740993 as edited", b, got)
	}
}
