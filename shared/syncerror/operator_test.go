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
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

type fakeWriter struct {
	mu     sync.Mutex
	writes []write
	err    error
	delay  time.Duration
}

type write struct {
	claimID, key string
	fix          []syncerror.FieldChange
	who          identity.Identity
}

func (f *fakeWriter) WriteFix(_ context.Context, who identity.Identity, c syncerror.Claim, fix []syncerror.FieldChange, key string) error {
	time.Sleep(f.delay)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	f.writes = append(f.writes, write{c.ID, key, fix, who})
	return nil
}

func (f *fakeWriter) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.writes)
}

type noRedact struct{}

func (noRedact) RedactJSON(_ context.Context, doc []byte) ([]byte, error) { return doc, nil }

type opFixture struct {
	claims *syncerrortest.ClaimStore
	writer *fakeWriter
	audits *audittest.Store
	mux    *http.ServeMux
}

func newOpFixture(t *testing.T) *opFixture {
	f := &opFixture{claims: syncerrortest.NewClaimStore(), writer: &fakeWriter{}, audits: &audittest.Store{}}
	op := &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: f.claims, Now: func() time.Time { return clock },
		Audit: &audit.Log{Store: f.audits, Redactor: noRedact{}, Now: func() time.Time { return clock }}}}}, Fixes: f.writer}
	f.mux = http.NewServeMux()
	f.mux.Handle("GET /p", op.ListHandler())
	f.mux.Handle("GET /p/{id}", op.DetailHandler())
	f.mux.Handle("POST /p/{id}/approve", op.ApproveHandler())
	f.mux.Handle("POST /p/{id}/reject", op.RejectHandler())
	f.mux.Handle("POST /p/{id}/escalate", op.EscalateHandler())
	return f
}

// readyClaim claims a sample error and completes its diagnosis.
func readyClaim(t *testing.T, s syncerror.ClaimStore, tenant, errorID string, at time.Time) syncerror.Claim {
	t.Helper()
	return syncerrortest.Ready(t, s, tenant, errorID, at)
}

func (f *opFixture) call(t *testing.T, tenant, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if tenant != "" {
		r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{Subject: "alice", TenantID: tenant, Roles: []string{"approver"}}))
	}
	w := httptest.NewRecorder()
	f.mux.ServeHTTP(w, r)
	return w
}

func problemCode(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	var p struct{ Code string }
	_ = json.Unmarshal(w.Body.Bytes(), &p)
	return p.Code
}

func TestOperatorListAndDetail(t *testing.T) {
	f := newOpFixture(t)
	a := readyClaim(t, f.claims, "acme", "E-1", clock)
	b := claimed(t, f.claims, "acme", "E-2", clock.Add(time.Minute))
	readyClaim(t, f.claims, "other", "E-1", clock)
	w := f.call(t, "acme", "GET", "/p?limit=1", "")
	var page struct {
		Items      []queue.Summary
		NextCursor *string
	}
	if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil || w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if len(page.Items) != 1 || page.Items[0].ID != b.ID || page.NextCursor == nil {
		t.Fatalf("first page %+v", page)
	}
	w = f.call(t, "acme", "GET", "/p?limit=1&cursor="+*page.NextCursor, "")
	_ = json.Unmarshal(w.Body.Bytes(), &page)
	if len(page.Items) != 1 || page.Items[0].ID != a.ID || page.NextCursor != nil || page.Items[0].Class != "value" {
		t.Fatalf("second page %+v", page)
	}
	for _, q := range []string{"?status=bogus", "?limit=0", "?limit=101", "?cursor=zzz"} {
		if w := f.call(t, "acme", "GET", "/p"+q, ""); w.Code != 400 {
			t.Fatalf("%s: %d", q, w.Code)
		}
	}
	w = f.call(t, "acme", "GET", "/p/"+a.ID, "")
	var d queue.Detail
	if err := json.Unmarshal(w.Body.Bytes(), &d); err != nil || w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if d.Proposal == nil || d.Proposal.TraceID != syncerror.InferenceID(a.ID, 1) || len(d.Proposal.Fix) != 1 || d.Proposal.Fix[0].Before != "Deutschland" ||
		len(d.History) != 1 || d.Error.RecordID != "SO-10042" {
		t.Fatalf("detail %+v", d)
	}
	if w := f.call(t, "other", "GET", "/p/"+b.ID, ""); w.Code != 404 {
		t.Fatalf("another tenant's row: %d", w.Code)
	}
	if w := f.call(t, "", "GET", "/p", ""); w.Code != 401 {
		t.Fatalf("anonymous: %d", w.Code)
	}
}

