package decisions_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/roomtest"
)

// downRecords is a record store that cannot be read.
type downRecords struct{}

func (downRecords) ReadFields(context.Context, syncerror.Claim) (map[string]any, string, error) {
	return nil, "", errors.New("503 from the ERP")
}

// approveThenRevert approves row's proposal while the record holds before, then reverts
// it once the record holds after; it returns the revert's answer.
func approveThenRevert(t *testing.T, f *roomtest.AssistFixture, row syncerror.Claim, before, after map[string]any) int {
	t.Helper()
	f.Records.Fields = before
	if w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/approve", ""); w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	f.Records.Fields = after
	return f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/revert", "").Code
}

// The payload claims creditLimit was 500; the record had no creditLimit. Revert clears it
// and never writes 500.
func TestRevertClearsAFieldTheRecordDidNotHave(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.AI.Fix = []syncerror.FieldChange{{Path: "creditLimit", Before: 500.0, After: 2500.0}, {Path: "subsidiary", Before: "Acme UK", After: "Acme Ltd"}}
	row := f.Arrive(t, "E-1", "SO-1", `{"creditLimit":500,"subsidiary":"Acme UK"}`)
	code := approveThenRevert(t, f, row, map[string]any{"subsidiary": "Acme GmbH"},
		map[string]any{"creditLimit": 2500.0, "subsidiary": "Acme Ltd"})
	if code != http.StatusOK {
		t.Fatalf("revert: %d", code)
	}
	back := f.Writer.Writes[len(f.Writer.Writes)-1].Fix
	got := map[string]any{}
	for _, ch := range back {
		got[ch.Path] = ch.After
	}
	if v, ok := got["creditLimit"]; !ok || v != nil {
		t.Fatalf("creditLimit reverted to %#v (present %v), want cleared", v, ok)
	}
	if got["subsidiary"] != "Acme GmbH" {
		t.Fatalf("subsidiary reverted to %#v, want what the record held (Acme GmbH), not the payload's Acme UK", got["subsidiary"])
	}
	stored, _ := f.Claims.Get(context.Background(), "acme", row.ID)
	if stored.Status != syncerror.StatusReverted || len(stored.Applied.Prior) != 2 || !stored.Applied.Prior[0].Absent {
		t.Fatalf("row %s prior %+v", stored.Status, stored.Applied.Prior)
	}
}

// A record that could not be read before the write leaves no values to restore: revert
// refuses and writes nothing.
func TestRevertRefusesWhenTheValuesBeforeWereNotRead(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.AI.Fix = []syncerror.FieldChange{{Path: "subsidiary", Before: "Acme UK", After: "Acme Ltd"}}
	row := f.Arrive(t, "E-1", "SO-1", `{"subsidiary":"Acme UK"}`)
	assist := *f.Op.Assist
	f.Op.Assist.Reader = downRecords{}
	if w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/approve", ""); w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	f.Op.Assist.Reader = assist.Reader
	f.Records.Fields = map[string]any{"subsidiary": "Acme Ltd"}
	if w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/revert", ""); w.Code != http.StatusConflict || roomtest.ProblemCode(t, w) != "prior_unknown" {
		t.Fatalf("revert: %d %s", w.Code, w.Body)
	}
	if f.Writer.Count() != 1 {
		t.Fatalf("the payload's before was written: %+v", f.Writer.Writes)
	}
}

// A value before the fix that the stored-data policy does not keep (a password) is not
// stored with the row, so the revert refuses rather than write a placeholder.
func TestRevertRefusesWhenAValueBeforeWasWithheld(t *testing.T) {
	f := roomtest.NewAssistFixture(t)
	f.AI.Fix = []syncerror.FieldChange{{Path: "apiPassword", Before: "[REDACTED:PASSWORD_FIELD]", After: "n3w-Secret!x"}}
	row := f.Arrive(t, "E-1", "SO-1", `{}`)
	code := approveThenRevert(t, f, row, map[string]any{"apiPassword": "Tr0ub4dor&3-horse"}, map[string]any{"apiPassword": "n3w-Secret!x"})
	stored, _ := f.Claims.Get(context.Background(), "acme", row.ID)
	if code != http.StatusConflict || len(stored.Applied.Prior) != 1 || !stored.Applied.Prior[0].Withheld || stored.Applied.Prior[0].Value != nil {
		t.Fatalf("revert %d, prior kept %+v", code, stored.Applied.Prior)
	}
	if f.Writer.Count() != 1 {
		t.Fatalf("written: %+v", f.Writer.Writes)
	}
}

// noConnector is the record store of a tenant whose connector was removed since the fix.
type noConnector struct{}

func (noConnector) ReadFields(context.Context, syncerror.Claim) (map[string]any, string, error) {
	return nil, "", fmt.Errorf("%w: hosterp", syncerror.ErrWriterNotConfigured)
}

