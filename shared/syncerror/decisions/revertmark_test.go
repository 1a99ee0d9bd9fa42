package decisions_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

// A revert marks the row before it sends anything, so that a retry can tell it from a lost
// fix whatever recorded it after its write or failed to; a revert known not to have landed
// takes its mark back.

// markedWrites is the host ERP's write-back that notes, for each write, whether the row
// carried a revert mark when it was sent.
type markedWrites struct {
	claims syncerror.ClaimStore
	marked []bool
}

func (m *markedWrites) WriteFix(ctx context.Context, _ identity.Identity, c syncerror.Claim, _ []syncerror.FieldChange, _, _ string) error {
	row, err := m.claims.Get(ctx, c.TenantID, c.ID)
	m.marked = append(m.marked, err == nil && row.Applied != nil && len(row.Applied.RevertMarks) > 0)
	return nil
}

// revertMark is the row's one revert mark, nil when it has none; more than one fails t.
func revertMark(t *testing.T, f *roomtest.AssistFixture, id string) *syncerror.RevertMark {
	t.Helper()
	row, err := f.Claims.Get(context.Background(), "acme", id)
	if err != nil || row.Applied == nil || len(row.Applied.RevertMarks) > 1 {
		t.Fatalf("row %s: %+v %v", id, row.Applied, err)
	}
	if len(row.Applied.RevertMarks) == 0 {
		return nil
	}
	return &row.Applied.RevertMarks[0]
}

// An approve marks its write as one whose reverts mark the row; the revert's mark is on the
// row when its write is sent, and stays once the revert is in the record.
func TestRevertMarksTheRowBeforeItSends(t *testing.T) {
	f, row := approvedForRevert(t)
	if stored, _ := f.Claims.Get(context.Background(), "acme", row.ID); !stored.Applied.RevertsMarked || stored.Applied.RevertMarks != nil {
		t.Fatalf("approved: %+v", stored.Applied)
	}
	w := &markedWrites{claims: f.Claims}
	f.Op.Fixes = w
	if code := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/revert", "").Code; code != http.StatusOK {
		t.Fatalf("revert: %d", code)
	}
	if len(w.marked) != 1 || !w.marked[0] {
		t.Fatalf("the revert's write was sent with the row marked: %v", w.marked)
	}
	if m := revertMark(t, f, row.ID); m == nil || !m.At.Equal(f.Now) || m.Token == "" {
		t.Fatalf("the reverted row's mark %+v", m)
	}
}

// markSentFails is the assist store answering err to MarkRevertSent.
type markSentFails struct {
	syncerror.AssistStore
	err error
}

func (m markSentFails) MarkRevertSent(context.Context, string, string, syncerror.AppliedWrite, syncerror.RevertMark) error {
	return m.err
}

// A row that cannot be marked is not reverted: nothing is sent, and the answer says so
// (503 while the queue is down, 409 when the row changed since it was read).
func TestRevertThatCannotMarkTheRowSendsNothing(t *testing.T) {
	for _, tc := range []struct {
		err    error
		status int
		code   string
	}{
		{errors.New("ThrottlingException"), http.StatusServiceUnavailable, "temporarily_unavailable"},
		{syncerror.ErrStateChanged, http.StatusConflict, "state_changed"},
	} {
		f, row := approvedForRevert(t)
		f.Op.Assist.Store = markSentFails{AssistStore: f.Op.Assist.Store, err: tc.err}
		w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/revert", "")
		if w.Code != tc.status || roomtest.ProblemCode(t, w) != tc.code || !strings.Contains(w.Body.String(), "nothing") {
			t.Fatalf("revert with the mark failing (%v): %d %s", tc.err, w.Code, w.Body)
		}
		stored, _ := f.Claims.Get(context.Background(), "acme", row.ID)
		if f.Writer.Count() != 1 || stored.Status != syncerror.StatusApproved || stored.Applied.RevertMarks != nil {
			t.Fatalf("after the refused revert: %d writes (want the approve's 1), row %s, marks %+v", f.Writer.Count(), stored.Status, stored.Applied.RevertMarks)
		}
		if recs := revertRecords(f, syncerror.AuditRevert); len(recs) != 0 {
			t.Fatalf("a revert never sent was audited: %+v", recs)
		}
	}
}

// The mark stays where the revert may be in the record (landed, in part or whole, or its
// answer lost and not settled), and goes where it is known not to be (refused, no
// connector, the host ERP's own error answer).
func TestRevertKeepsItsMarkOnlyWhereItMayHaveLanded(t *testing.T) {
	for _, tc := range []struct {
		name   string
		land   bool
		err    error
		marked bool
	}{
		{name: "landed", land: true, marked: true},
		{name: "landed, its answer lost", land: true, err: lost(false), marked: true},
		{name: "no answer, not landed yet", err: lost(false), marked: true},
		{name: "part written", land: true, err: &syncerror.PartialFixError{Dropped: []string{"terms"}}, marked: true},
		{name: "the host answered, not landed", err: lost(true)},
		{name: "the host refused it", err: &syncerror.TargetError{Reason: "refused", Err: errors.New("HTTP 400")}},
		{name: "the guard refused it", err: &syncerror.RefusedError{Status: http.StatusConflict, Code: "ownership_rejected", Reason: "owned by the CRM"}},
		{name: "no connector", err: syncerror.ErrWriterNotConfigured},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, row := approvedForRevert(t)
			f.Op.Fixes = landing{records: f.Records, land: tc.land, err: tc.err}
			w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/revert", "")
			if m := revertMark(t, f, row.ID); (m != nil) != tc.marked {
				t.Fatalf("revert answered %d; the row's mark %+v, want marked %v", w.Code, m, tc.marked)
			}
		})
	}
}

// clearFails is the assist store whose ClearRevertSent fails.
type clearFails struct{ syncerror.AssistStore }

func (clearFails) ClearRevertSent(context.Context, string, string, syncerror.RevertMark) error {
	return errors.New("dynamodb: service unavailable")
}

// A mark that cannot be taken back stays (a retry then writes nothing over the fields that
// lost the fix): the revert is still answered as the failure it was.
func TestRevertWhoseMarkCannotBeTakenBackStillAnswersItsFailure(t *testing.T) {
	f, row := approvedForRevert(t)
	f.Op.Assist.Store = clearFails{f.Op.Assist.Store}
	f.Op.Fixes = landing{records: f.Records, err: &syncerror.TargetError{Reason: "refused", Err: errors.New("HTTP 400")}}
	if w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/revert", ""); w.Code != http.StatusBadGateway || roomtest.ProblemCode(t, w) != "write_back_failed" {
		t.Fatalf("revert: %d %s", w.Code, w.Body)
	}
	if m := revertMark(t, f, row.ID); m == nil {
		t.Fatal("the mark is gone though taking it back failed")
	}
}
