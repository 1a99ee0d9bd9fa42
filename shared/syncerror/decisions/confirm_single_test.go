package decisions_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

// detailAs reads row id's detail as user with role.
func detailAs(t *testing.T, f *roomtest.AssistFixture, user, role, id string) queue.Detail {
	t.Helper()
	w := f.As(t, user, role, "GET", "/p/"+id, "")
	var d queue.Detail
	if err := json.Unmarshal(w.Body.Bytes(), &d); err != nil || w.Code != http.StatusOK {
		t.Fatalf("detail: %d %s", w.Code, w.Body)
	}
	return d
}

// readyRow is a pending row with the AI's proposal, as stored.
func readyRow(t *testing.T, f *roomtest.AssistFixture, errorID string) syncerror.Claim {
	t.Helper()
	c := roomtest.ReadyClaim(t, f.Claims, "acme", errorID, clock)
	row, err := f.Claims.Get(context.Background(), "acme", c.ID)
	if err != nil || row.Proposal == nil || len(row.Proposal.Fix) == 0 {
		t.Fatalf("set-up: %v %+v", err, row.Proposal)
	}
	return row
}

// withFixKey is an approve body sending key as the fix the approver was shown.
func withFixKey(key string) string {
	b, _ := json.Marshal(map[string]string{"fixKey": key})
	return string(b)
}

// A single approve sending the detail's fixKey writes the fix that detail showed or
// nothing: an edit kept on the row after the detail was read (another approver's write
// held for an ownership approval) answers 409 fix_changed, with nothing leased, written
// or recorded; the detail read again names the kept edit, and an approve sending that key
// writes it. (Before, the approve wrote the kept edit, which its approver never saw.)
func TestSingleApproveWithTheDetailsFixKeyRefusesAKeptEditItWasNotShown(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	c := readyRow(t, f, "S-1")
	shown := detailAs(t, f, "bert", "approver", c.ID)
	if want, _ := syncerror.ConfirmKey(c.Proposal.Class, c.Proposal.Fix); shown.FixKey == "" || shown.FixKey != want {
		t.Fatalf("the detail's fixKey %q, want the AI's fix's %q", shown.FixKey, want)
	}
	kept := holdEdit(t, f, c)
	before, _ := f.Claims.Get(context.Background(), "acme", c.ID)

	w := f.As(t, "bert", "approver", "POST", "/p/"+c.ID+"/approve", withFixKey(shown.FixKey))
	if w.Code != http.StatusConflict || problemCode(t, w.Body.Bytes()) != syncerror.CodeFixChanged {
		t.Fatalf("approve with the fixKey shown before the edit was kept: %d %s, want 409 fix_changed", w.Code, w.Body)
	}
	if f.Writer.Count() != 0 {
		t.Fatalf("written %+v, want nothing", f.Writer.Writes)
	}
	after, _ := f.Claims.Get(context.Background(), "acme", c.ID)
	if after.Status != syncerror.StatusPending || after.Lease != nil || len(after.History) != len(before.History) || !reflect.DeepEqual(after.EditedFix, kept) {
		t.Fatalf("the row changed: %s lease %+v history %d→%d edit %+v", after.Status, after.Lease, len(before.History), len(after.History), after.EditedFix)
	}

	now := detailAs(t, f, "bert", "approver", c.ID)
	if want, _ := syncerror.ConfirmKey(c.Proposal.Class, kept); now.FixKey != want || now.EditKept != "held" {
		t.Fatalf("the detail read again: fixKey %q editKept %q, want the kept edit's %q", now.FixKey, now.EditKept, want)
	}
	if w := f.As(t, "bert", "approver", "POST", "/p/"+c.ID+"/approve", withFixKey(now.FixKey)); w.Code != http.StatusOK {
		t.Fatalf("approve with the current fixKey: %d %s", w.Code, w.Body)
	}
	if f.Writer.Count() != 1 || !reflect.DeepEqual(fixPathsOf(f.Writer.Writes[0].Fix), fixPathsOf(kept)) {
		t.Fatalf("written %+v, want the kept edit %+v", f.Writer.Writes, kept)
	}
}

