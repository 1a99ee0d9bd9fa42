package connector_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
)

// createCase is one vendor profile's create, find and upsert, as its fake answers them.
type createCase struct {
	sys    connector.System
	entity string
	// create are a new record's fields; findField holds findValue in it.
	create               map[string]any
	findField, findValue string
	// upsertKey and upsertValue address the upserted record ("" for a system without an
	// upsert); upsert are its fields, upsertChange a change of them.
	upsertKey, upsertValue string
	upsert, upsertChange   map[string]any
}

var createCases = []createCase{
	{sys: connector.SystemHostERP, entity: "customer",
		create:    map[string]any{"companyName": "Nordwind Handel GmbH", "email": "einkauf@nordwind.example"},
		findField: "email", findValue: "einkauf@nordwind.example",
		upsertKey: connector.NetSuiteExternalID, upsertValue: "CRM-0015",
		upsert: map[string]any{"companyName": "Coho Winery"}, upsertChange: map[string]any{"companyName": "Coho Winery Inc."}},
	{sys: connector.SystemERP2, entity: "customers",
		create:    map[string]any{"displayName": "O'Neil Supplies", "number": "C-10"},
		findField: "displayName", findValue: "O'Neil Supplies"},
	{sys: connector.SystemCRM, entity: "Account",
		create:    map[string]any{"Name": "Acme", "ERP_Customer_Id__c": "C-2001"},
		findField: "ERP_Customer_Id__c", findValue: "C-2001",
		upsertKey: "ERP_Customer_Id__c", upsertValue: "C-3001",
		upsert: map[string]any{"Name": "Fabrikam"}, upsertChange: map[string]any{"Name": "Fabrikam AG"}},
	{sys: connector.SystemMarketing, entity: "a1b2c3d4e5",
		create:    map[string]any{"email_address": "neu@example.com", "status": "subscribed"},
		findField: connector.MailchimpEmail, findValue: "neu@example.com",
		upsertKey: connector.MailchimpEmail, upsertValue: "Jana.Vogel@example.com",
		upsert:       map[string]any{"merge_fields": map[string]any{"FNAME": "Jana"}},
		upsertChange: map[string]any{"merge_fields": map[string]any{"FNAME": "Jana-Marie"}}},
	{sys: connector.SystemShipping, entity: "orders",
		create:    map[string]any{"orderNumber": "SO-7", "orderDate": "2026-11-20T09:00:00.0000000", "orderStatus": "awaiting_shipment"},
		findField: "orderNumber", findValue: "SO-7",
		upsertKey: connector.ShipStationOrderKey, upsertValue: "SO-8",
		upsert:       map[string]any{"orderNumber": "SO-8", "orderDate": "2026-11-20T09:00:00.0000000", "orderStatus": "awaiting_shipment"},
		upsertChange: map[string]any{"orderNumber": "SO-8", "orderDate": "2026-11-20T09:00:00.0000000", "orderStatus": "on_hold"}},
}

func eachCreate(t *testing.T, run func(t *testing.T, cc createCase)) {
	t.Parallel()
	for _, cc := range createCases {
		t.Run(string(cc.sys), func(t *testing.T) {
			t.Parallel()
			run(t, cc)
		})
	}
}

func (cc createCase) createReq(key string) connector.WriteRequest {
	return connector.WriteRequest{Entity: cc.entity, Fields: cc.create, Create: true, IdempotencyKey: key, Origin: "syncassist"}
}

// TestContractCreateAndFind: a create answers the new record's id as the vendor gives it
// (NetSuite's Location, Salesforce's and Business Central's body, Mailchimp's hash,
// ShipStation's orderId), the fake holds the record under it, and a find by a field of
// it answers that id and nothing for another value.
func TestContractCreateAndFind(t *testing.T) {
	eachCreate(t, func(t *testing.T, cc createCase) {
		fake, c := startFake(t, cc.sys, nil)
		ctx := context.Background()
		res, err := c.Write(ctx, cc.createReq("run-1"))
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		stored, ok := fake.Get(cc.entity, res.Record.ID)
		if !res.Created || res.Record.ID == "" || !ok || !reflect.DeepEqual(res.Record.Fields, stored.Fields) {
			t.Fatalf("create = %#v; stored %#v (%v)", res, stored, ok)
		}
		for k, v := range jsonShape(t, cc.create).(map[string]any) {
			if !reflect.DeepEqual(stored.Fields[k], v) {
				t.Fatalf("stored %s = %#v, want %#v", k, stored.Fields[k], v)
			}
		}
		if w := fake.Writes(); len(w) != 1 || w[0].IdempotencyKey != "run-1" {
			t.Fatalf("applied writes = %#v, want one with the key", w)
		}
		ids, err := c.Find(ctx, cc.entity, cc.findField, cc.findValue)
		if err != nil || !reflect.DeepEqual(ids, []string{res.Record.ID}) {
			t.Fatalf("Find = %v, %v; want [%s]", ids, err, res.Record.ID)
		}
		if ids, err := c.Find(ctx, cc.entity, cc.findField, "nobody@example.net"); err != nil || len(ids) != 0 {
			t.Fatalf("Find of another value = %v, %v; want none", ids, err)
		}
	})
}

