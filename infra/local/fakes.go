package main

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/tenant"
)

// fakeSystems are the five production systems of the demo tenant, each a fake served by the
// local stack under /fake/<system>/, so write-backs can be seen with curl.
type fakeSystems map[connector.System]*fakesystem.Server

// hostOutage is the fake host ERP's outage switch (make demo-retry).
var hostOutage = &outage{}

// newFakeSystems creates the fakes with demo data: the host ERP holds the sales order the
// sample sync error is about, and one sync error whose webhook "never arrived", for the
// reconcile to find.
func newFakeSystems(now time.Time) fakeSystems {
	f := fakeSystems{}
	for _, s := range connector.Systems {
		f[s] = fakesystem.New(s)
	}
	host := f[connector.SystemHostERP]
	demoNetSuite().register(host)
	host.Seed("salesOrder", "SO-10042", map[string]any{
		"shipcountry": "Deutschland", "shipzip": "10115", "shipcity": "Berlin", "total": 129.5, "currency": "EUR", "status": "pendingFulfillment",
	})
	// Two more orders failing the same way, so the console's grouped view has a group.
	for _, id := range demoOrders {
		host.Seed("salesOrder", id, map[string]any{"shipcountry": "Deutschland", "shipzip": "80331", "shipcity": "München",
			"total": 64.9, "currency": "EUR", "status": "pendingFulfillment"})
	}
	host.Seed("customer", "C-2001", map[string]any{"companyName": "Nordwind Handel GmbH", "email": "einkauf@nordwind.example", "country": "DE"})
	// make demo-retry's customer: the CRM account C-2002 flows to it (retrydemo_flow.go).
	host.Seed("customer", retryAccount, map[string]any{"companyName": "Südwind Handel GmbH", "email": "info@suedwind.example", "country": "DE"})
	// A contact whose marketingOptIn the manifest gives to the marketing platform
	// (require_approval): a host ERP write to it is held for an approver.
	host.Seed("contact", "CT-3001", map[string]any{"firstName": "Jana", "lastName": "Vogel", "marketingOptIn": false})
	missed, _ := json.Marshal(map[string]any{
		"tenantId": demoTenant, "errorId": "ERR-MISSED-0001", "recordType": "customer", "recordId": "C-2001",
		"errorCode": "INVALID_FIELD_VALUE", "message": "Invalid value for field country: Germany is not a valid ISO 3166 country code",
		"occurredAt": now.Add(-time.Hour).UTC().Format(time.RFC3339), "externalSystem": "crm", "direction": "inbound",
		"payload": map[string]any{"country": "Germany", "companyName": "Nordwind Handel GmbH"},
	})
	_ = host.AddSyncError(missed)
	return f
}

// mount serves every fake under /fake/<system>/.
func (f fakeSystems) mount(mux *http.ServeMux) {
	for s, srv := range f {
		prefix := "/fake/" + string(s)
		h := srv.Handler()
		if s == connector.SystemHostERP {
			h = hostOutage.wrap(refuseInvalidEmail(demoNetSuite().inspect(h)))
		}
		mux.Handle(prefix+"/", http.StripPrefix(prefix, h))
	}
}

// configure points the demo tenant's connectors at the fakes; the host ERP's logs in with
// NetSuite's M2M client assertion (netsuite_m2m.go).
func (f fakeSystems) configure(ctx context.Context, admin tenant.Admin, baseURL string) error {
	for s := range f {
		if s == connector.SystemHostERP {
			if err := configureNetSuiteM2M(ctx, admin, baseURL+"/fake/"+string(s)); err != nil {
				return err
			}
			continue
		}
		// Business Central's base URL names the company (fakesystem.BasePath).
		if err := admin.SetConnector(ctx, demoTenant, string(s), baseURL+"/fake/"+string(s)+fakesystem.BasePath(s), ""); err != nil {
			return err
		}
	}
	return nil
}
