package connector_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
)

// metadataCase is one vendor profile's metadata as its fake answers it: a seeded record,
// the entity it is of, and a field the metadata must list for it.
type metadataCase struct {
	sys          connector.System
	entity, id   string
	seed         map[string]any
	wantField    string
	wantExternal string
}

var metadataCases = []metadataCase{
	{sys: connector.SystemHostERP, entity: "customer", id: "107", seed: map[string]any{"companyName": "Nordwind", "balance": 12.5},
		wantField: "companyName"},
	{sys: connector.SystemERP2, entity: "customers", id: "C-1", seed: map[string]any{"displayName": "Coho", "number": "C-1"},
		wantField: "displayName"},
	{sys: connector.SystemCRM, entity: "Account", id: "001000000000001AAA", seed: map[string]any{"Name": "Acme", "ERP_Ext_Id__c": "C-1"},
		wantField: "Name", wantExternal: "ERP_Ext_Id__c"},
	{sys: connector.SystemMarketing, entity: "a1b2c3d4e5", id: "jana@example.com",
		seed:      map[string]any{"email_address": "jana@example.com", "merge_fields": map[string]any{"FNAME": "Jana"}},
		wantField: connector.MailchimpMergePrefix + "FNAME", wantExternal: connector.MailchimpEmail},
	{sys: connector.SystemShipping, entity: "orders", id: "9001", seed: map[string]any{"orderNumber": "SO-1"},
		wantField: "orderNumber", wantExternal: connector.ShipStationOrderKey},
}

// Each profile checks its connection with one authenticated GET, lists its entities and
// an entity's fields from the vendor's metadata, and fails a wrong credential as
// unauthorized with the vendor's code and no body.
func TestMetadataPerVendor(t *testing.T) {
	t.Parallel()
	for _, mc := range metadataCases {
		t.Run(string(mc.sys), func(t *testing.T) {
			t.Parallel()
			cred := "tok"
			if mc.sys == connector.SystemShipping || mc.sys == connector.SystemMarketing {
				cred = "key:secret"
			}
			fake, c := startFake(t, mc.sys, func(cfg *connector.Config) { cfg.Token = cred })
			fake.RequireToken(cred)
			fake.Seed(mc.entity, mc.id, mc.seed)
			ctx := context.Background()

			read, err := c.Check(ctx)
			if err != nil || !strings.HasPrefix(read, "GET") {
				t.Fatalf("Check = %q, %v", read, err)
			}
			if got := fake.RequestsByMethod(); got[http.MethodGet] != 1 || len(got) != 1 {
				t.Fatalf("the check sent %v, want one GET", got)
			}
			entities, err := c.Entities(ctx)
			if err != nil || !slices.ContainsFunc(entities, func(e connector.Entity) bool { return e.Name == mc.entity }) {
				t.Fatalf("Entities = %v, %v; want %s among them", entities, err, mc.entity)
			}
			fields, err := c.Fields(ctx, mc.entity)
			if err != nil {
				t.Fatalf("Fields: %v", err)
			}
			i := slices.IndexFunc(fields, func(f connector.Field) bool { return f.Name == mc.wantField })
			if i < 0 {
				t.Fatalf("Fields = %v, want %s", fields, mc.wantField)
			}
			if mc.wantExternal != "" && !slices.ContainsFunc(fields, func(f connector.Field) bool { return f.Name == mc.wantExternal && f.ExternalID }) {
				t.Fatalf("Fields = %v, want %s marked as external id", fields, mc.wantExternal)
			}
			if !slices.IsSortedFunc(fields, func(a, b connector.Field) int { return strings.Compare(a.Name, b.Name) }) {
				t.Fatalf("fields are not sorted: %v", fields)
			}
			if mc.sys != connector.SystemShipping {
				if _, err := c.Fields(ctx, "NoSuchEntity"); err == nil {
					t.Fatal("the fields of an entity the system lacks were listed")
				}
			}

			fake.RequireToken("other")
			_, err = c.Check(ctx)
			ce := asError(t, err, connector.ErrUnauthorized)
			if ce.Status != http.StatusUnauthorized || strings.Contains(err.Error(), "invalid credentials") {
				t.Fatalf("a refused check = %v (status %d), want 401 without the body's text", err, ce.Status)
			}
		})
	}
}

// A flow maps Mailchimp merge fields one by one; the write nests them into merge_fields,
// keeping the member's other merge fields, and a repeat is replayed, not sent again.
func TestMailchimpMergeFieldsNest(t *testing.T) {
	t.Parallel()
	fake, c := startFake(t, connector.SystemMarketing, nil)
	fake.Seed("list1", "jana@example.com", map[string]any{"email_address": "jana@example.com",
		"merge_fields": map[string]any{"FNAME": "Jana", "LNAME": "Vogel"}})
	req := connector.WriteRequest{Entity: "list1", RecordID: "jana@example.com", IdempotencyKey: "k1", Origin: "crm",
		Fields: map[string]any{connector.MailchimpMergePrefix + "FNAME": "Jana-Marie"}}
	if _, err := c.Write(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	rec, _ := fake.Get("list1", "jana@example.com")
	merge, _ := rec.Fields["merge_fields"].(map[string]any)
	if merge["FNAME"] != "Jana-Marie" || merge["LNAME"] != "Vogel" {
		t.Fatalf("merge_fields = %v", rec.Fields["merge_fields"])
	}
	res, err := c.Write(context.Background(), req)
	if err != nil || !res.Replayed || fake.WriteCount() != 1 {
		t.Fatalf("repeat: replayed %v, %v, %d writes", res.Replayed, err, fake.WriteCount())
	}
}

// A describe larger than a record read may be (MaxResponseBytes) is still read: real orgs'
// metadata runs to megabytes.
func TestMetadataReadsLargeDocuments(t *testing.T) {
	t.Parallel()
	fake, c := startFake(t, connector.SystemCRM, nil)
	fields := map[string]any{}
	pad := strings.Repeat("x", 2000)
	for i := range 700 {
		fields[fmt.Sprintf("F%03d_%s__c", i, pad)] = "v"
	}
	fake.Seed("Big__c", "a01000000000001AAA", fields)
	got, err := c.Fields(context.Background(), "Big__c")
	if err != nil || len(got) != 701 {
		t.Fatalf("Fields of a %d KiB describe = %d fields, %v", 700*2000/1024, len(got), err)
	}
}
