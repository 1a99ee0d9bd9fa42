package flow_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/tenant"
)

// A relay following docs/flow-sources.md and this service derive the same webhook-id. The
// vector was computed apart from the code: printf 'hosterp\0EV-1' | sha256sum.
func TestEventMessageIDIsTheDocumentedDerivation(t *testing.T) {
	if got, want := flow.EventMessageID(connector.SystemHostERP, "EV-1"), "msg_a40af3f4537218303c874436253a3302"; got != want {
		t.Fatalf("EventMessageID = %s, want %s", got, want)
	}
}

// webhookClaims counts t1's webhook-id claim items in the flows table. The prefix is the
// store's key layout (claims.go), read here from outside, as a relay's retry would find it.
func (e *events) webhookClaims() int {
	e.t.Helper()
	out, err := e.db.Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String(e.table),
		KeyConditionExpression:    aws.String("tenant_id = :t AND begins_with(sk, :p)"),
		ExpressionAttributeValues: dynamostore.Item{":t": dynamostore.Str("t1"), ":p": dynamostore.Str("whid#")},
		ConsistentRead:            aws.Bool(true)})
	if err != nil {
		e.t.Fatal(err)
	}
	return len(out.Items)
}

// Under the event's own derived webhook-id nothing is claimed (a write fewer per event):
// the id names its event by construction, so a redelivery is answered by the event's own
// dedupe and starts nothing. The same id sent with another event is not that event's
// derived id: it is claimed and checked like any other, so its first reuse is accepted (the
// first use was not recorded) and the next refused.
func TestTheEventsDerivedWebhookIDIsNotClaimed(t *testing.T) {
	emutest.Each(t, func(t *testing.T, emu emutest.Emulator) {
		e := newEventsOn(t, emu)
		crm := e.secrets[tenant.FlowPurpose("crm")]
		id := flow.EventMessageID(connector.SystemCRM, "ev-1")
		if w := e.post(signed("crm", crm, id, changeBody("ev-1")), 202, ""); strings.Contains(w.Body.String(), `"duplicate":true`) {
			t.Fatalf("first delivery answered as a duplicate: %s", w.Body)
		}
		e.unchanged(1, 1)
		if n := e.webhookClaims(); n != 0 {
			t.Fatalf("%d webhook-id claims for the event's derived id, want none", n)
		}
		if w := e.post(signed("crm", crm, id, changeBody("ev-1")), 202, ""); !strings.Contains(w.Body.String(), `"duplicate":true`) {
			t.Fatalf("redelivery under the derived id: %s, want a duplicate", w.Body)
		}
		e.unchanged(1, 1)
		if n := e.webhookClaims(); n != 0 {
			t.Fatalf("the redelivery claimed %d webhook-ids, want none", n)
		}
		// ev-1's id with ev-2: accepted once, and claimed for ev-2 from then on.
		if w := e.post(signed("crm", crm, id, changeBody("ev-2")), 202, ""); strings.Contains(w.Body.String(), `"duplicate":true`) {
			t.Fatalf("ev-1's id with ev-2: %s, want a new event", w.Body)
		}
		e.unchanged(2, 2)
		if n := e.webhookClaims(); n != 1 {
			t.Fatalf("%d webhook-id claims after its reuse for ev-2, want 1", n)
		}
		e.post(signed("crm", crm, id, changeBody("ev-3")), 409, "request_replayed")
		e.unchanged(2, 2)
	})
}