// Under a two_approvers rule, an edit entered after the detail was read is what an approve
// without an edit would approve: sending the fixKey shown (the AI's fix) records no
// approval of it and writes nothing; the detail read again names the waiting edit, and
// that key records the approval.
func TestSingleApproveWithTheDetailsFixKeyDoesNotApproveAnEditEnteredSince(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.PutPolicy(t, `{"version":0,"rules":[{"id":"four-eyes","match":{},"apply":"two_approvers"}]}`)
	c := readyRow(t, f, "S-2")
	shown := detailAs(t, f, "alice", "approver", c.ID)
	path := "/p/" + c.ID + "/approve"
	if w := f.As(t, "anna", "approver", "POST", path, `{"fix":[{"path":"shipcountry","after":"AT"}]}`); w.Code != http.StatusAccepted {
		t.Fatalf("set-up: edit %d %s", w.Code, w.Body)
	}
	w := f.As(t, "alice", "approver", "POST", path, withFixKey(shown.FixKey))
	if w.Code != http.StatusConflict || problemCode(t, w.Body.Bytes()) != syncerror.CodeFixChanged {
		t.Fatalf("approve with the fixKey shown before the edit: %d %s, want 409 fix_changed", w.Code, w.Body)
	}
	now := detailAs(t, f, "alice", "approver", c.ID)
	if now.CoApproval == nil || len(now.CoApproval.Approvers) != 0 {
		t.Fatalf("alice's refused approve was recorded: %+v", now.CoApproval)
	}
	if want, _ := syncerror.ConfirmKey(c.Proposal.Class, now.CoApproval.Fix); now.FixKey != want || now.FixKey == shown.FixKey {
		t.Fatalf("the detail's fixKey %q, want the waiting edit's %q", now.FixKey, want)
	}
	if w := f.As(t, "alice", "approver", "POST", path, withFixKey(now.FixKey)); w.Code != http.StatusAccepted {
		t.Fatalf("approve with the waiting edit's fixKey: %d %s", w.Code, w.Body)
	}
	if f.Writer.Count() != 0 {
		t.Fatalf("written %+v before a second approval", f.Writer.Writes)
	}
}

// An approve that sends an edit writes the edit, whatever fixKey it carries (the edit is
// what the approver typed); one without a fixKey writes the row's fix as it stands.
func TestSingleApproveFixKeyIsIgnoredWithAnEditAndOptional(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	a := roomtest.ReadyClaim(t, f.Claims, "acme", "S-3", clock)
	b := roomtest.ReadyClaim(t, f.Claims, "acme", "S-4", clock)
	body := `{"fixKey":"g_stale","fix":[{"path":"shipcountry","after":"AT"}]}`
	if w := f.As(t, "bert", "approver", "POST", "/p/"+a.ID+"/approve", body); w.Code != http.StatusOK {
		t.Fatalf("an edit with a stale fixKey: %d %s", w.Code, w.Body)
	}
	if w := f.As(t, "bert", "approver", "POST", "/p/"+b.ID+"/approve", ""); w.Code != http.StatusOK {
		t.Fatalf("an approve without a fixKey: %d %s", w.Code, w.Body)
	}
	if f.Writer.Count() != 2 {
		t.Fatalf("written %d, want 2", f.Writer.Count())
	}
	long := withFixKey(strings.Repeat("k", 201))
	if w := f.As(t, "bert", "approver", "POST", "/p/"+b.ID+"/approve", long); w.Code != http.StatusBadRequest {
		t.Fatalf("a fixKey over 200 characters: %d %s", w.Code, w.Body)
	}
}

// problemCode is the code of a problem answer.
func problemCode(t *testing.T, body []byte) string {
	t.Helper()
	var p struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(body, &p)
	return p.Code
}

// fixPathsOf is the changes' paths and values, for comparing a written fix with an edit.
func fixPathsOf(fix []syncerror.FieldChange) map[string]string {
	out := map[string]string{}
	for _, c := range fix {
		b, _ := json.Marshal(c.After)
		out[c.Path] = string(b)
	}
	return out
}
