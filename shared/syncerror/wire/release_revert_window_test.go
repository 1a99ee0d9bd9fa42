package wire

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// A revert held for an ownership approval is released by retry (fixWriter sets
// ReleaseByRetry): the release writes nothing, and the revert is written when the row is
// reverted again. A release that comes after RevertWindow (24h from the fix's write) still
// lets that revert be written: the window is judged at the hold's time, when the revert
// was asked (the guard's approval keeps it). The next revert used to answer 409
// revert_window_closed, and the fix the approver asked to take back stayed in the host ERP.
func TestAHeldRevertReleasedAfterTheWindowIsWrittenByTheNextRevert(t *testing.T) {
	e := newHeldFixEnv(t)
	c := e.hostError(t, "E-revert", "value", nil)
	if w := e.call(t, e.op.ApproveHandler(), c.ID, ``); w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	e.own(t)
	e.now = e.now.Add(20 * time.Hour)
	if w := e.call(t, e.op.RevertHandler(), c.ID, `{"reason":"wrong country"}`); w.Code != http.StatusConflict ||
		!strings.Contains(w.Body.String(), "then revert it again") {
		t.Fatalf("revert: %d %s, want 409 ownership_approval_required saying to revert again", w.Code, w.Body)
	}
	e.now = e.now.Add(5 * time.Hour) // the governance approver gets to it the next day
	if w := e.release(t); w.Code != http.StatusOK {
		t.Fatalf("release: %d %s", w.Code, w.Body)
	} else {
		t.Logf("release: %s", w.Body)
	}
	w := e.call(t, e.op.RevertHandler(), c.ID, `{"reason":"wrong country"}`)
	rec, _ := e.host.Get("salesOrder", "SO-10042")
	if w.Code != http.StatusOK || rec.Fields["shipcountry"] != "Deutschland" {
		t.Fatalf("the released revert was never written: revert again answered %d %s; the record still holds %v",
			w.Code, w.Body, rec.Fields["shipcountry"])
	}
}
