package flow

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
)

// TestValidateMatch: each target vendor takes the match it supports, and a wrong one is
// named by its field.
func TestValidateMatch(t *testing.T) {
	base := func(target Endpoint, m Match) Flow {
		source := Endpoint{connector.SystemHostERP, "customer"}
		if target.System == connector.SystemHostERP {
			source = Endpoint{connector.SystemCRM, "Account"}
		}
		return Flow{ID: "f", Source: source, Target: target, Mapping: map[string]string{"x": "y"}, Match: &m}
	}
	account := Endpoint{connector.SystemCRM, "Account"}
	cases := []struct {
		name   string
		flow   Flow
		errors string
	}{
		{"salesforce external id", base(account, Match{By: MatchExternalID, Field: "ERP_Customer_Id__c", Create: true}), ""},
		{"salesforce lookup by email", base(account, Match{By: MatchLookup, Field: "Email", SourceField: "email"}), ""},
		{"none, create", base(account, Match{By: MatchNone, Create: true}), ""},
		{"none with a field", base(account, Match{By: MatchNone, Field: "Email"}), "match.field"},
		{"unknown by", base(account, Match{By: "guess"}), "match.by"},
		{"upsert without create", base(account, Match{By: MatchExternalID, Field: "ERP_Customer_Id__c"}), "match.create"},
		{"field not a name", base(account, Match{By: MatchLookup, Field: "Email; DROP"}), "match.field"},
		{"netsuite externalId", base(Endpoint{connector.SystemHostERP, "customer"}, Match{By: MatchExternalID, Field: "externalId", Create: true}), ""},
		{"netsuite other key", base(Endpoint{connector.SystemHostERP, "customer"}, Match{By: MatchExternalID, Field: "entityId", Create: true}), "match.field"},
		{"mailchimp by address", base(Endpoint{connector.SystemMarketing, "a1b2"}, Match{By: MatchExternalID, Field: "email_address", SourceField: "email", Create: true}), ""},
		{"mailchimp lookup by name", base(Endpoint{connector.SystemMarketing, "a1b2"}, Match{By: MatchLookup, Field: "FNAME"}), "match.field"},
		{"shipstation orderKey", base(Endpoint{connector.SystemShipping, "orders"}, Match{By: MatchExternalID, Field: "orderKey", Create: true}), ""},
		{"shipstation products", base(Endpoint{connector.SystemShipping, "products"}, Match{By: MatchExternalID, Field: "orderKey", Create: true}), "match.by"},
		{"business central find then create", base(Endpoint{connector.SystemERP2, "customers"}, Match{By: MatchExternalID, Field: "number"}), ""},
	}
	for _, c := range cases {
		var got []string
		for _, e := range c.flow.Validate() {
			got = append(got, e.Field)
		}
		if strings.Join(got, ",") != c.errors {
			t.Errorf("%s: errors on %v, want %q", c.name, got, c.errors)
		}
	}
}

// TestMatchKey: the key is the record id, or the source field as text; absent is "".
func TestMatchKey(t *testing.T) {
	ev := Event{RecordID: "C-1", Fields: map[string]any{"email": "a@b.example", "no": json.Number("42"), "obj": map[string]any{}}}
	for _, c := range []struct {
		m    *Match
		want string
	}{
		{nil, ""}, {&Match{By: MatchNone}, ""}, {&Match{By: MatchExternalID}, "C-1"},
		{&Match{By: MatchLookup, SourceField: "email"}, "a@b.example"}, {&Match{By: MatchLookup, SourceField: "no"}, "42"},
		{&Match{By: MatchLookup, SourceField: "obj"}, ""}, {&Match{By: MatchLookup, SourceField: "missing"}, ""},
	} {
		if got := matchKey(c.m, ev); got != c.want {
			t.Errorf("matchKey(%+v) = %q, want %q", c.m, got, c.want)
		}
	}
}
