package governance_test

import (
	"context"
	"errors"
	"testing"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
)

func TestDefaultManifestIsValid(t *testing.T) {
	t.Parallel()
	m := governance.DefaultManifest()
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	m.Entries[0].Owner = "nobody"
	if governance.DefaultManifest().Entries[0].Owner != connector.SystemHostERP {
		t.Fatal("DefaultManifest shares its entries between callers")
	}
}

func TestManifestOwner(t *testing.T) {
	t.Parallel()
	m := governance.DefaultManifest()
	for _, c := range []struct {
		entity, field string
		owner         connector.System
		policy        governance.Policy
		declared      bool
	}{
		{"salesOrder", "status", connector.SystemHostERP, governance.PolicyRejectWithAlert, true},
		{"salesOrder", "trackingNumber", connector.SystemShipping, governance.PolicySourceWins, true},
		{"salesOrder", "", connector.SystemHostERP, governance.PolicyRejectWithAlert, true},
		{"customer", "email", connector.SystemCRM, governance.PolicySourceWins, true},
		{"customer", "phone", connector.SystemCRM, governance.PolicySourceWins, true},
		{"customer", "creditLimit", connector.SystemHostERP, governance.PolicyRejectWithAlert, true},
		{"contact", "marketingOptIn", connector.SystemMarketing, governance.PolicyRequireApproval, true},
		{"contact", "email", connector.SystemCRM, governance.PolicyRejectWithAlert, true},
		{"vendorBill", "amount", connector.SystemHostERP, governance.PolicyRequireApproval, true},
		{"shipment", "carrier", connector.SystemShipping, governance.PolicyRejectWithAlert, true},
		{"subscription", "plan", connector.SystemMarketing, governance.PolicySourceWins, true},
		// A field entry of one entity says nothing about another entity.
		{"ticket", "email", "", "", false},
		// Names match whatever their case: a connector's spelling must not slip past.
		{"Customer", "EMAIL", connector.SystemCRM, governance.PolicySourceWins, true},
		{"SALESORDER", "Status", connector.SystemHostERP, governance.PolicyRejectWithAlert, true},
	} {
		e, ok := m.Owner(c.entity, c.field)
		if ok != c.declared || e.Owner != c.owner || e.Policy != c.policy {
			t.Errorf("Owner(%q, %q) = %+v, %v; want %s %s %v", c.entity, c.field, e, ok, c.owner, c.policy, c.declared)
		}
	}
}

func TestManifestValidate(t *testing.T) {
	t.Parallel()
	ok := governance.Entry{Entity: "ticket", Owner: connector.SystemCRM, Policy: governance.PolicySourceWins}
	for name, entries := range map[string][]governance.Entry{
		"no entity":                 {{Owner: connector.SystemCRM, Policy: governance.PolicySourceWins}},
		"unknown owner":             {{Entity: "ticket", Owner: "helpdesk", Policy: governance.PolicySourceWins}},
		"unknown policy":            {{Entity: "ticket", Owner: connector.SystemCRM, Policy: "ask_nicely"}},
		"duplicate":                 {ok, ok},
		"duplicate in another case": {ok, {Entity: "TICKET", Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins}},
	} {
		if err := (governance.Manifest{Entries: entries}).Validate(); !errors.Is(err, governance.ErrInvalidManifest) {
			t.Errorf("%s: err=%v, want ErrInvalidManifest", name, err)
		}
	}
	if err := (governance.Manifest{Entries: []governance.Entry{ok}}).Validate(); err != nil {
		t.Errorf("valid manifest: %v", err)
	}
}

func TestTenantManifestsMergeOverrides(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	src := &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: &governancetest.Overrides{}}
	overrides := []governance.Entry{
		// Changes a policy only.
		{Entity: "salesOrder", Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins},
		// Moves a field's ownership.
		{Entity: "customer", Field: "email", Owner: connector.SystemHostERP, Policy: governance.PolicyRequireApproval},
		// Declares an owner the default leaves open.
		{Entity: "ticket", Owner: connector.SystemCRM, Policy: governance.PolicyRejectWithAlert},
	}
	if err := src.SetOverrides(ctx, "t1", overrides); err != nil {
		t.Fatal(err)
	}
	m1, err := src.Manifest(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	m2, err := src.Manifest(ctx, "t2")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		m             governance.Manifest
		entity, field string
		owner         connector.System
		policy        governance.Policy
	}{
		{m1, "salesOrder", "status", connector.SystemHostERP, governance.PolicySourceWins},
		{m1, "salesOrder", "trackingNumber", connector.SystemShipping, governance.PolicySourceWins},
		{m1, "customer", "email", connector.SystemHostERP, governance.PolicyRequireApproval},
		{m1, "customer", "phone", connector.SystemCRM, governance.PolicySourceWins},
		{m1, "ticket", "status", connector.SystemCRM, governance.PolicyRejectWithAlert},
		{m2, "salesOrder", "status", connector.SystemHostERP, governance.PolicyRejectWithAlert},
		{m2, "customer", "email", connector.SystemCRM, governance.PolicySourceWins},
	} {
		e, _ := c.m.Owner(c.entity, c.field)
		if e.Owner != c.owner || e.Policy != c.policy {
			t.Errorf("%s.%s: %+v, want %s %s", c.entity, c.field, e, c.owner, c.policy)
		}
	}
	if len(m1.Entries) != len(governance.DefaultManifest().Entries)+1 {
		t.Errorf("merged manifest has %d entries; an override must replace, not add to, the entry it names", len(m1.Entries))
	}
	if err := src.SetOverrides(ctx, "t1", []governance.Entry{{Entity: "ticket", Owner: "helpdesk", Policy: governance.PolicySourceWins}}); !errors.Is(err, governance.ErrInvalidManifest) {
		t.Errorf("invalid override stored: err=%v", err)
	}
	if m, _ := src.Manifest(ctx, "t1"); len(m.Entries) != len(m1.Entries) {
		t.Error("a refused override replaced the stored ones")
	}
}

type failingOverrides struct{}

func (failingOverrides) Overrides(context.Context, string) ([]governance.Entry, error) {
	return nil, errors.New("table unavailable")
}

func (failingOverrides) PutOverrides(context.Context, string, []governance.Entry) error {
	return errors.New("table unavailable")
}

func TestTenantManifestsFailClosed(t *testing.T) {
	t.Parallel()
	src := &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: failingOverrides{}}
	if _, err := src.Manifest(context.Background(), "t1"); err == nil {
		t.Fatal("a failed override read fell back to the default manifest")
	}
}