func TestOperatorApprove(t *testing.T) {
	f := newOpFixture(t)
	c := readyClaim(t, f.claims, "acme", "E-1", clock)
	w := f.call(t, "acme", "POST", "/p/"+c.ID+"/approve", `{"note":"looks right"}`)
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if f.writer.count() != 1 || f.writer.writes[0].fix[0].After != "DE" || f.writer.writes[0].who.Actor != "alice" {
		t.Fatalf("writes %+v", f.writer.writes)
	}
	row, _ := f.claims.Get(context.Background(), "acme", c.ID)
	if row.Status != syncerror.StatusApproved || row.Lease != nil {
		t.Fatalf("row %+v", row)
	}
	recs := f.audits.All()
	if len(recs) != 1 || recs[0].ActionKey != "syncerror.approve" || recs[0].Result != audit.ResultSuccess || recs[0].Actor.Actor != "alice" {
		t.Fatalf("audit %+v", recs)
	}
	if w := f.call(t, "acme", "POST", "/p/"+c.ID+"/approve", ""); w.Code != 409 || problemCode(t, w) != "not_pending" {
		t.Fatalf("second approve: %d %s", w.Code, w.Body)
	}
}

func TestOperatorApproveEditedFixKeepsTheOriginal(t *testing.T) {
	f := newOpFixture(t)
	c := readyClaim(t, f.claims, "acme", "E-1", clock)
	w := f.call(t, "acme", "POST", "/p/"+c.ID+"/approve", `{"fix":[{"path":"shipcountry","after":"AT"}]}`)
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	got := f.writer.writes[0].fix
	if len(got) != 1 || got[0].After != "AT" || got[0].Before != "Deutschland" {
		t.Fatalf("written fix %+v", got)
	}
	row, _ := f.claims.Get(context.Background(), "acme", c.ID)
	if row.Proposal.Fix[0].After != "DE" || len(row.EditedFix) != 1 || row.EditedFix[0].After != "AT" {
		t.Fatalf("original %+v edited %+v", row.Proposal.Fix, row.EditedFix)
	}
	for _, bad := range []string{`{"fix":[]}`, `{"fix":[{"path":"","after":1}]}`, `{"fix":[{"path":"x"}]}`, `{"fix":[{"path":"x","after":1},{"path":"x","after":2}]}`, `{`} {
		d := readyClaim(t, f.claims, "acme", "E-bad"+bad, clock)
		if w := f.call(t, "acme", "POST", "/p/"+d.ID+"/approve", bad); w.Code != 400 {
			t.Fatalf("%s: %d", bad, w.Code)
		}
	}
}

func TestOperatorApproveStates(t *testing.T) {
	f := newOpFixture(t)
	queued := claimed(t, f.claims, "acme", "E-q", clock)
	if w := f.call(t, "acme", "POST", "/p/"+queued.ID+"/approve", ""); w.Code != 409 || problemCode(t, w) != "no_proposal" {
		t.Fatalf("no proposal: %d %s", w.Code, w.Body)
	}
	if w := f.call(t, "acme", "POST", "/p/se_nothere/approve", ""); w.Code != 404 {
		t.Fatalf("unknown: %d", w.Code)
	}
	if f.writer.count() != 0 {
		t.Fatal("wrote without a proposal")
	}
}

func TestOperatorConcurrentApprovesWriteOnce(t *testing.T) {
	f := newOpFixture(t)
	f.writer.delay = 5 * time.Millisecond
	c := readyClaim(t, f.claims, "acme", "E-1", clock)
	codes := make(chan int, 20)
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes <- f.call(t, "acme", "POST", "/p/"+c.ID+"/approve", "").Code
		}()
	}
	wg.Wait()
	close(codes)
	n := map[int]int{}
	for code := range codes {
		n[code]++
	}
	if n[200] != 1 || n[409] != 19 || f.writer.count() != 1 {
		t.Fatalf("codes %v, %d writes; want one 200, nineteen 409, one write", n, f.writer.count())
	}
}

