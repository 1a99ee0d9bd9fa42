package compose_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/intake"
	"github.com/syncassist/syncassist/shared/tenant"
	"github.com/syncassist/syncassist/shared/webhook"
)

// An enforced rule's approve is pinned to the fix it judged (its confirmation key), and
// the approve keys the fix it reads back from the table: a number the rules diagnoser
// proposes with its digits (json.Number 1299.50, 12345678901234567890) keys the same
// there as in the worker's hands, so the rule writes it and is not refused fix_changed.
func TestEnforcedRuleAppliesANumberFixReadBackFromTheTable(t *testing.T) {
	for _, c := range []struct{ name, msg, payload, want string }{
		{"trailing zero", "Invalid number for field amount: '$1,299.50'", `"$1,299.50"`, "1299.50"},
		{"long", "Invalid number for field amount: '12,345,678,901,234,567,890'", `"12,345,678,901,234,567,890"`, "12345678901234567890"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFlow(t)
			f.erp.DefineEntity("salesOrder", "amount")
			policy := `{"version":0,"rules":[{"id":"amounts","match":{"fields":["amount"]},"apply":"auto","mode":"enforce"}]}`
			if w := f.call(t, "admin@demo", "PUT", "/api/settings/approval-policy", policy); w.Code != 200 {
				t.Fatalf("policy: %d %s", w.Code, w.Body)
			}
			if err := (tenant.Admin{Store: f.deps.Tenants}).Set(context.Background(), "demo", tenant.KeyAutoApply, "true"); err != nil {
				t.Fatal(err)
			}
			body := []byte(`{"tenantId":"demo","errorId":"ERR-NUM-1","recordType":"salesOrder","recordId":"SO-10042","errorCode":"INVALID_FLD_VALUE",` +
				`"message":` + quoted(c.msg) + `,"occurredAt":"2026-11-22T09:58:41Z","integration":"webshop-orders","externalSystem":"webshop",` +
				`"direction":"inbound","payload":{"amount":` + c.payload + `,"shipcountry":"DE"}}`)
			key, _ := webhook.ParseSecret(fixtureSecret)
			r := httptest.NewRequest(http.MethodPost, "/api/sync-error-assist/ingest", bytes.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set(intake.HeaderTenantID, "demo")
			webhook.Sign(key, webhook.NewMessageID(), fixtureTime, body).Set(r.Header)
			w := httptest.NewRecorder()
			f.api.ServeHTTP(w, r)
			if w.Code != http.StatusAccepted {
				t.Fatalf("ingest: %d %s", w.Code, w.Body)
			}
			id := rowIDOf(t, body)
			if resp, err := f.deps.Worker().HandleBatch(context.Background(), events.SQSEvent{Records: []events.SQSMessage{
				{MessageId: "m", Body: `{"tenantId":"demo","id":"` + id + `"}`}}}); err != nil || len(resp.BatchItemFailures) > 0 {
				t.Fatalf("worker: %+v %v", resp, err)
			}
			row := f.row(t, id)
			if row.Proposal == nil || len(row.Proposal.Fix) != 1 {
				t.Fatalf("proposal %+v", row.Proposal)
			}
			if got, _ := json.Marshal(row.Proposal.Fix[0].After); string(got) != c.want {
				t.Fatalf("set-up: the proposal's amount is %s, want %s", got, c.want)
			}
			if row.Status != syncerror.StatusApproved || f.erp.WriteCount() != 1 {
				w := f.call(t, operator, "GET", "/api/sync-error-assist/automation?mode=enforce", "")
				t.Fatalf("not auto-applied: %s, %d writes; automation %s", row.Status, f.erp.WriteCount(), w.Body)
			}
		})
	}
}

func quoted(s string) string { b, _ := json.Marshal(s); return string(b) }
