package decisions_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// An approve with an edit whose write failed returns the row to pending without its edit:
// a bodyless approve (every bulk item) writes the AI's proposal, so the bulk dry run,
// which is there for the confirmation to show what will be written, must show that too.
// (The row kept the edit; the dry run showed "AT" and the bulk approve wrote "DE".)
func TestBulkApproveWritesTheFixItsPreviewShowed(t *testing.T) {
	f := roomtest.NewOpFixture(t)
	now := func() time.Time { return clock }
	op := &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: f.Claims, Now: now,
		Audit: &audit.Log{Store: f.Audits, Redactor: roomtest.NoRedact{}, Now: now}}}}, Fixes: f.Writer}
	f.Mux.Handle("POST /p/{id}/approve2", op.ApproveHandler())
	c := roomtest.ReadyClaim(t, f.Claims, "t1", "e-1", clock) // proposal: shipcountry -> "DE"
	f.Writer.Err = errors.New("host ERP: 400 INVALID_FLD_VALUE")
	if w := f.Call(t, "t1", http.MethodPost, "/p/"+c.ID+"/approve2", `{"fix":[{"path":"shipcountry","after":"AT"}]}`); w.Code == http.StatusOK {
		t.Fatalf("set-up: the edited approve should fail: %d %s", w.Code, w.Body)
	}
	f.Writer.Err = nil
	row, _ := f.Claims.Get(context.Background(), "t1", c.ID)
	if row.Status != syncerror.StatusPending {
		t.Fatalf("set-up: row %s", row.Status)
	}
	preview := bulkCall(t, op.BulkHandler(), context.Background(), `{"action":"approve","ids":["`+c.ID+`"],"dryRun":true}`)
	shown := fmt.Sprint(preview.Preview.Fixes[0].Changes[0].After)
	res := bulkCall(t, op.BulkHandler(), context.Background(), `{"action":"approve","ids":["`+c.ID+`"],"fixKeys":["`+preview.Preview.Fixes[0].Key+`"]}`)
	if res.Succeeded != 1 || f.Writer.Count() != 1 {
		t.Fatalf("bulk approve: %+v, writes %d", res, f.Writer.Count())
	}
	written := fmt.Sprint(f.Writer.Writes[0].Fix[0].After)
	if shown != written {
		t.Fatalf("the confirmation showed shipcountry=%s, the bulk approve wrote shipcountry=%s", shown, written)
	}
}

// After a failed edited approve the detail, the approval policy and the bulk preview all
// judge the fix a bodyless approve writes (the AI's), and the history keeps the attempt.
// An approver's edit that adds a sensitive field (the policy's: approvers only) was
// refused; the row is back as the AI proposed it, which the default policy gives to
// operators, and an operator's bulk approve writes just that.
func TestAFailedEditLeavesTheRowAsTheAIProposedIt(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	f.Writer.Err = errors.New("host ERP: 400 INVALID_FLD_VALUE")
	edit := `{"fix":[{"path":"shipcountry","after":"AT"},{"path":"contactPhone","after":"+44 20 7946 0000"}],"note":"per the customer"}`
	if w := f.As(t, "anna", "approver", "POST", "/p/"+c.ID+"/approve", edit); w.Code != http.StatusBadGateway {
		t.Fatalf("set-up: the edited approve should fail: %d %s", w.Code, w.Body)
	}
	f.Writer.Err = nil

	w := f.As(t, "olga", "operator", "GET", "/p/"+c.ID, "")
	var d queue.Detail
	if err := json.Unmarshal(w.Body.Bytes(), &d); err != nil || w.Code != http.StatusOK {
		t.Fatalf("detail %d %s", w.Code, w.Body)
	}
	if strings.Contains(w.Body.String(), `"editedFix"`) || d.Status != syncerror.StatusPending {
		t.Fatalf("the pending row shows an edit that was not written: %s", w.Body)
	}
	if d.Approval == nil || d.Approval.Apply != policy.ApplyOperator || d.Decider != "you" {
		t.Fatalf("the policy judged another fix than the one an approve writes: approval %+v decider %q", d.Approval, d.Decider)
	}
	// The attempt stays in the history: the approve's entry names the edit, then why it failed.
	var approve, failed *syncerror.HistoryEntry
	for i := range d.History {
		switch d.History[i].Action {
		case "approve":
			approve = &d.History[i]
		case "apply_failed":
			failed = &d.History[i]
		}
	}
	if approve == nil || !strings.HasPrefix(approve.Note, "per the customer (edited fix: ") ||
		!strings.Contains(approve.Note, `shipcountry = "AT"`) || !strings.Contains(approve.Note, "contactPhone") || failed == nil {
		t.Fatalf("history %+v", d.History)
	}

	code, res, raw := bulkAs(t, f, "operator", `{"action":"approve","ids":["`+c.ID+`"],"dryRun":true}`)
	p := res.Preview
	if code != http.StatusOK || p == nil || p.Allowed == nil || *p.Allowed != 1 || len(p.Fixes) != 1 || len(p.Fixes[0].Changes) != 1 ||
		p.Fixes[0].Changes[0].After != "DE" {
		t.Fatalf("preview: %d %s", code, raw)
	}
	code, res, raw = bulkAs(t, f, "operator", `{"action":"approve","ids":["`+c.ID+`"],"fixKeys":["`+res.Preview.Fixes[0].Key+`"]}`)
	if code != http.StatusOK || res.Succeeded != 1 || f.Writer.Count() != 1 || len(f.Writer.Writes[0].Fix) != 1 || f.Writer.Writes[0].Fix[0].After != "DE" {
		t.Fatalf("bulk approve: %d %s, writes %+v", code, raw, f.Writer.Writes)
	}
}

