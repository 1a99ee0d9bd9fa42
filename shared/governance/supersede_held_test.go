package governance_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/governance"
)

// A write held with ReleaseByRetry (a flow run's) is made by its caller's attempt after
// the approval. When a newer change of its source record has been written meanwhile to
// some of its fields, that attempt writes the approved values of the others, as a release
// does: the fields taken out are older than what the record holds, and the rest is what
// the approver approved. It is not refused as another write than the approval's.
func TestAnApprovedRetryWritesWhatANewerChangeLeft(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if err := e.overrides.PutOverrides(context.Background(), "t1", []governance.Entry{
		{Entity: "ticket", Field: "phone", Owner: hosterp, Policy: governance.PolicyRequireApproval},
	}); err != nil {
		t.Fatal(err)
	}
	id := operator("t1")
	older := change(t0, t0, map[string]any{"phone": "+1", "email": "a@example.com"})
	older.ReleaseByRetry = true
	res, err := e.write(id, older)
	if !errors.Is(err, governance.ErrPendingApproval) {
		t.Fatalf("hold: %+v, %v", res, err)
	}
	if w := serve(e.api(), http.MethodPost, "/api/governance/approvals/"+res.Held.ID+"/approve", approverT1); w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	if _, err := e.write(id, change(t0.Add(time.Minute), t0.Add(time.Minute), map[string]any{"email": "b@example.com"})); err != nil {
		t.Fatal(err)
	}
	res, err = e.write(id, older)
	if err != nil || !slices.Equal(res.Superseded, []string{"email"}) {
		t.Fatalf("the approved write's retry: %+v, %v; want written without email", res, err)
	}
	if f := e.ticket(); f["phone"] != "+1" || f["email"] != "b@example.com" {
		t.Fatalf("ticket %v; want the approved phone and the newer email", f)
	}
	// Values the approval does not hold are still refused under its key.
	other := older
	other.Fields = map[string]any{"phone": "+9", "email": "a@example.com"}
	if _, err := e.write(id, other); !errors.Is(err, governance.ErrApprovalMismatch) {
		t.Fatalf("another write under the key: %v; want refused", err)
	}
}
