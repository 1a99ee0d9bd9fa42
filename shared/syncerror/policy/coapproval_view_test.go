package policy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

// detailAs reads the row's detail as who (an approver).
func detailAs(t *testing.T, f *roomtest.AssistFixture, who, id string) queue.Detail {
	t.Helper()
	w := f.As(t, who, "approver", "GET", "/p/"+id, "")
	var d queue.Detail
	if err := json.Unmarshal(w.Body.Bytes(), &d); err != nil || w.Code != http.StatusOK {
		t.Fatalf("detail as %s: %d %s", who, w.Code, w.Body)
	}
	return d
}

// A two-approver edit waiting for its second approval is in the row's detail: who edited
// it, who approved it so far, the fix the second approval writes and the key an approve
// names it by; the editor and an approver read that they cannot be its second approver.
// (The detail said nothing of it: the second approver approved blind.)
func TestTwoApproversTheDetailShowsTheEditWaitingForItsSecondApproval(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"four-eyes","match":{},"apply":"two_approvers"}]}`)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	path := "/p/" + c.ID + "/approve"
	for _, a := range []struct{ who, body string }{{"anna", `{"fix":[{"path":"shipcountry","after":"DEU"}]}`}, {"bert", ""}} {
		if w := f.As(t, a.who, "approver", "POST", path, a.body); w.Code != http.StatusAccepted {
			t.Fatalf("%s: %d %s", a.who, w.Code, w.Body)
		}
	}
	d := detailAs(t, f, "carl", c.ID)
	ca := d.CoApproval
	if ca == nil || ca.Editor != "anna" || ca.EditorIsYou || len(ca.Approvers) != 1 || ca.Approvers[0].Actor != "bert" ||
		ca.Approvers[0].You || ca.Needed != 2 || len(ca.Fix) != 1 || ca.Fix[0].After != "DEU" || ca.You != "" || ca.Key == "" {
		t.Fatalf("carl's detail: co-approval %+v", ca)
	}
	if d.Approval == nil || d.Approval.Apply != "two_approvers" || d.Decider != "two_approvers" {
		t.Fatalf("carl's detail: approval %+v decider %q", d.Approval, d.Decider)
	}
	if ca := detailAs(t, f, "anna", c.ID).CoApproval; ca == nil || !ca.EditorIsYou || ca.You != "editor" {
		t.Fatalf("anna's detail: %+v", ca)
	}
	if ca := detailAs(t, f, "bert", c.ID).CoApproval; ca == nil || !ca.Approvers[0].You || ca.You != "approved" {
		t.Fatalf("bert's detail: %+v", ca)
	}
	// The key names the fix shown: carl's approve naming it writes that fix.
	if w := f.As(t, "carl", "approver", "POST", path, `{"coApproval":"`+ca.Key+`"}`); w.Code != http.StatusOK ||
		f.Writer.Count() != 1 || f.Writer.Writes[0].Fix[0].After != "DEU" {
		t.Fatalf("carl's second approval: %d %s; writes %+v", w.Code, w.Body, f.Writer.Writes)
	}
	if d := detailAs(t, f, "carl", c.ID); d.CoApproval != nil {
		t.Fatalf("after the write: %+v", d.CoApproval)
	}
}

// Without a two_approvers rule the detail reads no co-approval document: one GetItem
// more only where a rule can need one.
func TestTheDetailReadsNoCoApprovalWithoutATwoApproversRule(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	docs := &countDocs{AssistStore: f.Claims}
	f.Op.Assist.Store = docs
	if d := detailAs(t, f, "carl", c.ID); d.CoApproval != nil || docs.coApprovals != 0 {
		t.Fatalf("co-approval %+v, %d reads of its document", d.CoApproval, docs.coApprovals)
	}
	f.Op.Assist.Store = f.Claims
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"four-eyes","match":{"classes":["missing"]},"apply":"two_approvers"}]}`)
	f.Op.Assist.Store = docs
	if d := detailAs(t, f, "carl", c.ID); d.CoApproval != nil || docs.coApprovals != 1 {
		t.Fatalf("with the rule: co-approval %+v, %d reads of its document", d.CoApproval, docs.coApprovals)
	}
}

// countDocs counts the reads of co-approval documents.
type countDocs struct {
	syncerror.AssistStore
	coApprovals int
}

func (s *countDocs) GetDoc(ctx context.Context, tenantID, key string) (syncerror.Doc, error) {
	if strings.HasPrefix(key, syncerror.DocCoApproval) {
		s.coApprovals++
	}
	return s.AssistStore.GetDoc(ctx, tenantID, key)
}

