package decisions_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

// A revert's write whose answer was lost, or that wrote only part of it, is settled as
// the approve settles its own: a revert the record holds is reverted, never "did not
// accept"; one that cannot be told is answered as such.

// landing is the host ERP's write-back that lands the revert in the record (land) or not,
// and answers err either way.
type landing struct {
	records *roomtest.Records
	land    bool
	err     error
}

func (l landing) WriteFix(_ context.Context, _ identity.Identity, _ syncerror.Claim, fix []syncerror.FieldChange, _, _ string) error {
	if l.land {
		for _, ch := range fix {
			l.records.Fields[ch.Path] = ch.After
		}
	}
	return l.err
}

// readOnce is a record store that answers its first read (the revert's check that the
// record holds the fix) and fails every read after it (the read-back).
type readOnce struct {
	records *roomtest.Records
	n       atomic.Int32
}

func (r *readOnce) ReadFields(ctx context.Context, c syncerror.Claim) (map[string]any, string, error) {
	if r.n.Add(1) > 1 {
		return nil, "", errors.New("503 from the ERP")
	}
	return r.records.ReadFields(ctx, c)
}

func lost(answered bool) error {
	return &syncerror.LostAnswerError{Answered: answered, Err: errors.New("context deadline exceeded")}
}

func revertRecords(f *roomtest.AssistFixture, key string) []audit.Record {
	var out []audit.Record
	for _, r := range f.Audits.All() {
		if r.ActionKey == key {
			out = append(out, r)
		}
	}
	return out
}

func TestRevertWithItsAnswerLostIsSettledByReadingTheRecordBack(t *testing.T) {
	for _, tc := range []struct {
		name       string
		land       bool
		err        error
		unreadable bool
		code       int
		problem    string
		status     syncerror.Status
		audit      string
		note       string
	}{
		{name: "landed, its answer lost", land: true, err: lost(false), code: http.StatusOK, status: syncerror.StatusReverted,
			audit: syncerror.AuditRevert, note: "answer was lost"},
		{name: "the host answered, not landed", err: lost(true), code: http.StatusBadGateway, problem: "write_back_failed",
			status: syncerror.StatusApproved, audit: syncerror.AuditRevert},
		{name: "no answer, not landed yet", err: lost(false), code: http.StatusBadGateway, problem: "revert_unsettled",
			status: syncerror.StatusApproved, audit: syncerror.AuditRevertUnsettled},
		{name: "landed, the record not read back", land: true, err: lost(true), unreadable: true, code: http.StatusBadGateway,
			problem: "revert_unsettled", status: syncerror.StatusApproved, audit: syncerror.AuditRevertUnsettled},
		{name: "part written", land: true, err: &syncerror.PartialFixError{Dropped: []string{"terms"}}, code: http.StatusOK,
			status: syncerror.StatusReverted, audit: syncerror.AuditRevert, note: "partial"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, row := approvedForRevert(t)
			f.Op.Fixes = landing{records: f.Records, land: tc.land, err: tc.err}
			if tc.unreadable {
				f.Op.Assist.Reader = &readOnce{records: f.Records}
			}
			w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/revert", "")
			if w.Code != tc.code || tc.problem != "" && roomtest.ProblemCode(t, w) != tc.problem {
				t.Fatalf("revert: %d %s", w.Code, w.Body)
			}
			if tc.problem == "revert_unsettled" && (strings.Contains(w.Body.String(), "did not accept") || !strings.Contains(w.Body.String(), "may have been written")) {
				t.Fatalf("an unsettled revert answered %s", w.Body)
			}
			stored, _ := f.Claims.Get(context.Background(), "acme", row.ID)
			if stored.Status != tc.status {
				t.Fatalf("row %s, want %s", stored.Status, tc.status)
			}
			if last := stored.History[len(stored.History)-1]; tc.note != "" && !strings.Contains(last.Note, tc.note) {
				t.Fatalf("history %+v", last)
			}
			recs := revertRecords(f, tc.audit)
			want := audit.ResultFailure
			if tc.status == syncerror.StatusReverted {
				want = audit.ResultSuccess
			}
			if len(recs) != 1 || recs[0].Result != want {
				t.Fatalf("%s audit %+v, want one %s", tc.audit, recs, want)
			}
		})
	}
}
