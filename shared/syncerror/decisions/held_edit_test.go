package decisions_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

// An edited approve held for an ownership approval leaves the edit as the row's fix, and
// every reader agrees on it with what the next approve without an edit writes: the detail
// (held), the approval policy (an edit that adds a field is an approver's), the bulk
// preview and the bulk approve, under the key the held write had. (The row dropped the
// edit: all of them showed the AI's fix and the bulk approve wrote it under another key.)
func TestAHeldEditIsTheFixEveryReaderShowsAndTheNextApproveWrites(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	c := roomtest.ReadyClaim(t, f.Claims, "acme", "E-1", clock) // proposal: shipcountry -> "DE"
	f.Writer.Err = &syncerror.RefusedError{Status: http.StatusConflict, Code: syncerror.CodeApprovalRequired,
		Reason: "the write is held for an ownership approval (ap-1); approve it under /api/governance/approvals, then approve this fix again"}
	edit := `{"fix":[{"path":"shipcountry","after":"AT"},{"path":"contactPhone","after":"+44 20 7946 0000"}]}`
	if w := f.As(t, "anna", "approver", "POST", "/p/"+c.ID+"/approve", edit); w.Code != http.StatusConflict {
		t.Fatalf("set-up: the edited approve should be held: %d %s", w.Code, w.Body)
	}
	f.Writer.Err = nil
	row, _ := f.Claims.Get(context.Background(), "acme", c.ID)
	if len(row.EditedFix) != 2 {
		t.Fatalf("held: the row keeps no edit: %+v", row.EditedFix)
	}
	heldKey := syncerror.FixKey(c.ID, row.EditedFix)

	w := f.As(t, "olga", "operator", "GET", "/p/"+c.ID, "")
	var d queue.Detail
	if err := json.Unmarshal(w.Body.Bytes(), &d); err != nil || w.Code != http.StatusOK {
		t.Fatalf("detail %d %s", w.Code, w.Body)
	}
	if d.EditKept != "held" || !reflect.DeepEqual(d.EditedFix, row.EditedFix) || d.Approval == nil ||
		d.Approval.Apply != policy.ApplyApprover || d.Decider == "you" {
		t.Fatalf("detail: kept %q edit %+v approval %+v decider %q", d.EditKept, d.EditedFix, d.Approval, d.Decider)
	}
	code, res, raw := bulkAs(t, f, "operator", `{"action":"approve","ids":["`+c.ID+`"],"dryRun":true}`)
	if pv := res.Preview; code != http.StatusOK || pv == nil || pv.Allowed == nil || *pv.Allowed != 0 || len(pv.Fixes) != 1 ||
		len(pv.Fixes[0].Changes) != 2 || pv.Fixes[0].Changes[1].After != "AT" {
		t.Fatalf("operator's preview: %d %s", code, raw)
	}
	code, res, raw = bulkAs(t, f, "approver", `{"action":"approve","ids":["`+c.ID+`"],"fixKeys":["`+res.Preview.Fixes[0].Key+`"]}`)
	if code != http.StatusOK || res.Succeeded != 1 || f.Writer.Count() != 1 || f.Writer.Writes[0].Key != heldKey ||
		!reflect.DeepEqual(f.Writer.Writes[0].Fix, row.EditedFix) {
		t.Fatalf("bulk approve: %d %s, writes %+v (held under %s)", code, raw, f.Writer.Writes, heldKey)
	}
	if done, _ := f.Claims.Get(context.Background(), "acme", c.ID); done.Status != syncerror.StatusApproved || !reflect.DeepEqual(done.EditedFix, row.EditedFix) {
		t.Fatalf("approved: %s with edit %+v", done.Status, done.EditedFix)
	}
}
