package decisions_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

func TestOperatorListAndDetail(t *testing.T) {
	f := roomtest.NewOpFixture(t)
	a := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	b := syncerrortest.Claimed(t, f.Claims, "acme", "E-2", clock.Add(time.Minute))
	roomtest.ReadyClaim(t, f.Claims, "other", "E-1", clock)
	w := f.Call(t, "acme", "GET", "/p?limit=1", "")
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
	w = f.Call(t, "acme", "GET", "/p?limit=1&cursor="+*page.NextCursor, "")
	_ = json.Unmarshal(w.Body.Bytes(), &page)
	if len(page.Items) != 1 || page.Items[0].ID != a.ID || page.NextCursor != nil || page.Items[0].Class != "value" {
		t.Fatalf("second page %+v", page)
	}
	for _, q := range []string{"?status=bogus", "?limit=0", "?limit=101", "?cursor=zzz"} {
		if w := f.Call(t, "acme", "GET", "/p"+q, ""); w.Code != 400 {
			t.Fatalf("%s: %d", q, w.Code)
		}
	}
	w = f.Call(t, "acme", "GET", "/p/"+a.ID, "")
	var d queue.Detail
	if err := json.Unmarshal(w.Body.Bytes(), &d); err != nil || w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if d.Proposal == nil || d.Proposal.TraceID != syncerror.InferenceID(a.ID, 1) || len(d.Proposal.Fix) != 1 || d.Proposal.Fix[0].Before != "Deutschland" ||
		len(d.History) != 1 || d.Error.RecordID != "SO-10042" {
		t.Fatalf("detail %+v", d)
	}
	if w := f.Call(t, "other", "GET", "/p/"+b.ID, ""); w.Code != 404 {
		t.Fatalf("another tenant's row: %d", w.Code)
	}
	if w := f.Call(t, "", "GET", "/p", ""); w.Code != 401 {
		t.Fatalf("anonymous: %d", w.Code)
	}
}

func TestOperatorApprove(t *testing.T) {
	f := roomtest.NewOpFixture(t)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	w := f.Call(t, "acme", "POST", "/p/"+c.ID+"/approve", `{"note":"looks right"}`)
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if f.Writer.Count() != 1 || f.Writer.Writes[0].Fix[0].After != "DE" || f.Writer.Writes[0].Who.Actor != "alice" {
		t.Fatalf("writes %+v", f.Writer.Writes)
	}
	row, _ := f.Claims.Get(context.Background(), "acme", c.ID)
	if row.Status != syncerror.StatusApproved || row.Lease != nil {
		t.Fatalf("row %+v", row)
	}
	recs := f.Audits.All()
	if len(recs) != 1 || recs[0].ActionKey != "syncerror.approve" || recs[0].Result != audit.ResultSuccess || recs[0].Actor.Actor != "alice" {
		t.Fatalf("audit %+v", recs)
	}
	if w := f.Call(t, "acme", "POST", "/p/"+c.ID+"/approve", ""); w.Code != 409 || roomtest.ProblemCode(t, w) != "not_pending" {
		t.Fatalf("second approve: %d %s", w.Code, w.Body)
	}
}

func TestOperatorApproveEditedFixKeepsTheOriginal(t *testing.T) {
	f := roomtest.NewOpFixture(t)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	w := f.Call(t, "acme", "POST", "/p/"+c.ID+"/approve", `{"fix":[{"path":"shipcountry","after":"AT"}]}`)
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	got := f.Writer.Writes[0].Fix
	if len(got) != 1 || got[0].After != "AT" || got[0].Before != "Deutschland" {
		t.Fatalf("written fix %+v", got)
	}
	row, _ := f.Claims.Get(context.Background(), "acme", c.ID)
	if row.Proposal.Fix[0].After != "DE" || len(row.EditedFix) != 1 || row.EditedFix[0].After != "AT" {
		t.Fatalf("original %+v edited %+v", row.Proposal.Fix, row.EditedFix)
	}
	for _, bad := range []string{`{"fix":[]}`, `{"fix":[{"path":"","after":1}]}`, `{"fix":[{"path":"x"}]}`, `{"fix":[{"path":"x","after":1},{"path":"x","after":2}]}`, `{`} {
		d := roomtest.ReadyClaim(t, f.Claims, "acme", "E-bad"+bad, clock)
		if w := f.Call(t, "acme", "POST", "/p/"+d.ID+"/approve", bad); w.Code != 400 {
			t.Fatalf("%s: %d", bad, w.Code)
		}
	}
}