// The edit an approve's history entry names is masked for the history: an IBAN typed into an
// edit is not kept readable in the history, a country code is.
func TestAFailedEditsHistoryMasksItsValues(t *testing.T) {
	f := roomtest.NewOpFixture(t)
	now := func() time.Time { return clock }
	op := &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{Claims: f.Claims, Now: now,
		Mask: &syncerror.Masker{Scanner: dlp.NewScanner()}}}}, Fixes: f.Writer}
	f.Mux.Handle("POST /p/{id}/approve2", op.ApproveHandler())
	c := roomtest.ReadyClaim(t, f.Claims, "t1", "e-1", clock)
	f.Writer.Err = errors.New("host ERP: 400 INVALID_FLD_VALUE")
	const iban = "DE89370400440532013000"
	body := `{"fix":[{"path":"shipcountry","after":"AT"},{"path":"bankAccount","after":"` + iban + `"}]}`
	if w := f.Call(t, "t1", http.MethodPost, "/p/"+c.ID+"/approve2", body); w.Code != http.StatusBadGateway {
		t.Fatalf("set-up: %d %s", w.Code, w.Body)
	}
	row, _ := f.Claims.Get(context.Background(), "t1", c.ID)
	var note string
	for _, h := range row.History {
		if h.Action == "approve" {
			note = h.Note
		}
	}
	if !strings.HasPrefix(note, "edited fix: ") || !strings.Contains(note, `shipcountry = "AT"`) || !strings.Contains(note, "bankAccount = ") ||
		strings.Contains(note, iban) || row.EditedFix != nil {
		t.Fatalf("approve entry %q, edit left %+v", note, row.EditedFix)
	}
}

// A row returned to pending before the stores dropped a failed approve's edit still holds
// it (edited_fix). No approve writes it, so nothing shows or judges it as the row's fix:
// the detail has no edit, the policy and the bulk preview judge the AI's fix, and that is
// what the bulk approve writes.
func TestAnEditLeftOnAPendingRowIsNotItsFix(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	c := syncerror.NewClaim(syncerrortest.SampleRecord("acme", "E-old"), syncerror.SourceWebhook, "m-old", clock)
	p := syncerrortest.SampleProposal(syncerror.InferenceID(c.ID, 1), clock)
	c.Diagnosis, c.Proposal, c.ApplyError = syncerror.DiagnosisReady, &p, "host ERP: 400 INVALID_FLD_VALUE"
	c.EditedFix = []syncerror.FieldChange{{Path: "shipcountry", Before: "Deutschland", After: "AT"}, {Path: "contactPhone", After: "+44 20 7946 0000"}}
	if _, err := f.Claims.Claim(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	w := f.As(t, "olga", "operator", "GET", "/p/"+c.ID, "")
	var d queue.Detail
	if err := json.Unmarshal(w.Body.Bytes(), &d); err != nil || w.Code != http.StatusOK {
		t.Fatalf("detail %d %s", w.Code, w.Body)
	}
	if d.EditedFix != nil || d.Approval == nil || d.Approval.Apply != policy.ApplyOperator || d.Decider != "you" {
		t.Fatalf("detail: edit %+v approval %+v decider %q", d.EditedFix, d.Approval, d.Decider)
	}
	code, res, raw := bulkAs(t, f, "operator", `{"action":"approve","ids":["`+c.ID+`"],"dryRun":true}`)
	if pv := res.Preview; code != http.StatusOK || pv == nil || pv.Allowed == nil || *pv.Allowed != 1 || len(pv.Fixes) != 1 ||
		len(pv.Fixes[0].Changes) != 1 || pv.Fixes[0].Changes[0].After != "DE" {
		t.Fatalf("preview: %d %s", code, raw)
	}
	code, res, raw = bulkAs(t, f, "operator", `{"action":"approve","ids":["`+c.ID+`"],"fixKeys":["`+res.Preview.Fixes[0].Key+`"]}`)
	if code != http.StatusOK || res.Succeeded != 1 || f.Writer.Count() != 1 || len(f.Writer.Writes[0].Fix) != 1 || f.Writer.Writes[0].Fix[0].After != "DE" {
		t.Fatalf("bulk approve: %d %s, writes %+v", code, raw, f.Writer.Writes)
	}
}
