package policy_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

// After an operator approves an edited value once, the next error about another record
// with the same field and value arrives with that value proposed, learned, and no AI call;
// after a rejection it is not proposed again, not even when the AI proposes it.
func TestLearnedFixNeedsNoAICallAndRejectionsStick(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	first := f.Arrive(t, "E-1", "SO-1", `{"subsidiary":"Acme UK","total":12}`)
	if f.AI.Count() != 1 || len(first.Proposal.Fix) != 0 {
		t.Fatalf("first diagnosis: %d calls, %+v", f.AI.Count(), first.Proposal)
	}
	// The AI proposed nothing; an approver enters the fix (the edit path: under the default
	// policy a field the proposal does not change is the approvers').
	edit := `{"fix":[{"path":"subsidiary","after":"Acme Ltd (UK)"}]}`
	if w := f.As(t, "anna", "approver", "POST", "/p/"+first.ID+"/approve", edit); w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}

	second := f.Arrive(t, "E-2", "SO-2", `{"subsidiary":"Acme UK","total":99}`)
	p := second.Proposal
	if f.AI.Count() != 1 {
		t.Fatalf("the AI was asked again: %d calls", f.AI.Count())
	}
	if p.Source != "learned" || len(p.Fix) != 1 || p.Fix[0].Path != "subsidiary" || p.Fix[0].After != "Acme Ltd (UK)" ||
		p.Learned == nil || p.Learned.Approvals != 1 || p.Learned.LastApprovedBy != "anna" || p.Learned.LastApprovedAt == nil {
		t.Fatalf("learned proposal %+v %+v", p, p.Learned)
	}
	if p.Confidence <= 0.5 || p.Confidence >= 1 {
		t.Fatalf("confidence %v", p.Confidence)
	}
	// A different value before is another case: the AI is asked.
	if other := f.Arrive(t, "E-3", "SO-3", `{"subsidiary":"Acme US"}`); other.Proposal.Source != "" || f.AI.Count() != 2 {
		t.Fatalf("another value reused the case: %+v", other.Proposal)
	}

	if w := f.As(t, "anna", "approver", "POST", "/p/"+second.ID+"/reject", `{"reason":"UK orders book to Acme Holdings now"}`); w.Code != http.StatusOK {
		t.Fatalf("reject: %d %s", w.Code, w.Body)
	}
	f.AI.Fix = []syncerror.FieldChange{{Path: "subsidiary", Before: "Acme UK", After: "Acme Ltd (UK)"}}
	third := f.Arrive(t, "E-4", "SO-4", `{"subsidiary":"Acme UK"}`)
	if f.AI.Count() != 3 || third.Proposal.Source != "" || len(third.Proposal.Fix) != 0 ||
		!strings.Contains(third.Proposal.Rationale, "not proposed again") {
		t.Fatalf("after a rejection: %d calls, %+v", f.AI.Count(), third.Proposal)
	}

	// The admin sees what was learned, with the rejection and its reason.
	w := f.As(t, "ada", "admin", "GET", "/knowledge", "")
	var page struct{ Items []policy.Knowledge }
	if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil || len(page.Items) != 1 {
		t.Fatalf("knowledge %d %s", w.Code, w.Body)
	}
	k := page.Items[0]
	if k.Field != "subsidiary" || k.Before != "Acme UK" || k.Approvals != 1 || k.Rejections != 1 ||
		len(k.Rejected) != 1 || k.Rejected[0].Reason != "UK orders book to Acme Holdings now" {
		t.Fatalf("knowledge %+v", k)
	}
}

// Admins correct and delete what was learned; each change is audited; a stale version is
// refused; a secret is never learned.
func TestKnowledgeAdmin(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	first := f.Arrive(t, "E-1", "SO-1", `{"subsidiary":"Acme UK"}`)
	f.As(t, "anna", "approver", "POST", "/p/"+first.ID+"/approve", `{"fix":[{"path":"subsidiary","after":"Acme UK Ltd"}]}`)
	var page struct{ Items []policy.Knowledge }
	_ = json.Unmarshal(f.As(t, "ada", "admin", "GET", "/knowledge", "").Body.Bytes(), &page)
	k := page.Items[0]
	path := "/knowledge/" + k.ID
	if w := f.As(t, "ada", "admin", "PUT", path, `{"value":"Acme Ltd (UK)","version":99}`); w.Code != http.StatusConflict {
		t.Fatalf("stale: %d %s", w.Code, w.Body)
	}
	// A version below 1 is no version the listing returns (the document's minimum 1): a
	// 400 naming it, not a 409 sending the admin to read the knowledge again.
	for _, v := range []string{"0", "-1"} {
		if w := f.As(t, "ada", "admin", "PUT", path, `{"value":"Acme Ltd (UK)","version":`+v+`}`); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"field":"version"`) {
			t.Fatalf("version %s: %d %s, want 400 naming version", v, w.Code, w.Body)
		}
	}
	if w := f.As(t, "ada", "admin", "PUT", path, `{"value":"4111 1111 1111 1111","version":1}`); w.Code != http.StatusBadRequest {
		t.Fatalf("card number learned: %d %s", w.Code, w.Body)
	}
	w := f.As(t, "ada", "admin", "PUT", path, `{"value":"Acme Ltd (UK)","version":1}`)
	var got policy.Knowledge
	_ = json.Unmarshal(w.Body.Bytes(), &got)
	if w.Code != http.StatusOK || got.Value != "Acme Ltd (UK)" || got.CorrectedBy != "ada" || got.Version != 2 {
		t.Fatalf("correct: %d %s", w.Code, w.Body)
	}
	if next := f.Arrive(t, "E-2", "SO-2", `{"subsidiary":"Acme UK"}`); next.Proposal.Fix[0].After != "Acme Ltd (UK)" {
		t.Fatalf("corrected value not proposed: %+v", next.Proposal)
	}
	if w := f.As(t, "ada", "admin", "DELETE", path+"?version=2", ""); w.Code != http.StatusNoContent {
		t.Fatalf("delete: %d %s", w.Code, w.Body)
	}
	if w := f.As(t, "ada", "admin", "PUT", "/knowledge/kn_nope", `{"value":"x","version":1}`); w.Code != http.StatusNotFound {
		t.Fatalf("unknown id: %d", w.Code)
	}
	keys := map[string]bool{}
	for _, r := range f.Audits.All() {
		keys[r.ActionKey] = true
	}
	if !keys["settings.knowledge_correct"] || !keys["settings.knowledge_delete"] {
		t.Fatalf("audited %v", keys)
	}

	// A password the operator typed into a fix is written, but never learned.
	pw := f.Arrive(t, "E-5", "SO-5", `{"apiPassword":"old"}`)
	f.As(t, "anna", "approver", "POST", "/p/"+pw.ID+"/approve", `{"fix":[{"path":"apiPassword","after":"hunter2-Secret!"}]}`)
	_ = json.Unmarshal(f.As(t, "ada", "admin", "GET", "/knowledge", "").Body.Bytes(), &page)
	for _, k := range page.Items {
		if k.Field == "apiPassword" {
			t.Fatalf("a password was learned: %+v", k)
		}
	}
}
