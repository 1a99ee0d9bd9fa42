package aidiagnoser

import (
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// TestRequestNamesTheErrorsSystems: the provider learns the products of the systems an
// error is about, so that it explains a code by their catalogues and not another vendor's.
func TestRequestNamesTheErrorsSystems(t *testing.T) {
	for _, c := range []struct {
		name         string
		source       syncerror.Source
		external     string
		vendor, host string
	}{
		{"webhook about an outside system", syncerror.SourceWebhook, "webshop", "", "NetSuite"},
		{"reconcile about the CRM", syncerror.SourceReconcile, "crm", "Salesforce", "NetSuite"},
		{"flow write to shipping", syncerror.SourceFlow, "shipping", "ShipStation", ""},
		{"no external system", syncerror.SourceWebhook, "", "", "NetSuite"},
	} {
		t.Run(c.name, func(t *testing.T) {
			claim := syncerror.NewClaim(syncerror.Record{TenantID: "t1", ErrorID: "E-1", RecordType: "salesOrder", RecordID: "SO-1",
				ErrorCode: "INVALID_FIELD_VALUE", Message: "Invalid value for field shipcountry", ExternalSystem: c.external,
				Integration: "webshop-orders", Direction: "inbound"}, c.source, "wh-1", time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC))
			req := requestOf(claim)
			if req.ExternalVendor != c.vendor || req.HostSystem != c.host {
				t.Errorf("externalVendor %q hostSystem %q, want %q and %q", req.ExternalVendor, req.HostSystem, c.vendor, c.host)
			}
			if req.ExternalSystem != c.external || req.ErrorCode != "INVALID_FIELD_VALUE" || req.Integration != "webshop-orders" ||
				req.Direction != "inbound" || req.RecordID != "SO-1" {
				t.Errorf("the record's own fields changed: %+v", req)
			}
		})
	}
}
