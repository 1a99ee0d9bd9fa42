package wire

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
)

// An edited approve held for an ownership approval keeps its edit on the row, shown as
// held; an admin releases the hold ("written when the sync error's fix is approved
// again"), and the next approve without an edit writes the edit, under the released
// approval, once. (The row dropped the edit; that approve sent the AI's fix under another
// key, which was held again, and the released edit was never written.)
func TestAReleasedEditIsWrittenByTheNextApprove(t *testing.T) {
	e := newHeldFixEnv(t)
	e.own(t)
	c := e.hostError(t, "E-held-edit", "value", nil)
	w := e.call(t, e.op.ApproveHandler(), c.ID, `{"fix":[{"path":"shipcountry","after":"AT"}]}`)
	if w.Code != http.StatusConflict || code(w) != syncerror.CodeApprovalRequired || !strings.Contains(w.Body.String(), "edit stays") {
		t.Fatalf("edited approve: %d %s, want 409 ownership_approval_required", w.Code, w.Body)
	}
	row := e.row(t, c.ID)
	if row.Status != syncerror.StatusPending || len(row.EditedFix) != 1 || row.EditedFix[0].After != "AT" || syncerror.FixOf(row)[0].After != "AT" {
		t.Fatalf("held: row %s, edit %+v", row.Status, row.EditedFix)
	}
	var d queue.Detail
	if w := e.call(t, e.op.DetailHandler(), c.ID, ""); json.Unmarshal(w.Body.Bytes(), &d) != nil || d.EditKept != "held" ||
		!reflect.DeepEqual(d.EditedFix, row.EditedFix) {
		t.Fatalf("the detail does not show the held edit: %d %s", w.Code, w.Body)
	}

	rel := e.release(t)
	if rel.Code != http.StatusOK || !strings.Contains(rel.Body.String(), "is written when the sync error's fix (or its revert) is approved") {
		t.Fatalf("release: %d %s", rel.Code, rel.Body)
	}
	if w := e.call(t, e.op.ApproveHandler(), c.ID, ``); w.Code != http.StatusOK {
		t.Fatalf("approve after the release: %d %s", w.Code, w.Body)
	}
	rec, _ := e.host.Get("salesOrder", "SO-10042")
	row = e.row(t, c.ID)
	if rec.Fields["shipcountry"] != "AT" || len(writesTo(e.host, "salesOrder")) != 1 || row.Status != syncerror.StatusApproved ||
		len(row.EditedFix) != 1 || row.EditedFix[0].After != "AT" || len(e.recs.Approvals()) != 1 {
		t.Fatalf("after the approve: shipcountry %v, %d writes, row %s edit %+v, holds %+v", rec.Fields["shipcountry"],
			len(writesTo(e.host, "salesOrder")), row.Status, row.EditedFix, e.recs.Approvals())
	}
}

// An edited approve whose outcome could not be verified for a day (the record unreadable)
// returns the row keeping the edit, which may be in the record: the detail shows it as
// unverified, and the next approve without an edit sends it again under the same key. (The
// row dropped the edit, and that approve wrote the AI's fix over what may have been the
// operator's.)
func TestAnUnverifiedEditIsSentAgainByTheNextApprove(t *testing.T) {
	f := newFixture(t)
	c := f.ready(t, "E-1")
	edit := []syncerror.FieldChange{{Path: "shipcountry", Before: "Deutschland", After: "AT"}}
	lease := syncerror.NewLease(f.now, syncerror.DefaultLeaseTTL)
	lease.Fix, lease.Key = edit, syncerror.FixKey(c.ID, edit)
	if _, err := f.claims.BeginApply(context.Background(), "acme", c.ID, syncerror.StatusPending, lease, edit,
		syncerror.HistoryEntry{At: f.now, Actor: "alice", Action: "approve"}, f.now); err != nil {
		t.Fatal(err)
	}
	gone := ledgerWrites{ledger: f.ledger, records: unreadable{fmt.Errorf("%w: no connector", syncerror.ErrWriterNotConfigured)}}
	f.rc.Writes, f.op.Evidence = gone, gone
	f.now = lease.ExpiresAt.Add(syncerror.UnverifiedAfter + time.Minute)
	if rep, _ := f.rc.Run(context.Background()); rep.LeasesUnverified != 1 {
		t.Fatalf("reconcile: %+v", rep)
	}
	row := f.row(t, c.ID)
	var d queue.Detail
	if w := f.call(t, f.op.DetailHandler(), c.ID, ""); json.Unmarshal(w.Body.Bytes(), &d) != nil || d.EditKept != "unverified" ||
		!reflect.DeepEqual(d.EditedFix, edit) || row.Status != syncerror.StatusPending {
		t.Fatalf("unverified: row %s, detail %d %s", row.Status, w.Code, w.Body)
	}
	if w := f.call(t, f.op.ApproveHandler(), c.ID, ""); w.Code != http.StatusOK || f.conns.Count() != 1 {
		t.Fatalf("approve after the unverified return: %d %s, %d writes", w.Code, w.Body, f.conns.Count())
	}
	sent := f.conns.Writes()[0].Req
	if sent.Fields["shipcountry"] != "AT" || sent.IdempotencyKey != lease.Key {
		t.Fatalf("sent %+v under %q, want AT under %q", sent.Fields, sent.IdempotencyKey, lease.Key)
	}
}