func TestOperatorApproveStates(t *testing.T) {
	f := roomtest.NewOpFixture(t)
	queued := syncerrortest.Claimed(t, f.Claims, "acme", "E-q", clock)
	if w := f.Call(t, "acme", "POST", "/p/"+queued.ID+"/approve", ""); w.Code != 409 || roomtest.ProblemCode(t, w) != "no_proposal" {
		t.Fatalf("no proposal: %d %s", w.Code, w.Body)
	}
	if w := f.Call(t, "acme", "POST", "/p/se_nothere/approve", ""); w.Code != 404 {
		t.Fatalf("unknown: %d", w.Code)
	}
	if f.Writer.Count() != 0 {
		t.Fatal("wrote without a proposal")
	}
}

func TestOperatorConcurrentApprovesWriteOnce(t *testing.T) {
	f := roomtest.NewOpFixture(t)
	f.Writer.Delay = 5 * time.Millisecond
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	codes := make(chan int, 20)
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes <- f.Call(t, "acme", "POST", "/p/"+c.ID+"/approve", "").Code
		}()
	}
	wg.Wait()
	close(codes)
	n := map[int]int{}
	for code := range codes {
		n[code]++
	}
	if n[200] != 1 || n[409] != 19 || f.Writer.Count() != 1 {
		t.Fatalf("codes %v, %d writes; want one 200, nineteen 409, one write", n, f.Writer.Count())
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
			f := roomtest.NewOpFixture(t)
			f.Writer.Err = tc.err
			c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
			w := f.Call(t, "acme", "POST", "/p/"+c.ID+"/approve", "")
			if w.Code != tc.status || roomtest.ProblemCode(t, w) != tc.code {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			row, _ := f.Claims.Get(context.Background(), "acme", c.ID)
			if row.Status != syncerror.StatusPending || row.Lease != nil || row.ApplyError == "" || strings.Contains(row.ApplyError, "503 from") {
				t.Fatalf("row status %s lease %v error %q", row.Status, row.Lease, row.ApplyError)
			}
			recs := f.Audits.All()
			if len(recs) != 1 || recs[0].Result != tc.result || recs[0].ActionKey != "syncerror.approve" {
				t.Fatalf("audit %+v", recs)
			}
			// The row can be approved again once the cause is gone.
			f.Writer.Err = nil
			if w := f.Call(t, "acme", "POST", "/p/"+c.ID+"/approve", ""); w.Code != 200 {
				t.Fatalf("retry: %d %s", w.Code, w.Body)
			}
		})
	}
}

func TestOperatorRejectAndEscalate(t *testing.T) {
	f := roomtest.NewOpFixture(t)
	a := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	b := syncerrortest.Claimed(t, f.Claims, "acme", "E-2", clock)
	if w := f.Call(t, "acme", "POST", "/p/"+a.ID+"/reject", `{"reason":""}`); w.Code != 400 {
		t.Fatalf("empty reason: %d", w.Code)
	}
	if w := f.Call(t, "acme", "POST", "/p/"+a.ID+"/reject", `{"reason":"the order was cancelled"}`); w.Code != 200 {
		t.Fatalf("reject: %d %s", w.Code, w.Body)
	}
	if w := f.Call(t, "acme", "POST", "/p/"+a.ID+"/escalate", `{"reason":"x"}`); w.Code != 409 {
		t.Fatalf("escalate a rejected row: %d", w.Code)
	}
	if w := f.Call(t, "acme", "POST", "/p/"+b.ID+"/escalate", `{"reason":"needs finance"}`); w.Code != 200 {
		t.Fatalf("escalate a row still being diagnosed: %d %s", w.Code, w.Body)
	}
	if w := f.Call(t, "other", "POST", "/p/"+b.ID+"/reject", `{"reason":"x"}`); w.Code != 404 {
		t.Fatalf("another tenant: %d", w.Code)
	}
	keys := []string{}
	for _, r := range f.Audits.All() {
		keys = append(keys, r.ActionKey)
	}
	if strings.Join(keys, ",") != "syncerror.reject,syncerror.escalate" {
		t.Fatalf("audit keys %v", keys)
	}
}

// Approving a proposal without a fix is refused: no lease, no write, still pending.
func TestOperatorApproveRefusesAnEmptyFix(t *testing.T) {
	f := roomtest.NewOpFixture(t)
	ctx := context.Background()
	c := syncerrortest.Claimed(t, f.Claims, "acme", "E-1", clock)
	got, err := f.Claims.BeginDiagnosis(ctx, "acme", c.ID, clock, clock)
	if err != nil {
		t.Fatal(err)
	}
	p := syncerrortest.SampleProposal("inf-1", clock)
	p.Fix = nil
	if err := f.Claims.CompleteDiagnosis(ctx, "acme", c.ID, got.DiagnosisAttempts, p, clock); err != nil {
		t.Fatal(err)
	}
	w := f.Call(t, "acme", "POST", "/p/"+c.ID+"/approve", "")
	if w.Code != http.StatusUnprocessableEntity || roomtest.ProblemCode(t, w) != "empty_fix" || f.Writer.Count() != 0 {
		t.Fatalf("%d %s, %d writes", w.Code, w.Body, f.Writer.Count())
	}
	if row, _ := f.Claims.Get(ctx, "acme", c.ID); row.Status != syncerror.StatusPending || row.Lease != nil {
		t.Fatalf("row %s lease %v", row.Status, row.Lease)
	}
	// An operator's edit gives it a fix to write.
	if w := f.Call(t, "acme", "POST", "/p/"+c.ID+"/approve", `{"fix":[{"path":"shipcountry","after":"DE"}]}`); w.Code != http.StatusOK {
		t.Fatalf("with an edit: %d %s", w.Code, w.Body)
	}
}