func TestOperatorApproveFailuresReturnToPending(t *testing.T) {
	cases := []struct {
		name   string
		err    error
		status int
		code   string
		result string
	}{
		{"host ERP failed", errors.New("503 from host ERP"), 502, "write_back_failed", audit.ResultFailure},
		{"governance refused", &syncerror.RefusedError{Status: 422, Code: "governance_refused", Reason: "shipcountry is owned by crm"}, 422, "governance_refused", audit.ResultDenied},
		{"no connector", syncerror.ErrWriterNotConfigured, 503, "connector_not_configured", audit.ResultFailure},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newOpFixture(t)
			f.writer.err = tc.err
			c := readyClaim(t, f.claims, "acme", "E-1", clock)
			w := f.call(t, "acme", "POST", "/p/"+c.ID+"/approve", "")
			if w.Code != tc.status || problemCode(t, w) != tc.code {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			row, _ := f.claims.Get(context.Background(), "acme", c.ID)
			if row.Status != syncerror.StatusPending || row.Lease != nil || row.ApplyError == "" || strings.Contains(row.ApplyError, "503 from") {
				t.Fatalf("row status %s lease %v error %q", row.Status, row.Lease, row.ApplyError)
			}
			recs := f.audits.All()
			if len(recs) != 1 || recs[0].Result != tc.result || recs[0].ActionKey != "syncerror.approve" {
				t.Fatalf("audit %+v", recs)
			}
			// The row can be approved again once the cause is gone.
			f.writer.err = nil
			if w := f.call(t, "acme", "POST", "/p/"+c.ID+"/approve", ""); w.Code != 200 {
				t.Fatalf("retry: %d %s", w.Code, w.Body)
			}
		})
	}
}

func TestOperatorRejectAndEscalate(t *testing.T) {
	f := newOpFixture(t)
	a := readyClaim(t, f.claims, "acme", "E-1", clock)
	b := claimed(t, f.claims, "acme", "E-2", clock)
	if w := f.call(t, "acme", "POST", "/p/"+a.ID+"/reject", `{"reason":""}`); w.Code != 400 {
		t.Fatalf("empty reason: %d", w.Code)
	}
	if w := f.call(t, "acme", "POST", "/p/"+a.ID+"/reject", `{"reason":"the order was cancelled"}`); w.Code != 200 {
		t.Fatalf("reject: %d %s", w.Code, w.Body)
	}
	if w := f.call(t, "acme", "POST", "/p/"+a.ID+"/escalate", `{"reason":"x"}`); w.Code != 409 {
		t.Fatalf("escalate a rejected row: %d", w.Code)
	}
	if w := f.call(t, "acme", "POST", "/p/"+b.ID+"/escalate", `{"reason":"needs finance"}`); w.Code != 200 {
		t.Fatalf("escalate a row still being diagnosed: %d %s", w.Code, w.Body)
	}
	if w := f.call(t, "other", "POST", "/p/"+b.ID+"/reject", `{"reason":"x"}`); w.Code != 404 {
		t.Fatalf("another tenant: %d", w.Code)
	}
	keys := []string{}
	for _, r := range f.audits.All() {
		keys = append(keys, r.ActionKey)
	}
	if strings.Join(keys, ",") != "syncerror.reject,syncerror.escalate" {
		t.Fatalf("audit keys %v", keys)
	}
}

// Approving a proposal without a fix is refused: no lease, no write, still pending.
func TestOperatorApproveRefusesAnEmptyFix(t *testing.T) {
	f := newOpFixture(t)
	ctx := context.Background()
	c := claimed(t, f.claims, "acme", "E-1", clock)
	got, err := f.claims.BeginDiagnosis(ctx, "acme", c.ID, clock, clock)
	if err != nil {
		t.Fatal(err)
	}
	p := syncerrortest.SampleProposal("inf-1", clock)
	p.Fix = nil
	if err := f.claims.CompleteDiagnosis(ctx, "acme", c.ID, got.DiagnosisAttempts, p, clock); err != nil {
		t.Fatal(err)
	}
	w := f.call(t, "acme", "POST", "/p/"+c.ID+"/approve", "")
	if w.Code != http.StatusUnprocessableEntity || problemCode(t, w) != "empty_fix" || f.writer.count() != 0 {
		t.Fatalf("%d %s, %d writes", w.Code, w.Body, f.writer.count())
	}
	if row, _ := f.claims.Get(ctx, "acme", c.ID); row.Status != syncerror.StatusPending || row.Lease != nil {
		t.Fatalf("row %s lease %v", row.Status, row.Lease)
	}
	// An operator's edit gives it a fix to write.
	if w := f.call(t, "acme", "POST", "/p/"+c.ID+"/approve", `{"fix":[{"path":"shipcountry","after":"DE"}]}`); w.Code != http.StatusOK {
		t.Fatalf("with an edit: %d %s", w.Code, w.Body)
	}
}

