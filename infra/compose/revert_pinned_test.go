package compose_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// The approve reads the values its fix replaces and a revert reads the record to check it
// still holds the fix; each writes pinned to the version its read found, so an edit landing
// between the two (the fake host ERP's, right after the read) is not written over. The
// revert answers 409 changed_since, writes nothing and leaves the row approved; the next
// revert reads the record again and writes.
func TestApproveAndRevertDoNotWriteOverAnEditAfterTheirRead(t *testing.T) {
	f := newFlow(t)
	id := f.diagnosed(t)
	// The approve's write is pinned too, to the version its read of the values before found:
	// through the real guard and connector, the edit after that read is met (a conflict,
	// nothing written, audited), the record read again, and the fix written once, its key
	// not spent by the write that met the edit.
	f.erp.EditAfterNextReads(1)
	if w := f.call(t, approver, "POST", "/api/sync-error-assist/proposals/"+id+"/approve", ""); w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	written := f.erp.WriteCount()
	if n := conflicts(t, f); n != 1 {
		t.Fatalf("the approve's write met %d version conflicts, want 1: the edit after its read", n)
	}
	if rec, _ := f.erp.Get("salesOrder", "SO-10042"); written != 1 || rec.Fields["shipcountry"] != "DE" || len(f.row(t, id).Applied.Prior) != 1 {
		t.Fatalf("approve over an edit: %d writes, record %+v, prior %+v", written, rec.Fields, f.row(t, id).Applied.Prior)
	}

	f.erp.EditAfterNextReads(1)
	w := f.call(t, approver, "POST", "/api/sync-error-assist/proposals/"+id+"/revert", `{"reason":"the shop sends names"}`)
	var problem struct{ Code string }
	if _ = json.Unmarshal(w.Body.Bytes(), &problem); w.Code != http.StatusConflict || problem.Code != "changed_since" {
		t.Fatalf("revert over an edit: %d %s", w.Code, w.Body)
	}
	rec, _ := f.erp.Get("salesOrder", "SO-10042")
	if f.erp.WriteCount() != written || rec.Fields["shipcountry"] != "DE" {
		t.Fatalf("the revert was written over the edit: %d writes (was %d), record %+v", f.erp.WriteCount(), written, rec.Fields)
	}
	if got := f.row(t, id); got.Status != syncerror.StatusApproved {
		t.Fatalf("row %s after a revert that wrote nothing", got.Status)
	}
	if n := conflicts(t, f); n != 2 {
		t.Fatalf("%d version conflicts after the revert, want 2", n)
	}
	failed := false
	for _, a := range f.audits(t, "syncerror") {
		failed = failed || a.ActionKey == syncerror.AuditRevert && a.Result == "failure"
	}
	if !failed {
		t.Fatal("the revert that met the edit is not audited as failed")
	}

	if w := f.call(t, approver, "POST", "/api/sync-error-assist/proposals/"+id+"/revert", `{"reason":"the shop sends names"}`); w.Code != http.StatusOK {
		t.Fatalf("revert again: %d %s", w.Code, w.Body)
	}
	rec, _ = f.erp.Get("salesOrder", "SO-10042")
	if rec.Fields["shipcountry"] != "Deutschland" || f.row(t, id).Status != syncerror.StatusReverted {
		t.Fatalf("after the second revert: record %+v, row %s", rec.Fields, f.row(t, id).Status)
	}
}

// conflicts counts the guard's audit records of connector writes refused as a version
// conflict: nothing written.
func conflicts(t *testing.T, f *flow) int {
	t.Helper()
	n := 0
	for _, a := range f.audits(t, "connector") {
		var d struct{ ConnectorError string }
		if a.ActionKey == "connector.write" && a.Result == "failure" && json.Unmarshal(a.Details, &d) == nil && d.ConnectorError == "conflict" {
			n++
		}
	}
	return n
}