// An edit started under a two_approvers rule on a row that keeps an edit (its write held
// for an ownership approval) supersedes the kept edit: the detail shows the new edit, and
// not the kept one, as what an approve writes; an approve without a fix is of the new
// edit, decided by the policy on it, and its second approval writes it. (The kept edit,
// which no rule gave to two approvers, was written by the next approver alone while the
// new edit waited unseen for its second approval.)
func TestTwoApproversANewEditSupersedesTheKeptEdit(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"four-eyes-phone","match":{"fields":["contactPhone","shipcountry"]},"apply":"two_approvers"},`+
		`{"id":"one-approver","match":{},"apply":"approver"}]}`)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	path := "/p/" + c.ID + "/approve"
	// Not the four-eyes rule's (not every field is one of its), so one approver's: held.
	f.Writer.Err = &syncerror.RefusedError{Status: http.StatusConflict, Code: syncerror.CodeApprovalRequired, Reason: "the write is held for an ownership approval (ap-1)"}
	if w := f.As(t, "bert", "approver", "POST", path, `{"fix":[{"path":"shipcountry","after":"DEU"},{"path":"shipzip","after":"10115"}]}`); w.Code != http.StatusConflict {
		t.Fatalf("held: %d %s", w.Code, w.Body)
	}
	f.Writer.Err = nil
	if d := detailAs(t, f, "carl", c.ID); d.EditKept != "held" || d.CoApproval != nil {
		t.Fatalf("set-up: kept %q co-approval %+v", d.EditKept, d.CoApproval)
	}
	if w := f.As(t, "anna", "approver", "POST", path, `{"fix":[{"path":"shipcountry","after":"AUT"},{"path":"contactPhone","after":"+43 1 234"}]}`); w.Code != http.StatusAccepted {
		t.Fatalf("anna's edit: %d %s", w.Code, w.Body)
	}
	d := detailAs(t, f, "carl", c.ID)
	if ca := d.CoApproval; ca == nil || ca.Supersedes != "held" || len(ca.Fix) != 2 || ca.Fix[0].After != "AUT" ||
		d.EditKept != "" || d.EditedFix != nil || d.Approval == nil || d.Approval.RuleID != "four-eyes-phone" {
		t.Fatalf("detail: co-approval %+v, kept %q %+v, approval %+v", d.CoApproval, d.EditKept, d.EditedFix, d.Approval)
	}
	if w := f.As(t, "bert", "approver", "POST", path, ""); w.Code != http.StatusAccepted || f.Writer.Count() != 0 {
		t.Fatalf("bert's approve without a fix is the first approval of anna's edit: %d %s; writes %+v", w.Code, w.Body, f.Writer.Writes)
	}
	if w := f.As(t, "carl", "approver", "POST", path, ""); w.Code != http.StatusOK || f.Writer.Count() != 1 ||
		len(f.Writer.Writes[0].Fix) != 2 || f.Writer.Writes[0].Fix[0].After != "AUT" {
		t.Fatalf("carl's second approval writes anna's edit: %d %s; writes %+v", w.Code, w.Body, f.Writer.Writes)
	}
	if row, _ := f.Claims.Get(context.Background(), "acme", c.ID); row.Status != syncerror.StatusApproved || row.EditedFix[0].After != "AUT" {
		t.Fatalf("row: %s %+v", row.Status, row.EditedFix)
	}
	if !strings.Contains(auditDetails(t, f, "syncerror.approve"), `"supersedes":"apply_held"`) {
		t.Fatalf("the approve's audit names no superseded edit: %s", auditDetails(t, f, "syncerror.approve"))
	}
}

// An approve that names the edit it was shown (coApproval: the key) is refused when
// another edit waits by then, and writes nothing: the approver is never counted for, nor
// writes, a fix they did not see.
func TestTwoApproversAnApproveOfAnEditReplacedMeanwhileIsRefused(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"four-eyes","match":{},"apply":"two_approvers"}]}`)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	path := "/p/" + c.ID + "/approve"
	if w := f.As(t, "anna", "approver", "POST", path, `{"fix":[{"path":"shipcountry","after":"DEU"}]}`); w.Code != http.StatusAccepted {
		t.Fatalf("anna: %d %s", w.Code, w.Body)
	}
	shown := detailAs(t, f, "carl", c.ID).CoApproval
	for _, a := range []struct{ who, body string }{{"dora", `{"fix":[{"path":"shipcountry","after":"AUT"}]}`}, {"bert", ""}} {
		if w := f.As(t, a.who, "approver", "POST", path, a.body); w.Code != http.StatusAccepted {
			t.Fatalf("%s: %d %s", a.who, w.Code, w.Body)
		}
	}
	w := f.As(t, "carl", "approver", "POST", path, `{"coApproval":"`+shown.Key+`"}`)
	if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), `"co_approval_changed"`) || f.Writer.Count() != 0 {
		t.Fatalf("carl's approve of the edit he was shown: %d %s; writes %+v", w.Code, w.Body, f.Writer.Writes)
	}
	if ca := detailAs(t, f, "carl", c.ID).CoApproval; ca == nil || len(ca.Approvers) != 1 || ca.Fix[0].After != "AUT" {
		t.Fatalf("after the refusal: %+v", ca)
	}
}