// Ids that are no claim id are not found, whatever they name in the table: the poll
// watermark's row, a kilobyte of junk.
func TestOperatorRefusesIDsThatAreNoClaimID(t *testing.T) {
	f := newOpFixture(t)
	if err := f.claims.AdvanceWatermark(context.Background(), "acme", time.Time{}, clock); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"~watermark%23hosterp", "se_" + strings.Repeat("a", 2000), "SE_ABC"} {
		for _, call := range []struct{ method, path, body string }{
			{"GET", "/p/" + id, ""}, {"POST", "/p/" + id + "/approve", ""}, {"POST", "/p/" + id + "/reject", `{"reason":"x"}`},
		} {
			if w := f.call(t, "acme", call.method, call.path, call.body); w.Code != http.StatusNotFound {
				t.Errorf("%s %.40s: %d %s", call.method, call.path, w.Code, w.Body)
			}
		}
	}
}

func (f *opFixture) callAs(t *testing.T, role, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{Subject: "olga", TenantID: "acme", Roles: []string{role}}))
	w := httptest.NewRecorder()
	f.mux.ServeHTTP(w, r)
	return w
}

// Escalating hands a row on to an approver, who approves its fix (written as from
// pending) or rejects it; an operator cannot decide it, and it is not escalated twice.
func TestEscalatedRowIsDecidedByAnApprover(t *testing.T) {
	f := newOpFixture(t)
	a := readyClaim(t, f.claims, "acme", "E-1", clock)
	b := readyClaim(t, f.claims, "acme", "E-2", clock)
	for _, c := range []syncerror.Claim{a, b} {
		if w := f.callAs(t, "operator", "POST", "/p/"+c.ID+"/escalate", `{"reason":"is DE right for this customer?"}`); w.Code != 200 {
			t.Fatalf("escalate: %d %s", w.Code, w.Body)
		}
	}
	if w := f.callAs(t, "approver", "POST", "/p/"+a.ID+"/escalate", `{"reason":"again"}`); w.Code != 409 || problemCode(t, w) != "not_pending" {
		t.Fatalf("escalate an escalated row: %d %s", w.Code, w.Body)
	}
	for _, action := range []string{"approve", "reject"} {
		if w := f.callAs(t, "operator", "POST", "/p/"+a.ID+"/"+action, `{"reason":"x"}`); w.Code != 403 || problemCode(t, w) != "escalated_needs_approver" {
			t.Fatalf("operator %s of an escalated row: %d %s", action, w.Code, w.Body)
		}
	}
	if f.writer.count() != 0 {
		t.Fatal("a refused approve wrote")
	}
	// The ERP refuses the approver's write: the row stays escalated, still an approver's.
	f.writer.err = errors.New("ERP down")
	if w := f.callAs(t, "approver", "POST", "/p/"+a.ID+"/approve", `{}`); w.Code < 500 {
		t.Fatalf("approve with the ERP down: %d %s", w.Code, w.Body)
	}
	if row, _ := f.claims.Get(context.Background(), "acme", a.ID); row.Status != syncerror.StatusEscalated {
		t.Fatalf("after a failed write from escalated: %s", row.Status)
	}
	if w := f.callAs(t, "operator", "POST", "/p/"+a.ID+"/reject", `{"reason":"x"}`); w.Code != 403 {
		t.Fatalf("operator reject after the failed write: %d", w.Code)
	}
	f.writer.err = nil
	if w := f.callAs(t, "approver", "POST", "/p/"+a.ID+"/approve", `{"note":"yes, DE"}`); w.Code != 200 {
		t.Fatalf("approver approves an escalated row: %d %s", w.Code, w.Body)
	}
	if row, _ := f.claims.Get(context.Background(), "acme", a.ID); row.Status != syncerror.StatusApproved || f.writer.count() != 1 {
		t.Fatalf("after approve: status %s, %d writes", row.Status, f.writer.count())
	}
	if w := f.callAs(t, "approver", "POST", "/p/"+b.ID+"/reject", `{"reason":"the customer ships to AT"}`); w.Code != 200 {
		t.Fatalf("approver rejects an escalated row: %d %s", w.Code, w.Body)
	}
	if row, _ := f.claims.Get(context.Background(), "acme", b.ID); row.Status != syncerror.StatusRejected {
		t.Fatalf("after reject: %s", row.Status)
	}
}
