package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
)

// demoClient is a connector for one of the local stack's fakes, mounted as serve mounts them.
func demoClient(t *testing.T, fakes fakeSystems, sys connector.System) *connector.Client {
	t.Helper()
	mux := http.NewServeMux()
	fakes.mount(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	c, err := connector.New(connector.Config{AllowLoopback: true, System: sys, BaseURL: srv.URL + "/fake/" + string(sys) + fakesystem.BasePath(sys), MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The host ERP fake refuses an invalid e-mail the way NetSuite does, so a flow's write of
// one fails for good (a validation error) and changes nothing; a valid one is written.
func TestHostERPFakeRefusesInvalidEmail(t *testing.T) {
	fakes := newFakeSystems(time.Now())
	c := demoClient(t, fakes, connector.SystemHostERP)
	write := func(email string) error {
		_, err := c.Write(context.Background(), connector.WriteRequest{Entity: "customer", RecordID: "C-2001",
			Fields: map[string]any{"email": email}, IdempotencyKey: "k-" + email, Origin: "crm"})
		return err
	}
	err := write("einkauf(at)nordwind")
	var ce *connector.Error
	if !errors.Is(err, connector.ErrValidation) || !errors.As(err, &ce) || ce.Status != http.StatusBadRequest || ce.Code != "INVALID_FLD_VALUE" {
		t.Fatalf("invalid e-mail: %v, want a validation error with NetSuite's code INVALID_FLD_VALUE", err)
	}
	if rec, _ := fakes[connector.SystemHostERP].Get("customer", "C-2001"); rec.Fields["email"] != "einkauf@nordwind.example" {
		t.Fatalf("customer after the refused write %v", rec.Fields)
	}
	if err := write("einkauf@nordwind.test"); err != nil {
		t.Fatalf("valid e-mail: %v", err)
	}
	if rec, _ := fakes[connector.SystemHostERP].Get("customer", "C-2001"); rec.Fields["email"] != "einkauf@nordwind.test" {
		t.Fatalf("customer after the write %v", rec.Fields)
	}
}

// The records the demo flows write to are where the vendor profiles look for them: the
// CRM's Account as a Salesforce sObject row, the shipping order as a ShipStation order that
// createorder updates by its orderKey.
func TestDemoFlowTargetsAreSeededInTheVendorShapedFakes(t *testing.T) {
	fakes := newFakeSystems(time.Now())
	seedFakeFlowTargets(fakes)
	for _, f := range demoFlows {
		c := demoClient(t, fakes, f.Target.System)
		fields := map[string]any{}
		for target := range f.Mapping {
			fields[target] = "changed-" + target
		}
		// The host ERP's fake refuses addresses without "@".
		if f.Target.System == connector.SystemHostERP {
			fields["email"] = "changed@example.com"
		}
		res, err := c.Write(context.Background(), connector.WriteRequest{Entity: f.Target.Entity, RecordID: demoFlowRecord[f.Source.Entity],
			Fields: fields, IdempotencyKey: "k-" + f.ID, Origin: string(f.Source.System)})
		if err != nil || res.Replayed {
			t.Fatalf("flow %s: write to %s: %+v %v", f.ID, f.Target, res, err)
		}
		for k, v := range fields {
			if res.Record.Fields[k] != v {
				t.Fatalf("flow %s: %s is %v after the write, want %v", f.ID, k, res.Record.Fields[k], v)
			}
		}
	}
	// createorder replaced the whole order: the fields the flow does not map are kept.
	if rec, _ := fakes[connector.SystemShipping].Get("orders", "SO-10042"); rec.Fields["orderKey"] != "SO-10042" || rec.Fields["shipTo"] == nil {
		t.Fatalf("shipping order after the write %v", rec.Fields)
	}
	if n := len(fakes[connector.SystemShipping].Writes()); n != 1 {
		t.Fatalf("%d shipping writes, want 1", n)
	}
}