// auditDetails is the details of the newest audit record of action, as JSON.
func auditDetails(t *testing.T, f *roomtest.AssistFixture, action string) string {
	t.Helper()
	all := f.Audits.All()
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].ActionKey == action {
			return string(all[i].Details)
		}
	}
	return ""
}

// On a proposal without a fix, a fix entered under a two_approvers rule is approved by two
// approvers without one: the entered fix is what they approve and what is written. (Their
// approves were refused, 422 empty_fix: the row's own fix is empty.)
func TestTwoApproversAFixEnteredOnAProposalWithoutOneIsApproved(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"four-eyes","match":{},"apply":"two_approvers"}]}`)
	c := f.Arrive(t, "E-1", "SO-1", `{"shipcountry":"Deutschland"}`) // the AI proposes no change
	path := "/p/" + c.ID + "/approve"
	for _, a := range []struct{ who, body string }{{"anna", `{"fix":[{"path":"shipcountry","after":"DEU"}]}`}, {"bert", ""}} {
		if w := f.As(t, a.who, "approver", "POST", path, a.body); w.Code != http.StatusAccepted {
			t.Fatalf("%s: %d %s", a.who, w.Code, w.Body)
		}
	}
	if w := f.As(t, "carl", "approver", "POST", path, ""); w.Code != http.StatusOK || f.Writer.Count() != 1 || f.Writer.Writes[0].Fix[0].After != "DEU" {
		t.Fatalf("carl: %d %s; writes %+v", w.Code, w.Body, f.Writer.Writes)
	}
}

// An approver whose detail showed no waiting edit (the row's own fix) names none
// (coApproval: ""): an edit entered meanwhile is not what their approve approves, it is
// refused (409 co_approval_changed) and nothing is recorded. (The console sent no
// coApproval then, and the approve was counted as the first approval of an edit the
// approver never saw, which one more approver then wrote.) With nothing waiting, the same
// approve is the first of two.
func TestTwoApproversAnApproverShownNoEditIsNotCountedForOneEnteredMeanwhile(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"four-eyes","match":{},"apply":"two_approvers"}]}`)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	path := "/p/" + c.ID + "/approve"
	if d := detailAs(t, f, "carl", c.ID); d.CoApproval != nil {
		t.Fatalf("set-up: a round is under way: %+v", d.CoApproval)
	}
	if w := f.As(t, "anna", "approver", "POST", path, `{"fix":[{"path":"shipcountry","after":"AUT"},{"path":"creditlimit","after":"99999"}]}`); w.Code != http.StatusAccepted {
		t.Fatalf("anna's edit: %d %s", w.Code, w.Body)
	}
	w := f.As(t, "carl", "approver", "POST", path, `{"coApproval":""}`)
	if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), `"co_approval_changed"`) {
		t.Fatalf("carl, shown the AI's fix, approving: %d %s", w.Code, w.Body)
	}
	if ca := detailAs(t, f, "bert", c.ID).CoApproval; ca == nil || len(ca.Approvers) != 0 {
		t.Fatalf("carl was counted for anna's edit: %+v", ca)
	}
	if w := f.As(t, "bert", "approver", "POST", path, ""); w.Code != http.StatusAccepted || f.Writer.Count() != 0 {
		t.Fatalf("bert's approval: %d %s; writes %+v", w.Code, w.Body, f.Writer.Writes)
	}

	// Nothing waiting: "" is the row's own fix, the first of its two approvals.
	other := roomtest.ReadyClaim(t, f.Claims, "acme", "E-2", clock)
	if w := f.As(t, "carl", "approver", "POST", "/p/"+other.ID+"/approve", `{"coApproval":""}`); w.Code != http.StatusAccepted || f.Writer.Count() != 0 {
		t.Fatalf("carl's approve of the row's own fix: %d %s", w.Code, w.Body)
	}
}
