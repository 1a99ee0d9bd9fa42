package wire

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// An attempt that stops on a row whose fix was written leaves it approved, and the resolve
// route takes open rows only: a reason saying to resolve the row could not be followed.
// Each reason says what to do in the row's own terms (rowWords): the host ERP's re-run for
// a host row, the flow's next run for a flow row.

// A flow row whose target changed since the approve: RETRY_RECORD_CHANGED, the row back
// to approved, where resolving it is refused; the reason says nothing of resolving.
func TestAFlowRowRetryThatStopsAdvisesNothingTheRowRefuses(t *testing.T) {
	e := newHostEnv(t)
	hostToCRM := flow.Flow{ID: "f2", Enabled: true, Source: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"},
		Target: flow.Endpoint{System: connector.SystemCRM, Entity: "Lead"}, Mapping: map[string]string{"Phone": "phone"}}
	e.host.Seed("customer", "C-1", map[string]any{"phone": "030 bad"})
	e.crm.Seed("Lead", "C-1", map[string]any{"Phone": "+49 30 000"})
	c := e.approvedFlowRow(t, hostToCRM, "Phone", "+49 30 111", nil)
	e.crm.Seed("Lead", "C-1", map[string]any{"Phone": "+49 30 222"})
	row, got := e.retry(t, c.ID)
	if got.Code != "RETRY_RECORD_CHANGED" || row.Status != syncerror.StatusApproved {
		t.Fatalf("attempt %+v, row %s", got, row.Status)
	}
	if strings.Contains(strings.ToLower(got.Reason), "resolve") || strings.Contains(got.Reason, "host ERP") ||
		!strings.Contains(got.Reason, "the flow was not re-run") || !strings.Contains(got.Reason, "when its source record next changes") {
		t.Fatalf("the reason: %s", got.Reason)
	}
	if w := e.call(t, e.op.ResolveHandler(), c.ID, `{"reason":"`+syncerror.ResolutionFixedAtSource+`"}`); w.Code != http.StatusConflict {
		t.Fatalf("set-up: resolving the approved row answered %d %s", w.Code, w.Body)
	}
}

// Every reason that stops an attempt on a written fix, for either kind of row, says what
// to do in that row's terms and never to resolve it.
func TestRetryReasonsSayWhatToDoInTheRowsOwnTerms(t *testing.T) {
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	c := syncerror.Claim{Status: syncerror.StatusApproved, Applied: &syncerror.AppliedWrite{Key: "k", At: now, RevertsMarked: true,
		Prior: []syncerror.PriorValue{{Path: "a", Value: "old a", Wrote: "new a"}, {Path: "b", Value: "old b", Wrote: "new b"}},
		Fix:   []syncerror.FieldChange{{Path: "a", After: "new a"}, {Path: "b", After: "new b"}}}}
	c.Applied.RevertMarks = []syncerror.RevertMark{syncerror.NewRevertMark(now)}
	for _, k := range []struct {
		w                     rowWords
		says, saysNot, system string
	}{
		{w: hostWords, says: "re-run the sync in the host ERP", saysNot: "flow", system: "hosterp"},
		{w: flowWords("crm"), says: "the flow syncs the record again", saysNot: "host ERP", system: "crm"},
	} {
		var reasons []syncerror.Delivery
		reasons = append(reasons, syncerror.Delivery{System: k.w.system, Reason: changedReason(k.w, "Lead C-1", []string{"a"}, nil)})
		for _, fields := range []map[string]any{{"a": "old a", "b": "old b"}, {"a": "old a", "b": "new b"}, {"a": "new a", "b": "new b"}} {
			lost, _, _ := lostFix(c, fields)
			if out, stop := revertMarked(k.w, "Lead C-1", fields, syncerror.RevertChanges(c), len(lost) > 0); stop {
				reasons = append(reasons, out)
			}
		}
		out, _ := unsettledRevert(k.w, "Lead C-1", "its answer was lost")
		reasons = append(reasons, out)
		for _, r := range reasons {
			if r.System != k.system || strings.Contains(strings.ToLower(r.Reason), "resolve") || strings.Contains(r.Reason, k.saysNot) {
				t.Errorf("%s row: %s %q", k.system, r.System, r.Reason)
			}
		}
		for _, i := range []int{0, 1, 3} { // the record changed; the revert found; the revert pending
			if !strings.Contains(reasons[i].Reason, k.says) {
				t.Errorf("%s row: no word of how it syncs again: %q", k.system, reasons[i].Reason)
			}
		}
	}
}
