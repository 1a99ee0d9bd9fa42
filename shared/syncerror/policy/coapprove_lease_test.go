package policy_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

// beginFails is the claim store whose BeginApply fails n more times (a throttled table).
type beginFails struct {
	syncerror.ClaimStore
	n *int
}

func (b beginFails) BeginApply(ctx context.Context, tenantID, id string, from syncerror.Status, l syncerror.Lease, edited []syncerror.FieldChange, e syncerror.HistoryEntry, now time.Time) (syncerror.Claim, error) {
	if *b.n > 0 {
		*b.n--
		return syncerror.Claim{}, errors.New("ThrottlingException")
	}
	return b.ClaimStore.BeginApply(ctx, tenantID, id, from, l, edited, e, now)
}

// coApprovalPutFails is the document store whose writes of co-approval documents fail n
// more times.
type coApprovalPutFails struct {
	syncerror.AssistStore
	n *int
}

func (s coApprovalPutFails) PutDoc(ctx context.Context, tenantID string, d syncerror.Doc, now time.Time) (syncerror.Doc, error) {
	if strings.HasPrefix(d.Key, syncerror.DocCoApproval) && *s.n > 0 {
		*s.n--
		return syncerror.Doc{}, errors.New("ThrottlingException")
	}
	return s.AssistStore.PutDoc(ctx, tenantID, d, now)
}

// The second approval of a two-approver edit whose lease is not taken (the queue
// throttled: 503, "nothing was written… Retry shortly") leaves the edit and both approvals
// where they were: the approver's retry writes the edit they approved. (The co-approval
// document lost the edit before the lease was asked for, and the retry recorded an
// approval of the AI's fix, 202, with the edit in neither the document nor the history.)
// And once the lease is taken, an edit the document cannot give up is not written: the
// lease is given back and the retry writes it.
func TestTwoApproversAnApprovedEditOutlivesAWriteThatDidNotStart(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"four-eyes","match":{},"apply":"two_approvers"}]}`)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	path := "/p/" + c.ID + "/approve"
	for _, a := range []struct{ who, body string }{{"anna", `{"fix":[{"path":"shipcountry","after":"DEU"}]}`}, {"bert", ""}} {
		if w := f.As(t, a.who, "approver", "POST", path, a.body); w.Code != http.StatusAccepted {
			t.Fatalf("%s: %d %s", a.who, w.Code, w.Body)
		}
	}
	begins := 1
	f.Op.Claims = beginFails{ClaimStore: f.Claims, n: &begins}
	if w := f.As(t, "carl", "approver", "POST", path, ""); w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "nothing was written") {
		t.Fatalf("second approval, queue throttled: %d %s", w.Code, w.Body)
	}

	// The lease is taken this time, but the co-approval document cannot give the edit up.
	puts := 100
	f.Op.Assist.Store = coApprovalPutFails{AssistStore: f.Claims, n: &puts}
	if w := f.As(t, "carl", "approver", "POST", path, ""); w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "nothing was written") {
		t.Fatalf("second approval, document unwritable: %d %s", w.Code, w.Body)
	}
	if row, _ := f.Claims.Get(context.Background(), "acme", c.ID); row.Status != syncerror.StatusPending || row.Lease != nil || f.Writer.Count() != 0 {
		t.Fatalf("after a handover that failed: row %s lease %+v, writes %+v", row.Status, row.Lease, f.Writer.Writes)
	}

	puts = 0
	if w := f.As(t, "carl", "approver", "POST", path, ""); w.Code != http.StatusOK || f.Writer.Count() != 1 || f.Writer.Writes[0].Fix[0].After != "DEU" {
		t.Fatalf("carl's retry after 'nothing was written, retry shortly': %d %s; writes %+v", w.Code, w.Body, f.Writer.Writes)
	}
	// The document gave the edit and its approvals to that write.
	if w := f.As(t, "bert", "approver", "GET", "/p/"+c.ID, ""); !strings.Contains(w.Body.String(), `"editedFix"`) {
		t.Fatalf("detail after the write: %s", w.Body)
	}
	if d, err := f.Claims.GetDoc(context.Background(), "acme", syncerror.DocCoApproval+c.ID); err != nil || strings.Contains(string(d.Body), "DEU") {
		t.Fatalf("co-approval document after the write: %s (%v)", d.Body, err)
	}
}

// A two-approver edit whose write is held for an ownership approval stays on the row
// (held) after it left the co-approval document: two approvals without an edit then write
// it, under the key it was held with, so the released approval lets it through. (The
// edit was dropped with the hold, and that round wrote the AI's fix.)
func TestTwoApproversAHeldEditIsWhatTheNextRoundWrites(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"four-eyes","match":{},"apply":"two_approvers"}]}`)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock)
	path := "/p/" + c.ID + "/approve"
	for _, a := range []struct{ who, body string }{{"anna", `{"fix":[{"path":"shipcountry","after":"DEU"}]}`}, {"bert", ""}} {
		if w := f.As(t, a.who, "approver", "POST", path, a.body); w.Code != http.StatusAccepted {
			t.Fatalf("%s: %d %s", a.who, w.Code, w.Body)
		}
	}
	f.Writer.Err = &syncerror.RefusedError{Status: http.StatusConflict, Code: syncerror.CodeApprovalRequired, Reason: "the write is held for an ownership approval (ap-1)"}
	if w := f.As(t, "carl", "approver", "POST", path, ""); w.Code != http.StatusConflict {
		t.Fatalf("second approval, held: %d %s", w.Code, w.Body)
	}
	f.Writer.Err = nil
	row, _ := f.Claims.Get(context.Background(), "acme", c.ID)
	if w := f.As(t, "bert", "approver", "GET", "/p/"+c.ID, ""); !strings.Contains(w.Body.String(), `"editKept":"held"`) || !strings.Contains(w.Body.String(), `"after":"DEU"`) {
		t.Fatalf("detail after the hold: %s", w.Body)
	}
	if w := f.As(t, "bert", "approver", "POST", path, ""); w.Code != http.StatusAccepted || f.Writer.Count() != 0 {
		t.Fatalf("first approval of the held edit: %d %s", w.Code, w.Body)
	}
	if w := f.As(t, "carl", "approver", "POST", path, ""); w.Code != http.StatusOK || f.Writer.Count() != 1 ||
		f.Writer.Writes[0].Fix[0].After != "DEU" || f.Writer.Writes[0].Key != syncerror.FixKey(c.ID, row.EditedFix) {
		t.Fatalf("second approval of the held edit: %d %s; writes %+v", w.Code, w.Body, f.Writer.Writes)
	}
}
