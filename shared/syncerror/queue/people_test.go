package queue_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

// recordRedactor applies DLP's record policy, as the deployed audit log does.
type recordRedactor struct{ s *dlp.Scanner }

func (r recordRedactor) RedactJSON(_ context.Context, doc []byte) ([]byte, error) {
	res, err := r.s.ScanJSON(dlp.Record, doc)
	return res.Output, err
}

func (r recordRedactor) RedactText(_ context.Context, text string) (string, error) {
	return r.s.RedactString(dlp.Record, text)
}

// peopleFixture is the operator with the audit log as deployed: the record policy and a
// pseudonym key.
func peopleFixture(t *testing.T) *roomtest.OpFixture {
	f := roomtest.NewOpFixture(t)
	log := &audit.Log{Store: f.Audits, Redactor: recordRedactor{dlp.NewScanner()}, Now: func() time.Time { return clock },
		PseudonymKey: audit.StaticKey([]byte("0123456789abcdef0123456789abcdef"))}
	op := &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: f.Claims, Now: func() time.Time { return clock }, Audit: log}}}}
	f.Mux.Handle("POST /t/{id}/triage", op.TriageHandler())
	f.Mux.Handle("GET /t/{id}", op.DetailHandler())
	f.Mux.Handle("GET /t", op.ListHandler())
	f.Mux.Handle("POST /t/{id}/escalate", op.EscalateHandler())
	return f
}

func callAsPerson(t *testing.T, f *roomtest.OpFixture, subject, role, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{Subject: subject, TenantID: "acme", Roles: []string{role}}))
	w := httptest.NewRecorder()
	f.Mux.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("%s %s as %s: %d %s", method, path, subject, w.Code, w.Body)
	}
	return w
}

// The people on a row (history, notes, assignee) are named as the audit log names them, to
// every role: no answer of the queue carries the address the log pseudonymises, and the
// viewer's own entries say so (issue 36 §6).
func TestQueueNamesPeopleAsTheAuditLogDoes(t *testing.T) {
	const jane, bob = "jane.doe@example.com", "bob@example.com"
	f := peopleFixture(t)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	path := "/t/" + c.ID
	callAsPerson(t, f, jane, "operator", "POST", path+"/triage", `{"assign":{"to":"me","from":""}}`)
	callAsPerson(t, f, jane, "operator", "POST", path+"/triage", `{"note":"looked at it"}`)
	var shown string
	for _, r := range f.Audits.All() {
		shown = r.Actor.Actor
	}
	if !strings.HasPrefix(shown, "[REDACTED:EMAIL] ~p:") {
		t.Fatalf("the audit log's actor is %q", shown)
	}

	for _, role := range []string{"operator", "approver", "admin"} {
		for _, w := range []*httptest.ResponseRecorder{callAsPerson(t, f, bob, role, "GET", path, ""), callAsPerson(t, f, bob, role, "GET", "/t", "")} {
			if strings.Contains(w.Body.String(), "jane.doe") {
				t.Fatalf("%s reads the address: %s", role, w.Body)
			}
		}
		d := roomtest.DetailOf(t, callAsPerson(t, f, bob, role, "GET", path, ""))
		last := d.History[len(d.History)-1]
		if d.Assignee != shown || d.AssignedToYou || d.Notes[0].Actor != shown || d.Notes[0].You || last.Actor != shown || last.You {
			t.Fatalf("%s sees %+v, notes %+v, history %+v; the log shows %q", role, d.TriageView, d.Notes, d.History, shown)
		}
	}

	d := roomtest.DetailOf(t, callAsPerson(t, f, jane, "operator", "GET", path, ""))
	if !d.AssignedToYou || !d.Notes[0].You || !d.History[len(d.History)-1].You || d.History[0].You {
		t.Fatalf("jane's own entries are not hers: %+v %+v %+v", d.TriageView, d.Notes, d.History)
	}

	// Bob unassigns the row by the assignee he saw; the assignment's entry names jane as the
	// log does.
	d = roomtest.DetailOf(t, callAsPerson(t, f, bob, "operator", "POST", path+"/triage", `{"assign":{"to":"","from":"`+shown+`"}}`))
	if last := d.History[len(d.History)-1]; d.Assignee != "" || last.Action != "unassigned" || last.Note != shown {
		t.Fatalf("unassign by the shown assignee: %+v %+v", d.TriageView, last)
	}
	if stored, _ := f.Claims.Get(context.Background(), "acme", c.ID); stored.Triage.Assignee != "" {
		t.Fatalf("still assigned to %q", stored.Triage.Assignee)
	}
	b, _ := json.Marshal(d)
	if strings.Contains(string(b), "jane.doe") {
		t.Fatalf("the answer names jane: %s", b)
	}

	// The escalation a row shows names who escalated it the same way.
	callAsPerson(t, f, jane, "operator", "POST", path+"/escalate", `{"reason":"needs finance"}`)
	w := callAsPerson(t, f, bob, "operator", "GET", path, "")
	if d := roomtest.DetailOf(t, w); d.Escalation == nil || d.Escalation.Actor != shown || strings.Contains(w.Body.String(), "jane.doe") {
		t.Fatalf("escalation %+v: %s", d.Escalation, w.Body)
	}
}
