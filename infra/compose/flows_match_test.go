package compose_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// A CRM lead's email finds its host ERP customer by a lookup; two customers hold the
// address, so the run cannot pick one and fails. Its sync error names no customer: not
// C-1, the lead's id, which in the host ERP is another customer. Approving a fix of it
// is refused and nothing is written anywhere; before, the fix went to ERP customer C-1.
func TestAMatchedFlowsSyncErrorNeverGuessesItsTargetRecord(t *testing.T) {
	f := newFlows(t)
	const flow = `{"enabled": true, "source": {"system": "crm", "entity": "Lead"}, "target": {"system": "hosterp", "entity": "customer"},
	  "mapping": {"email": "Email"}, "match": {"by": "lookup", "field": "email", "sourceField": "Email", "create": false}}`
	if w := f.call(t, "admin@demo", "PUT", "/api/settings/flows/crm-lead-to-erp", flow); w.Code != http.StatusCreated {
		t.Fatalf("PUT flow: %d %s", w.Code, w.Body)
	}
	for _, id := range []string{"C-7", "C-8"} {
		f.erp.Seed("customer", id, map[string]any{"email": "dup@example.com"})
	}
	writes := f.erp.WriteCount()
	ids, _ := f.event(t, "crm", "ev-lead", "Lead", map[string]any{"Email": "dup@example.com"})
	r := f.onlyRun(t, ids)
	if r.Outcome != "failed" || r.SyncErrorID == "" {
		t.Fatalf("run %+v, want failed with its sync error", r)
	}
	c, err := f.deps.Claims.Get(context.Background(), "demo", r.SyncErrorID)
	if err != nil || c.Record.RecordType != "customer" || c.Record.RecordID == "C-1" || !syncerror.FlowTargetUnknown(c) ||
		!strings.Contains(c.Record.Message, "its record is not known") {
		t.Fatalf("sync error %s/%s (%q), err %v; want no customer named", c.Record.RecordType, c.Record.RecordID, c.Record.Message, err)
	}
	msgs := f.drain(t, blueprint.Diagnosis.Name)
	if len(msgs) != 1 {
		t.Fatalf("diagnosis queue %v", msgs)
	}
	if resp, err := f.deps.Worker().HandleBatch(context.Background(), events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "m", Body: msgs[0]}}}); err != nil || len(resp.BatchItemFailures) > 0 {
		t.Fatalf("worker: %+v %v", resp, err)
	}
	w := f.call(t, "approver@demo", "POST", "/api/sync-error-assist/proposals/"+r.SyncErrorID+"/approve",
		`{"fix":[{"path":"email","after":"lead@example.com"}]}`)
	if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), syncerror.CodeTargetRecordUnknown) {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	if rec, _ := f.erp.Get("customer", "C-1"); rec.Fields["email"] == "lead@example.com" || f.erp.WriteCount() != writes {
		t.Fatalf("ERP customer C-1 %v after the approve, %d writes (was %d)", rec.Fields, f.erp.WriteCount(), writes)
	}
	d := f.call(t, "approver@demo", "GET", "/api/sync-error-assist/proposals/"+r.SyncErrorID, "")
	if !strings.Contains(d.Body.String(), `"writesTo":{"system":"hosterp","vendor":"NetSuite","recordType":"customer","recordId":""}`) {
		t.Fatalf("detail: %s", d.Body)
	}
}
