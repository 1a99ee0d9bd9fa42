package decisions_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

// The approve's and the revert's writes are pinned to the version its check read; the writer's "changed since"
// (the record moved on between the two) is answered 409 changed_since, with the row left
// approved and its revert mark taken back, so a retry does not take the fix for reverted.
func TestRevertIsPinnedToTheVersionItChecked(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.AI.Fix = []syncerror.FieldChange{{Path: "subsidiary", Before: "Acme UK", After: "Acme Ltd"}}
	row := f.Arrive(t, "E-1", "SO-1", `{"subsidiary":"Acme UK"}`)
	f.Records.Fields, f.Records.Version = map[string]any{"subsidiary": "Acme UK"}, "41"
	if w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/approve", ""); w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	if got := f.Writer.Writes[0].IfVersion; got != "41" {
		t.Fatalf("the approve was pinned to %q, want the version its values before were read at", got)
	}
	f.Records.Fields, f.Records.Version = map[string]any{"subsidiary": "Acme Ltd"}, "42"

	f.Writer.Err = fmt.Errorf("%w: 412 from the ERP", syncerror.ErrRecordChanged)
	w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/revert", "")
	if w.Code != http.StatusConflict || roomtest.ProblemCode(t, w) != "changed_since" {
		t.Fatalf("revert that met a change: %d %s", w.Code, w.Body)
	}
	stored, _ := f.Claims.Get(context.Background(), "acme", row.ID)
	if stored.Status != syncerror.StatusApproved || len(stored.Applied.RevertMarks) != 0 {
		t.Fatalf("row %s, revert marks %+v", stored.Status, stored.Applied.RevertMarks)
	}

	f.Writer.Err = nil
	if w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/revert", ""); w.Code != http.StatusOK {
		t.Fatalf("revert: %d %s", w.Code, w.Body)
	}
	if last := f.Writer.Writes[len(f.Writer.Writes)-1]; last.IfVersion != "42" || last.Key != syncerror.RevertKey(stored) {
		t.Fatalf("revert written as %+v, want pinned to version 42", last)
	}
}

// An approve whose record changes between the read of the values its fix replaces and the
// write reads them again, so the values kept for a revert are the ones the fix replaced;
// a record that changes at every try is written all the same (the fix is vouched for),
// without values before, so a revert of it refuses rather than write back stale ones.
func TestApproveReadsTheValuesBeforeAgainWhenTheRecordChanged(t *testing.T) {
	for _, tc := range []struct {
		changed   int
		wantPin   string
		wantPrior bool
	}{{changed: 1, wantPin: "41", wantPrior: true}, {changed: 3, wantPin: "", wantPrior: false}} {
		t.Run(fmt.Sprint(tc.changed, " changes"), func(t *testing.T) {
			f := roomtest.NewAssistFixture(t)
			f.AI.Fix = []syncerror.FieldChange{{Path: "subsidiary", Before: "Acme UK", After: "Acme Ltd"}}
			row := f.Arrive(t, "E-1", "SO-1", `{"subsidiary":"Acme UK"}`)
			f.Records.Fields, f.Records.Version = map[string]any{"subsidiary": "Acme UK"}, "41"
			f.Writer.Changed = tc.changed
			if w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/approve", ""); w.Code != http.StatusOK {
				t.Fatalf("approve: %d %s", w.Code, w.Body)
			}
			stored, _ := f.Claims.Get(context.Background(), "acme", row.ID)
			if len(f.Writer.Writes) != 1 || f.Writer.Writes[0].IfVersion != tc.wantPin || stored.Status != syncerror.StatusApproved {
				t.Fatalf("writes %+v, row %s", f.Writer.Writes, stored.Status)
			}
			if got := len(stored.Applied.Prior) == 1; got != tc.wantPrior {
				t.Fatalf("values before kept: %+v, want kept %v", stored.Applied.Prior, tc.wantPrior)
			}
		})
	}
}