// Ids that are no claim id are not found, whatever they name in the table: the poll
// watermark's row, a kilobyte of junk.
func TestOperatorRefusesIDsThatAreNoClaimID(t *testing.T) {
	f := roomtest.NewOpFixture(t)
	if err := f.Claims.AdvanceWatermark(context.Background(), "acme", time.Time{}, clock); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"~watermark%23hosterp", "se_" + strings.Repeat("a", 2000), "SE_ABC"} {
		for _, call := range []struct{ method, path, body string }{
			{"GET", "/p/" + id, ""}, {"POST", "/p/" + id + "/approve", ""}, {"POST", "/p/" + id + "/reject", `{"reason":"x"}`},
		} {
			if w := f.Call(t, "acme", call.method, call.path, call.body); w.Code != http.StatusNotFound {
				t.Errorf("%s %.40s: %d %s", call.method, call.path, w.Code, w.Body)
			}
		}
	}
}

// Escalating hands a row on to an approver, who approves its fix (written as from
// pending) or rejects it; an operator cannot decide it, and it is not escalated twice.
func TestEscalatedRowIsDecidedByAnApprover(t *testing.T) {
	f := roomtest.NewOpFixture(t)
	a := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	b := roomtest.ReadyClaim(t, f.Claims, "acme", "E-2", clock)
	for _, c := range []syncerror.Claim{a, b} {
		if w := f.CallAs(t, "operator", "POST", "/p/"+c.ID+"/escalate", `{"reason":"is DE right for this customer?"}`); w.Code != 200 {
			t.Fatalf("escalate: %d %s", w.Code, w.Body)
		}
	}
	if w := f.CallAs(t, "approver", "POST", "/p/"+a.ID+"/escalate", `{"reason":"again"}`); w.Code != 409 || roomtest.ProblemCode(t, w) != "not_pending" {
		t.Fatalf("escalate an escalated row: %d %s", w.Code, w.Body)
	}
	for _, action := range []string{"approve", "reject"} {
		if w := f.CallAs(t, "operator", "POST", "/p/"+a.ID+"/"+action, `{"reason":"x"}`); w.Code != 403 || roomtest.ProblemCode(t, w) != "escalated_needs_approver" {
			t.Fatalf("operator %s of an escalated row: %d %s", action, w.Code, w.Body)
		}
	}
	if f.Writer.Count() != 0 {
		t.Fatal("a refused approve wrote")
	}
	// The ERP refuses the approver's write: the row stays escalated, still an approver's.
	f.Writer.Err = errors.New("ERP down")
	if w := f.CallAs(t, "approver", "POST", "/p/"+a.ID+"/approve", `{}`); w.Code < 500 {
		t.Fatalf("approve with the ERP down: %d %s", w.Code, w.Body)
	}
	if row, _ := f.Claims.Get(context.Background(), "acme", a.ID); row.Status != syncerror.StatusEscalated {
		t.Fatalf("after a failed write from escalated: %s", row.Status)
	}
	if w := f.CallAs(t, "operator", "POST", "/p/"+a.ID+"/reject", `{"reason":"x"}`); w.Code != 403 {
		t.Fatalf("operator reject after the failed write: %d", w.Code)
	}
	f.Writer.Err = nil
	if w := f.CallAs(t, "approver", "POST", "/p/"+a.ID+"/approve", `{"note":"yes, DE"}`); w.Code != 200 {
		t.Fatalf("approver approves an escalated row: %d %s", w.Code, w.Body)
	}
	if row, _ := f.Claims.Get(context.Background(), "acme", a.ID); row.Status != syncerror.StatusApproved || f.Writer.Count() != 1 {
		t.Fatalf("after approve: status %s, %d writes", row.Status, f.Writer.Count())
	}
	if w := f.CallAs(t, "approver", "POST", "/p/"+b.ID+"/reject", `{"reason":"the customer ships to AT"}`); w.Code != 200 {
		t.Fatalf("approver rejects an escalated row: %d %s", w.Code, w.Body)
	}
	if row, _ := f.Claims.Get(context.Background(), "acme", b.ID); row.Status != syncerror.StatusRejected {
		t.Fatalf("after reject: %s", row.Status)
	}
}