// A tenant whose connector was removed since the fix gets the approve's answer, a setting
// to fix (503 connector_not_configured), not a system that failed (502 record_unreadable);
// an unreadable record still gets 502. Either way nothing is written and the row stays
// approved.
func TestRevertWithoutAConnectorSaysSo(t *testing.T) {
	for _, tc := range []struct {
		reader policy.RecordReader
		status int
		code   string
	}{{noConnector{}, http.StatusServiceUnavailable, "connector_not_configured"}, {downRecords{}, http.StatusBadGateway, "record_unreadable"}} {
		f, row := approvedForRevert(t)
		f.Op.Assist.Reader = tc.reader
		w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/revert", "")
		if w.Code != tc.status || roomtest.ProblemCode(t, w) != tc.code {
			t.Fatalf("revert with %T: %d %s, want %d %s", tc.reader, w.Code, w.Body, tc.status, tc.code)
		}
		stored, _ := f.Claims.Get(context.Background(), "acme", row.ID)
		if f.Writer.Count() != 1 || stored.Status != syncerror.StatusApproved {
			t.Fatalf("after the refused revert: %d writes, row %s", f.Writer.Count(), stored.Status)
		}
	}
}

// approvedForRevert is a row whose fix (subsidiary Acme UK → Acme Ltd) was approved and
// is in the record, ready to revert.
func approvedForRevert(t *testing.T) (*roomtest.AssistFixture, syncerror.Claim) {
	t.Helper()
	f := roomtest.NewAssistFixture(t)
	f.AI.Fix = []syncerror.FieldChange{{Path: "subsidiary", Before: "Acme UK", After: "Acme Ltd"}}
	row := f.Arrive(t, "E-1", "SO-1", `{"subsidiary":"Acme UK"}`)
	f.Records.Fields = map[string]any{"subsidiary": "Acme UK"}
	if w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/approve", ""); w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	f.Records.Fields = map[string]any{"subsidiary": "Acme Ltd"}
	return f, row
}

// markFails is the assist store with the queue down for MarkReverted.
type markFails struct{ syncerror.AssistStore }

func (markFails) MarkReverted(context.Context, string, string, syncerror.HistoryEntry, time.Time) error {
	return errors.New("dynamodb: service unavailable")
}

// A revert written to the record is never reported as failed, nor as the row having
// changed, when only recording it failed: 202, reverted, with what to do (nothing).
func TestRevertWrittenButNotRecordedIsReportedAsWritten(t *testing.T) {
	f, row := approvedForRevert(t)
	f.Op.Assist.Store = markFails{f.Op.Assist.Store}
	w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/revert", "")
	var body struct {
		Reverted bool
		Message  string
	}
	_ = json.Unmarshal(w.Body.Bytes(), &body)
	if w.Code != http.StatusAccepted || !body.Reverted || !strings.Contains(body.Message, "reverting again marks it reverted without writing") {
		t.Fatalf("revert with the queue down: %d %s", w.Code, w.Body)
	}
	if back := f.Writer.Writes[len(f.Writer.Writes)-1].Fix; len(back) != 1 || back[0].After != "Acme UK" {
		t.Fatalf("revert wrote %+v", back)
	}
}

// Reverting again after a revert written but not recorded finds the record holding the
// values before the fix: nothing is written, and the row is marked reverted. A record
// holding anything else still answers changed_since.
func TestRevertAgainAfterAnUnrecordedRevertMarksItWithoutWriting(t *testing.T) {
	f, row := approvedForRevert(t)
	store := f.Op.Assist.Store
	f.Op.Assist.Store = markFails{store}
	if w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/revert", ""); w.Code != http.StatusAccepted {
		t.Fatalf("first revert: %d %s", w.Code, w.Body)
	}
	f.Op.Assist.Store = store
	f.Records.Fields = map[string]any{"subsidiary": "Acme UK"} // the revert is in the record
	writes := len(f.Writer.Writes)
	if w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/revert", ""); w.Code != http.StatusOK {
		t.Fatalf("second revert: %d %s", w.Code, w.Body)
	}
	if len(f.Writer.Writes) != writes {
		t.Fatalf("the second revert wrote %+v", f.Writer.Writes[writes:])
	}
	if got, _ := f.Claims.Get(context.Background(), row.TenantID, row.ID); got.Status != syncerror.StatusReverted {
		t.Fatalf("row %s after the second revert, want reverted", got.Status)
	}

	g, other := approvedForRevert(t)
	g.Records.Fields = map[string]any{"subsidiary": "Acme GmbH"} // neither the fix nor before it
	if w := g.As(t, "anna", "approver", "POST", "/p/"+other.ID+"/revert", ""); w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "changed_since") {
		t.Fatalf("revert of a changed record: %d %s", w.Code, w.Body)
	}
}

// markLost is the assist store whose MarkReverted lands but answers as if another write
// had changed the row: a first try whose answer was lost, refused on its retry.
type markLost struct{ syncerror.AssistStore }

func (m markLost) MarkReverted(ctx context.Context, tenantID, id string, e syncerror.HistoryEntry, now time.Time) error {
	if err := m.AssistStore.MarkReverted(ctx, tenantID, id, e, now); err != nil {
		return err
	}
	return syncerror.ErrStateChanged
}

// A revert whose marking landed with its answer lost is answered as the revert it was.
func TestRevertMarkedWithItsAnswerLostIsReportedReverted(t *testing.T) {
	f, row := approvedForRevert(t)
	f.Op.Assist.Store = markLost{f.Op.Assist.Store}
	if w := f.As(t, "anna", "approver", "POST", "/p/"+row.ID+"/revert", ""); w.Code != http.StatusOK {
		t.Fatalf("revert whose mark's answer was lost: %d %s", w.Code, w.Body)
	}
}