// TestContractCreateIsNotResent: a create whose answer was lost is not sent again by the
// client (that would make a second record); the error says it may have been applied. A
// 429 made nothing and is resent.
func TestContractCreateIsNotResent(t *testing.T) {
	eachCreate(t, func(t *testing.T, cc createCase) {
		fake, c := startFake(t, cc.sys, nil)
		ctx := context.Background()
		// A find first, so the create goes out on a reused connection: net/http resends a
		// request with an Idempotency-Key header on such a connection unless told not to.
		if _, err := c.Find(ctx, cc.entity, cc.findField, cc.findValue); err != nil {
			t.Fatal(err)
		}
		fake.DropNext(1)
		_, err := c.Write(ctx, cc.createReq("run-1"))
		if err == nil || !connector.MayHaveApplied(err) || fake.WriteCount() != 1 || fake.Requests() != 2 {
			t.Fatalf("create with a lost answer: %v (may have applied %v), %d writes in %d requests; want one request",
				err, connector.MayHaveApplied(err), fake.WriteCount(), fake.Requests())
		}
		fake2, c2 := startFake(t, cc.sys, nil)
		fake2.FailNextRetryAfter(1, 429, "0")
		if _, err := c2.Write(ctx, cc.createReq("run-2")); err != nil || fake2.WriteCount() != 1 {
			t.Fatalf("create after a 429: %v, %d writes; want it resent once", err, fake2.WriteCount())
		}
		fake3, c3 := startFake(t, cc.sys, nil)
		_, err = c3.Write(ctx, connector.WriteRequest{Entity: cc.entity, Fields: map[string]any{}, Create: true, IdempotencyKey: "k", Origin: "o"})
		if err == nil || connector.MayHaveApplied(err) || fake3.Requests() != 0 {
			t.Fatalf("empty create: %v; want it refused unsent", err)
		}
	})
}

// TestContractUpsert: the first upsert by the vendor's key creates, the next updates the
// same record, and one that changes nothing is a replay (ShipStation, which cannot read
// by orderKey, sends it again and its createorder changes nothing).
func TestContractUpsert(t *testing.T) {
	eachCreate(t, func(t *testing.T, cc createCase) {
		fake, c := startFake(t, cc.sys, nil)
		ctx := context.Background()
		req := connector.WriteRequest{Entity: cc.entity, RecordID: cc.upsertValue, UpsertKey: cc.upsertKey,
			Fields: cc.upsert, IdempotencyKey: "run-1", Origin: "syncassist"}
		if cc.upsertKey == "" {
			req.UpsertKey = "number"
			if _, err := c.Write(ctx, req); err == nil || fake.Requests() != 0 {
				t.Fatalf("upsert on %s: %v; want it refused unsent", cc.sys, err)
			}
			return
		}
		first, err := c.Write(ctx, req)
		if err != nil || !first.Created || first.Record.ID == "" {
			t.Fatalf("first upsert = %#v, %v; want created with an id", first, err)
		}
		req.Fields, req.IdempotencyKey = cc.upsertChange, "run-2"
		second, err := c.Write(ctx, req)
		if err != nil || second.Created || second.Record.ID != first.Record.ID {
			t.Fatalf("second upsert = %#v, %v; want the same record %s updated", second, err, first.Record.ID)
		}
		stored, _ := fake.Get(cc.entity, first.Record.ID)
		for k, v := range jsonShape(t, cc.upsertChange).(map[string]any) {
			if !reflect.DeepEqual(stored.Fields[k], v) {
				t.Fatalf("stored %s = %#v, want %#v", k, stored.Fields[k], v)
			}
		}
		third, err := c.Write(ctx, req)
		if err != nil || third.Created || third.Record.ID != first.Record.ID || fake.WriteCount() != 2 {
			t.Fatalf("repeated upsert = %#v, %v, %d writes; want no new write", third, err, fake.WriteCount())
		}
		if cc.sys != connector.SystemShipping && !third.Replayed {
			t.Fatalf("repeated upsert not reported as a replay: %#v", third)
		}
	})
}
