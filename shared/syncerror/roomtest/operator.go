package roomtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// Clock is the fixtures' now.
var Clock = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// Writer is the host ERP's write-back: it records each fix written, or fails with Err
// after Delay; the next Changed writes pinned to a version find the record changed
// (syncerror.ErrRecordChanged, nothing written).
type Writer struct {
	mu      sync.Mutex
	Writes  []Write
	Err     error
	Delay   time.Duration
	Changed int
}

// Write is one fix the Writer was asked to write, pinned to IfVersion when not "".
type Write struct {
	ClaimID, Key string
	Fix          []syncerror.FieldChange
	Who          identity.Identity
	IfVersion    string
}

// WriteFix records the write, or answers Err.
func (f *Writer) WriteFix(_ context.Context, who identity.Identity, c syncerror.Claim, fix []syncerror.FieldChange, key, ifVersion string) error {
	time.Sleep(f.Delay)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.Err != nil {
		return f.Err
	}
	if ifVersion != "" && f.Changed > 0 {
		f.Changed--
		return fmt.Errorf("%w: version %s", syncerror.ErrRecordChanged, ifVersion)
	}
	f.Writes = append(f.Writes, Write{c.ID, key, fix, who, ifVersion})
	return nil
}

// Count is how many fixes were written.
func (f *Writer) Count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.Writes)
}

// NoRedact is an audit redactor that keeps the document as it is.
type NoRedact struct{}

// RedactJSON returns doc unchanged.
func (NoRedact) RedactJSON(_ context.Context, doc []byte) ([]byte, error) { return doc, nil }

// OpFixture is the operator's routes (list, detail, approve, reject, escalate under /p) on
// the in-memory store, with the write-back and the audit log recorded.
type OpFixture struct {
	Claims *syncerrortest.ClaimStore
	Writer *Writer
	Audits *audittest.Store
	Mux    *http.ServeMux
}

// NewOpFixture builds the decisions over the queue over the policy at Clock.
func NewOpFixture(t *testing.T) *OpFixture {
	f := &OpFixture{Claims: syncerrortest.NewClaimStore(), Writer: &Writer{}, Audits: &audittest.Store{}}
	op := &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: f.Claims, Now: func() time.Time { return Clock },
		Audit: &audit.Log{Store: f.Audits, Redactor: NoRedact{}, Now: func() time.Time { return Clock }}}}}, Fixes: f.Writer}
	f.Mux = http.NewServeMux()
	f.Mux.Handle("GET /p", op.ListHandler())
	f.Mux.Handle("GET /p/{id}", op.DetailHandler())
	f.Mux.Handle("POST /p/{id}/approve", op.ApproveHandler())
	f.Mux.Handle("POST /p/{id}/reject", op.RejectHandler())
	f.Mux.Handle("POST /p/{id}/escalate", op.EscalateHandler())
	return f
}

// MaskedFixture is the operator fixture with the production DLP policy, the triage route
// (POST /p/{id}/triage) and a listing under /m.
func MaskedFixture(t *testing.T) *OpFixture {
	f := NewOpFixture(t)
	op := &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: f.Claims, Mask: &syncerror.Masker{Scanner: dlp.NewScanner()}, Now: func() time.Time { return Clock },
		Audit: &audit.Log{Store: f.Audits, Redactor: NoRedact{}, Now: func() time.Time { return Clock }}}}}}
	f.Mux.Handle("POST /p/{id}/triage", op.TriageHandler())
	f.Mux.Handle("GET /m", op.ListHandler())
	return f
}

// ReadyClaim claims a sample error and completes its diagnosis.
func ReadyClaim(t *testing.T, s syncerror.ClaimStore, tenant, errorID string, at time.Time) syncerror.Claim {
	t.Helper()
	return syncerrortest.Ready(t, s, tenant, errorID, at)
}

// Call calls the fixture's routes as alice, an approver of tenant (anonymous when "").
func (f *OpFixture) Call(t *testing.T, tenant, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	if tenant == "" {
		return serve(f.Mux, nil, method, path, body)
	}
	return serve(f.Mux, &identity.Principal{Subject: "alice", TenantID: tenant, Roles: []string{"approver"}}, method, path, body)
}

// CallAs calls the fixture's routes as olga of tenant acme with one role.
func (f *OpFixture) CallAs(t *testing.T, role, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	return serve(f.Mux, &identity.Principal{Subject: "olga", TenantID: "acme", Roles: []string{role}}, method, path, body)
}

// serve answers one request on mux as who (anonymous when nil).
func serve(mux http.Handler, who *identity.Principal, method, path, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if who != nil {
		r = r.WithContext(identity.WithAuth(r.Context(), *who))
	}
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, r)
	return w
}

// ProblemCode is the code of a problem+json answer ("" when there is none).
func ProblemCode(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	var p struct{ Code string }
	_ = json.Unmarshal(w.Body.Bytes(), &p)
	return p.Code
}

// DetailOf is a row's detail as answered, failing the test on any answer but 200.
func DetailOf(t *testing.T, w *httptest.ResponseRecorder) queue.Detail {
	t.Helper()
	var d queue.Detail
	if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &d) != nil {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	return d
}
