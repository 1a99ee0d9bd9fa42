package wire

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// A revert whose answer was lost (502 revert_unsettled) may land at any time after; its
// answer says to revert again. Each revert keeps its own mark, so a second revert that
// fails, and takes its own mark back, leaves the first's: when the first lands late, the
// retry finds a mark and the record holding the revert, and writes nothing over it.

// unsettledThenFailing answers the first revert (RevertKey) with a lost answer (no reply,
// not landed yet) and every later one with err (an answered failure); the approve's
// writes go through.
type unsettledThenFailing struct {
	fixWriter
	n   *int
	err error
}

func (r unsettledThenFailing) WriteFix(ctx context.Context, who identity.Identity, c syncerror.Claim, fix []syncerror.FieldChange, key, ifVersion string) error {
	if key != syncerror.RevertKey(c) {
		return r.fixWriter.WriteFix(ctx, who, c, fix, key, ifVersion)
	}
	*r.n++
	if *r.n == 1 {
		return &syncerror.LostAnswerError{Answered: false, Err: errors.New("context deadline exceeded")}
	}
	return r.err
}

func TestARetryFindsAnUnsettledRevertThatLandedLateWhateverRevertedAfterIt(t *testing.T) {
	for _, tc := range []struct {
		name        string
		beforeMarks bool // the row and its reverts of the version before marks: its audit records tell
		second      bool // the approver reverted again, as the 502 says, and that revert failed
	}{
		{name: "marked, one revert"},
		{name: "marked, a second revert that failed", second: true},
		{name: "before marks, one revert", beforeMarks: true},
		{name: "before marks, a second revert that failed", beforeMarks: true, second: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newHostEnv(t)
			e.claims.beforeMarks = tc.beforeMarks
			c := e.approvedOnHost(t, "E-unsettled-late", map[string]any{"shipcountry": "Deutschland"}, ``)
			n := 0
			e.op.Fixes = unsettledThenFailing{fixWriter: fixWriter{e.guard}, n: &n,
				err: &syncerror.TargetError{Reason: "conflict", Err: errors.New("HTTP 409: a request with this idempotency key is in progress")}}
			if w := e.call(t, e.op.RevertHandler(), c.ID, `{"reason":"wrong country"}`); w.Code != http.StatusBadGateway {
				t.Fatalf("revert A: %d %s", w.Code, w.Body)
			}
			if tc.second {
				if w := e.call(t, e.op.RevertHandler(), c.ID, `{"reason":"wrong country"}`); w.Code != http.StatusBadGateway {
					t.Fatalf("revert B: %d %s", w.Code, w.Body)
				}
			}
			if row := e.row(t, c.ID); row.Status != syncerror.StatusApproved || (len(row.Applied.RevertMarks) == 1) == tc.beforeMarks {
				t.Fatalf("after the reverts: row %s, marks %+v (revert A's alone, where marks are kept)", row.Status, row.Applied.RevertMarks)
			}
			e.host.Seed("salesOrder", "SO-10042", map[string]any{"shipcountry": "Deutschland"}) // revert A lands late
			writes := e.host.WriteCount()
			row, got := e.retry(t, c.ID)
			if rec, _ := e.host.Get("salesOrder", "SO-10042"); rec.Fields["shipcountry"] != "Deutschland" || e.host.WriteCount() != writes {
				t.Fatalf("the retry wrote the fix over revert A (sent, unsettled, landed late): record %v, attempt %+v, row %s",
					rec.Fields["shipcountry"], got, row.Status)
			}
			if got.Code != "RETRY_FIX_REVERTED" || row.Status != syncerror.StatusReverted {
				t.Fatalf("attempt %+v, row %s", got, row.Status)
			}
			if _, asked := e.requestedFix(t, c); asked {
				t.Fatal("the host ERP was asked to re-run the sync with a fix that was reverted")
			}
		})
	}
}
