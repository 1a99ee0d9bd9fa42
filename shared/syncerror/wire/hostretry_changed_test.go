package wire

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
)

// A retry of an approved row writes the fix again only to the fields of the record that
// lost it, and writes nothing where a person changed the record since the approve: each
// test approves for real (the write reads the record's prior values first), lets the
// record change as it would days later, and retries through the operator's route.

// approvedOnHost is a host-reported error on SO-10042 (seeded with fields) whose fix the
// approver approved and the host ERP took: the AI's shipcountry=DE, or edit's fix.
func (e *hostEnv) approvedOnHost(t *testing.T, errorID string, fields map[string]any, edit string) syncerror.Claim {
	t.Helper()
	e.op.Fixes = fixWriter{e.guard}
	e.op.Assist = &policy.Assist{Store: e.claims, Reader: recordReader{e.clients}}
	e.host.Seed("salesOrder", "SO-10042", fields)
	c := e.hostError(t, errorID, "value", nil)
	if w := e.call(t, e.op.ApproveHandler(), c.ID, edit); w.Code != http.StatusOK {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	row := e.row(t, c.ID)
	if row.Status != syncerror.StatusApproved || row.Applied == nil || len(row.Applied.Prior) == 0 {
		t.Fatalf("after the approve: %s %+v", row.Status, row.Applied)
	}
	return row
}

// retry runs the operator's retry of id and returns the row and its last attempt.
func (e *hostEnv) retry(t *testing.T, id string) (syncerror.Claim, syncerror.RetryAttempt) {
	t.Helper()
	w := e.call(t, e.op.RetryHandler(), id, ``)
	row := e.row(t, id)
	if len(row.Retry.Log) == 0 {
		t.Fatalf("retry answered %d %s and logged no attempt", w.Code, w.Body)
	}
	return row, row.Retry.Log[len(row.Retry.Log)-1]
}

// requestedFix is the fix the host's sync-error record of c was asked to re-run with;
// ok is false when no re-run was asked for.
func (e *hostEnv) requestedFix(t *testing.T, c syncerror.Claim) (fix map[string]any, ok bool) {
	t.Helper()
	stored, _ := e.host.Get(hostSyncErrors, hostSyncError(c))
	if stored.Fields[HostRetryRequested] != true {
		return nil, false
	}
	raw, _ := stored.Fields[HostRetryFix].(string)
	if err := json.Unmarshal([]byte(raw), &fix); err != nil {
		t.Fatalf("the request's fix %q: %v", raw, err)
	}
	return fix, true
}

// Days after the approve wrote shipcountry=DE a person set it to AT. The retry must not
// write DE over AT (nobody vouches for DE now): it writes nothing, asks for no re-run, and
// ends for good naming the field, never its values.
func TestARetryWritesNothingWhereTheRecordChangedSinceTheApprove(t *testing.T) {
	e := newHostEnv(t)
	c := e.approvedOnHost(t, "E-changed", map[string]any{"shipcountry": "Deutschland", "memo": "rush"}, ``)
	e.host.Seed("salesOrder", "SO-10042", map[string]any{"shipcountry": "Österreich", "memo": "rush"})
	writes := len(writesTo(e.host, "salesOrder"))
	row, got := e.retry(t, c.ID)
	if rec, _ := e.host.Get("salesOrder", "SO-10042"); rec.Fields["shipcountry"] != "Österreich" || len(writesTo(e.host, "salesOrder")) != writes {
		t.Fatalf("a person set shipcountry=Österreich after the approve; the retry wrote %+v, the record holds %v",
			writesTo(e.host, "salesOrder")[writes:], rec.Fields["shipcountry"])
	}
	if got.Result != syncerror.DeliveryPermanent || got.Code != "RETRY_RECORD_CHANGED" || got.Class != syncerror.AttemptValue ||
		got.System != "hosterp" || !strings.Contains(got.Reason, "shipcountry") || !strings.Contains(got.Reason, "nothing was written") {
		t.Fatalf("attempt %+v", got)
	}
	for _, v := range []string{"Österreich", "Deutschland", `"DE"`} {
		if strings.Contains(got.Reason, v) {
			t.Fatalf("the reason shows a value (%s): %s", v, got.Reason)
		}
	}
	if _, asked := e.requestedFix(t, c); asked {
		t.Fatal("the host ERP was asked to re-run the sync over a record that changed since the approve")
	}
	if row.Status != syncerror.StatusApproved {
		t.Fatalf("the row is %s; its fix was written once, so it stays approved", row.Status)
	}
}

// The ERP's own sync wrote the bad value back over the fix: the record holds what the fix
// replaced, so the fix was lost, and the retry writes it again, under the approve's key
// (the same payload), before it asks for the re-run.
func TestARetryWritesTheFixAgainWhereTheRecordLostIt(t *testing.T) {
	e := newHostEnv(t)
	c := e.approvedOnHost(t, "E-lost", map[string]any{"shipcountry": "Deutschland", "memo": "rush"}, ``)
	e.host.Seed("salesOrder", "SO-10042", map[string]any{"shipcountry": "Deutschland", "memo": "rush"})
	writes := len(writesTo(e.host, "salesOrder"))
	_, got := e.retry(t, c.ID)
	if got.Result != syncerror.DeliveryRequested {
		t.Fatalf("attempt %+v", got)
	}
	w := writesTo(e.host, "salesOrder")[writes:]
	if rec, _ := e.host.Get("salesOrder", "SO-10042"); len(w) != 1 || rec.Fields["shipcountry"] != "DE" || rec.Fields["memo"] != "rush" {
		t.Fatalf("writes %+v; the record holds %+v", w, rec.Fields)
	}
	if len(w[0].Fields) != 1 || w[0].IdempotencyKey != c.Applied.Key {
		t.Fatalf("the whole fix is the approve's write again, under its key %q: %+v", c.Applied.Key, w[0])
	}
	if fix, asked := e.requestedFix(t, c); !asked || len(fix) != 1 || fix["shipcountry"] != "DE" {
		t.Fatalf("the re-run request's fix %v (asked %v)", fix, asked)
	}
}

// A fix of two fields of which the record lost one: only that field is written, under a
// key of its own (a key names one payload), and the re-run still carries the whole fix,
// which the script applies after the stored payload that may undo either field.
func TestARetryWritesOnlyTheFieldsThatLostTheFix(t *testing.T) {
	e := newHostEnv(t)
	c := e.approvedOnHost(t, "E-part", map[string]any{"shipcountry": "Deutschland", "shipzip": "1011"},
		`{"fix":[{"path":"shipcountry","after":"DE"},{"path":"shipzip","after":"10115"}]}`)
	e.host.Seed("salesOrder", "SO-10042", map[string]any{"shipcountry": "Deutschland", "shipzip": "10115"})
	writes := len(writesTo(e.host, "salesOrder"))
	_, got := e.retry(t, c.ID)
	if got.Result != syncerror.DeliveryRequested {
		t.Fatalf("attempt %+v", got)
	}
	w := writesTo(e.host, "salesOrder")[writes:]
	if len(w) != 1 || len(w[0].Fields) != 1 || w[0].Fields["shipcountry"] != "DE" {
		t.Fatalf("writes %+v; want shipcountry alone", w)
	}
	if w[0].IdempotencyKey == c.Applied.Key || w[0].IdempotencyKey == "" {
		t.Fatalf("a part of the fix went under the approve's key %q (that key's payload is the whole fix)", w[0].IdempotencyKey)
	}
	if fix, asked := e.requestedFix(t, c); !asked || len(fix) != 2 || fix["shipcountry"] != "DE" || fix["shipzip"] != "10115" {
		t.Fatalf("the re-run request's fix %v (asked %v)", fix, asked)
	}
}

// guardedWrites counts the guard's connector.write records of the host ERP's entity: a
// write the connector found already held (replayed) is one too.
func (e *hostEnv) guardedWrites(entity string) int {
	n := 0
	for _, r := range e.audits.All() {
		if r.ActionKey == governance.ActionConnectorWrite && strings.HasPrefix(r.Resource, "hosterp/"+entity+"/") {
			n++
		}
	}
	return n
}

// The record still holds the fix: there is nothing to write, so no guarded write is made
// (not even one the connector would find held and replay), and the re-run is asked for.
func TestARetryWritesNoFixTheRecordStillHolds(t *testing.T) {
	e := newHostEnv(t)
	c := e.approvedOnHost(t, "E-held", map[string]any{"shipcountry": "Deutschland"}, ``)
	requests := e.host.RequestsByMethod()
	writes, guarded := len(writesTo(e.host, "salesOrder")), e.guardedWrites("salesOrder")
	if guarded == 0 {
		t.Fatal("the approve's write left no connector.write record to count by")
	}
	_, got := e.retry(t, c.ID)
	if got.Result != syncerror.DeliveryRequested {
		t.Fatalf("attempt %+v", got)
	}
	if w := writesTo(e.host, "salesOrder")[writes:]; len(w) != 0 || e.guardedWrites("salesOrder") != guarded {
		t.Fatalf("the record held the fix, yet the retry wrote %+v (guarded writes %d → %d)", w, guarded, e.guardedWrites("salesOrder"))
	}
	// One write only: the request on the host's sync-error record.
	if after := e.host.RequestsByMethod(); after[http.MethodPatch]-requests[http.MethodPatch] != 1 {
		t.Fatalf("PATCH requests %d → %d; want the re-run request alone", requests[http.MethodPatch], after[http.MethodPatch])
	}
	if fix, asked := e.requestedFix(t, c); !asked || fix["shipcountry"] != "DE" {
		t.Fatalf("the re-run request's fix %v (asked %v)", fix, asked)
	}
}

// The record cannot be read: nobody knows whether it lost the fix or a person changed it,
// so nothing is written, no re-run is asked for, and the attempt is tried again later.
func TestARetryWritesNothingWhenTheRecordCannotBeRead(t *testing.T) {
	e := newHostEnv(t)
	c := e.approvedOnHost(t, "E-unread", map[string]any{"shipcountry": "Deutschland"}, ``)
	e.host.Seed("salesOrder", "SO-10042", map[string]any{"shipcountry": "Deutschland"})
	e.downOn.Store("salesOrder")
	e.down.Store(503)
	writes := e.host.WriteCount()
	row, got := e.retry(t, c.ID)
	e.down.Store(0)
	if got.Result != syncerror.DeliveryTransient || got.Class != syncerror.AttemptConnection || !strings.Contains(got.Reason, "could not be read") {
		t.Fatalf("attempt %+v", got)
	}
	if e.host.WriteCount() != writes {
		t.Fatalf("written while the record could not be read: %+v", e.host.Writes()[writes:])
	}
	if _, asked := e.requestedFix(t, c); asked {
		t.Fatal("a re-run was asked for without the record's state known")
	}
	if row.Status != syncerror.StatusRetrying && row.Status != syncerror.StatusApproved {
		t.Fatalf("the row is %s", row.Status)
	}
}

// A person edits the record between the retry's read and its write: the write is pinned
// to the version read, so it is refused rather than made over the edit, and the next
// attempt reads the record again.
func TestARetryDoesNotWriteOverAnEditMadeWhileItWrites(t *testing.T) {
	e := newHostEnv(t)
	c := e.approvedOnHost(t, "E-race", map[string]any{"shipcountry": "Deutschland"}, ``)
	e.host.Seed("salesOrder", "SO-10042", map[string]any{"shipcountry": "Deutschland"})
	writes := e.host.WriteCount()
	// The host sync-error record's read, then the record's: the edit lands after the second.
	e.host.EditAfterNextReads(2)
	_, got := e.retry(t, c.ID)
	if got.Result != syncerror.DeliveryTransient || !strings.Contains(got.Reason, "changed while") {
		t.Fatalf("attempt %+v", got)
	}
	if e.host.WriteCount() != writes {
		t.Fatalf("written over an edit: %+v", e.host.Writes()[writes:])
	}
}
