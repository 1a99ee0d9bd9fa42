package governance_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/dlp/dlptest"
	"github.com/syncassist/syncassist/shared/governance"
)

const (
	hosterp   = connector.SystemHostERP
	erp2      = connector.SystemERP2
	crm       = connector.SystemCRM
	marketing = connector.SystemMarketing
	shipping  = connector.SystemShipping
)

type wantRejection struct {
	owner  connector.System
	policy governance.Policy
	fields []string
}

func TestGuardOwnershipPolicies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		tenant    string
		overrides []governance.Entry
		source    connector.System
		target    connector.System
		entity    string
		fields    []string
		wantErr   error
		written   []string // fields that reach the target
		dropped   []string
		rejected  []wantRejection
		alerts    int
		held      *wantRejection // declared owner and conflicting fields of the approval
	}{
		{
			name: "owner writes its own entity", source: hosterp, target: hosterp, entity: "salesOrder",
			fields: []string{"status"}, written: []string{"status"},
		},
		{
			name: "entity-level reject_with_alert", source: crm, target: hosterp, entity: "salesOrder",
			fields: []string{"status"}, wantErr: governance.ErrOwnershipRejected,
			rejected: []wantRejection{{hosterp, governance.PolicyRejectWithAlert, []string{"status"}}}, alerts: 1,
		},
		{
			name: "field-level entry beats entity-level: owner of the field may write it", source: crm, target: hosterp,
			entity: "customer", fields: []string{"email"}, written: []string{"email"},
		},
		{
			name: "field-level source_wins drops only the foreign field", source: hosterp, target: hosterp,
			entity: "customer", fields: []string{"creditLimit", "email"}, written: []string{"creditLimit"},
			dropped:  []string{"email"},
			rejected: []wantRejection{{crm, governance.PolicySourceWins, []string{"email"}}},
		},
		{
			name: "field-level source_wins leaving nothing writes nothing", source: hosterp, target: hosterp,
			entity: "salesOrder", fields: []string{"trackingNumber"}, dropped: []string{"trackingNumber"},
			rejected: []wantRejection{{shipping, governance.PolicySourceWins, []string{"trackingNumber"}}},
		},
		{
			name: "entity-level source_wins", source: crm, target: hosterp, entity: "item",
			fields: []string{"description", "weight"}, dropped: []string{"description", "weight"},
			rejected: []wantRejection{{hosterp, governance.PolicySourceWins, []string{"description", "weight"}}},
		},
		{
			name: "entity-level require_approval", source: erp2, target: hosterp, entity: "vendorBill",
			fields: []string{"amount"}, wantErr: governance.ErrPendingApproval,
			held: &wantRejection{hosterp, governance.PolicyRequireApproval, []string{"amount"}},
		},
		{
			name: "field-level require_approval holds the whole write", source: crm, target: crm, entity: "contact",
			fields: []string{"firstName", "marketingOptIn"}, wantErr: governance.ErrPendingApproval,
			held: &wantRejection{marketing, governance.PolicyRequireApproval, []string{"marketingOptIn"}},
		},
		{
			name: "reject beats source_wins", source: crm, target: hosterp, entity: "salesOrder",
			fields: []string{"status", "trackingNumber"}, wantErr: governance.ErrOwnershipRejected,
			rejected: []wantRejection{
				{hosterp, governance.PolicyRejectWithAlert, []string{"status"}},
				{shipping, governance.PolicyRejectWithAlert, []string{"trackingNumber"}},
			},
			alerts: 2,
		},
		{
			name: "reject beats require_approval", source: erp2, target: crm, entity: "contact",
			fields: []string{"firstName", "marketingOptIn"}, wantErr: governance.ErrOwnershipRejected,
			rejected: []wantRejection{
				{crm, governance.PolicyRejectWithAlert, []string{"firstName"}},
				{marketing, governance.PolicyRejectWithAlert, []string{"marketingOptIn"}},
			},
			alerts: 2,
		},
		{
			name: "require_approval beats source_wins (tenant override)", tenant: "t1",
			overrides: []governance.Entry{{Entity: "customer", Owner: hosterp, Policy: governance.PolicyRequireApproval}},
			source:    erp2, target: hosterp, entity: "customer", fields: []string{"email", "name"},
			wantErr: governance.ErrPendingApproval,
			held:    &wantRejection{hosterp, governance.PolicyRequireApproval, []string{"email", "name"}},
		},
		{
			name: "tenant override changes a policy", tenant: "t1",
			overrides: []governance.Entry{{Entity: "salesOrder", Owner: hosterp, Policy: governance.PolicySourceWins}},
			source:    crm, target: hosterp, entity: "salesOrder", fields: []string{"memo", "status"},
			dropped:  []string{"memo", "status"},
			rejected: []wantRejection{{hosterp, governance.PolicySourceWins, []string{"memo", "status"}}},
		},
		{
			name: "another tenant's override does not apply", tenant: "t2",
			overrides: []governance.Entry{{Entity: "salesOrder", Owner: hosterp, Policy: governance.PolicySourceWins}},
			source:    crm, target: hosterp, entity: "salesOrder", fields: []string{"status"},
			wantErr:  governance.ErrOwnershipRejected,
			rejected: []wantRejection{{hosterp, governance.PolicyRejectWithAlert, []string{"status"}}}, alerts: 1,
		},
		{
			name: "tenant override moves a field's ownership", tenant: "t1",
			overrides: []governance.Entry{{Entity: "customer", Field: "email", Owner: hosterp, Policy: governance.PolicyRejectWithAlert}},
			source:    crm, target: hosterp, entity: "customer", fields: []string{"email"},
			wantErr:  governance.ErrOwnershipRejected,
			rejected: []wantRejection{{hosterp, governance.PolicyRejectWithAlert, []string{"email"}}}, alerts: 1,
		},
		{
			name: "entity without a declared owner", source: marketing, target: hosterp, entity: "ticket",
			fields: []string{"status"}, written: []string{"status"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			ctx := context.Background()
			if c.overrides != nil {
				if err := e.manifests.SetOverrides(ctx, "t1", c.overrides); err != nil {
					t.Fatal(err)
				}
			}
			tenant := c.tenant
			if tenant == "" {
				tenant = "t1"
			}
			fields := map[string]any{}
			var values []string
			for _, f := range c.fields {
				v := "value-of-" + f + "-7q3"
				fields[f] = v
				values = append(values, v)
			}
			r := req(c.source, c.target, c.entity, "R-1", fields)
			res, err := e.write(operator(tenant), r)

			if c.wantErr == nil && err != nil || c.wantErr != nil && !errors.Is(err, c.wantErr) {
				t.Fatalf("err = %v, want %v", err, c.wantErr)
			}
			writes := e.fakes[c.target].Writes()
			if c.written == nil {
				if e.totalWrites() != 0 {
					t.Fatalf("%d writes reached a system, want none", e.totalWrites())
				}
			} else {
				if len(writes) != 1 || !slices.Equal(slices.Sorted(maps.Keys(writes[0].Fields)), c.written) {
					t.Fatalf("writes at %s: %+v, want one with fields %v", c.target, writes, c.written)
				}
				if writes[0].Origin != string(c.source) || writes[0].IdempotencyKey != r.IdempotencyKey {
					t.Fatalf("write carried origin %q key %q", writes[0].Origin, writes[0].IdempotencyKey)
				}
				if !reflect.DeepEqual(res.Written.Record.Fields["seeded"], true) {
					t.Fatalf("result does not hold the record after the write: %+v", res.Written)
				}
			}
			if !slices.Equal(res.Dropped, c.dropped) {
				t.Fatalf("dropped %v, want %v", res.Dropped, c.dropped)
			}

			rejections := e.records.Rejections()
			if len(rejections) != len(c.rejected) {
				t.Fatalf("%d rejections recorded, want %d: %+v", len(rejections), len(c.rejected), rejections)
			}
			for i, w := range c.rejected {
				got := rejections[i]
				if got.DeclaredOwner != w.owner || got.Policy != w.policy || !slices.Equal(got.Fields, w.fields) ||
					got.Caller != c.source || got.Target != c.target || got.Tenant != tenant || got.Entity != c.entity ||
					got.Resource != string(c.target)+"/"+c.entity+"/R-1" || got.CorrelationID == "" || !got.Time.Equal(t0) {
					t.Errorf("rejection %d: %+v, want owner %s policy %s fields %v", i, got, w.owner, w.policy, w.fields)
				}
			}
			if n := len(e.alerts.All()); n != c.alerts {
				t.Fatalf("%d alerts, want %d", n, c.alerts)
			}

			approvals := e.records.Approvals()
			if c.held == nil {
				if res.Held != nil || len(approvals) != 0 {
					t.Fatalf("held %+v, stored %d approvals; want none", res.Held, len(approvals))
				}
			} else {
				if res.Held == nil || len(approvals) != 1 || approvals[0].ID != res.Held.ID {
					t.Fatalf("held %+v, stored %+v", res.Held, approvals)
				}
				a := approvals[0]
				if a.DeclaredOwner != c.held.owner || !slices.Equal(a.Fields, c.held.fields) ||
					a.Status != governance.StatusPending || a.Reason != governance.ReasonOwnership ||
					a.Caller != c.source || a.Target != c.target || a.Tenant != tenant || a.RequestedBy != "alice" ||
					a.Request.IdempotencyKey != r.IdempotencyKey || len(a.Request.Fields) != len(c.fields) {
					t.Fatalf("approval %+v", a)
				}
			}

			writeAudits := e.audits(governance.ActionConnectorWrite)
			if len(writeAudits) != 1 {
				t.Fatalf("%d connector.write audit records, want 1", len(writeAudits))
			}
			wantResult := audit.ResultDenied
			if c.written != nil {
				wantResult = audit.ResultSuccess
			}
			if got := writeAudits[0]; got.Result != wantResult || got.ActionType != audit.TypeConnector ||
				got.Actor.TenantID != tenant || got.Actor.Actor != "alice" {
				t.Fatalf("connector.write audit %+v, want result %s", got, wantResult)
			}
			e.mustNotContain(values...)
		})
	}
}

func TestGuardHoldIsIdempotent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := req(erp2, hosterp, "vendorBill", "VB-1", map[string]any{"amount": json.Number("120.50")})
	first, err := e.write(operator("t1"), r)
	if !errors.Is(err, governance.ErrPendingApproval) {
		t.Fatal(err)
	}
	again, err := e.write(operator("t1"), r)
	if !errors.Is(err, governance.ErrPendingApproval) || again.Held == nil || again.Held.ID != first.Held.ID {
		t.Fatalf("retried hold: %+v, %v", again.Held, err)
	}
	if n := len(e.records.Approvals()); n != 1 {
		t.Fatalf("%d approvals for one write", n)
	}
	other := r
	other.IdempotencyKey = newKey()
	third, _ := e.write(operator("t1"), other)
	if third.Held == nil || third.Held.ID == first.Held.ID {
		t.Fatal("a different write shares the first write's approval")
	}
}

func TestGuardDLP(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		fields  map[string]any
		blocked bool
		finding string
	}{
		{"AWS secret access key", map[string]any{"note": "aws secret access key " + dlptest.AWSSecretAccessKey}, true, dlp.TypeAWSSecretAccessKey},
		{"AWS access key id", map[string]any{"externalRef": dlptest.AWSAccessKeyID}, true, dlp.TypeAWSAccessKeyID},
		{"card number", map[string]any{"paymentNote": "card " + dlptest.CardNumber}, true, dlp.TypeCardNumber},
		{"nested private key", map[string]any{"attachments": []any{map[string]any{"body": dlptest.PrivateKey}}}, true, dlp.TypePrivateKey},
		{"ordinary contact data", map[string]any{
			"email": dlptest.Email, "phone": dlptest.Phone,
			"mailingAddress": map[string]any{"street": "1 Market St", "city": "San Francisco", "postalCode": "94105", "country": "US"},
		}, false, dlp.TypeEmail},
		{"nothing to find", map[string]any{"firstName": "Jane", "lastName": "Doe"}, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			_, err := e.write(operator("t1"), req(crm, crm, "contact", "C-1", c.fields))
			if c.blocked {
				if !errors.Is(err, governance.ErrDLPBlocked) || !errors.Is(err, dlp.ErrBlocked) {
					t.Fatalf("err = %v, want ErrDLPBlocked", err)
				}
				if n := e.fakes[crm].Requests(); n != 0 {
					t.Fatalf("%d requests reached the CRM", n)
				}
				if e.ledger.Len() != 0 {
					t.Fatal("a blocked write was entered in the ledger")
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if n := e.fakes[crm].WriteCount(); n != 1 {
					t.Fatalf("%d writes reached the CRM, want 1", n)
				}
			}
			scans := e.audits(governance.ActionDLPScan)
			if c.finding == "" {
				if len(scans) != 0 {
					t.Fatalf("dlp.scan audited without findings: %+v", scans)
				}
				return
			}
			if len(scans) != 1 {
				t.Fatalf("%d dlp.scan audit records, want 1", len(scans))
			}
			var d struct {
				Findings []finding `json:"findings"`
				Blocked  bool      `json:"blocked"`
			}
			err = json.Unmarshal(scans[0].Details, &d)
			found := slices.ContainsFunc(d.Findings, func(f finding) bool { return f.Type == c.finding && f.Count > 0 })
			if err != nil || !found || d.Blocked != c.blocked {
				t.Fatalf("dlp.scan details %s (%v)", scans[0].Details, err)
			}
			for _, v := range []string{dlptest.AWSSecretAccessKey, dlptest.AWSAccessKeyID, "4111 1111 1111 1111", dlptest.Email} {
				e.mustNotContain(v)
			}
		})
	}
}

type finding struct {
	Type  string `json:"type"`
	Count int    `json:"count"`
}

func TestGuardNeverHoldsABlockedWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, err := e.write(operator("t1"), req(erp2, hosterp, "vendorBill", "VB-1", map[string]any{"memo": "card " + dlptest.CardNumber}))
	if !errors.Is(err, governance.ErrDLPBlocked) {
		t.Fatalf("err = %v, want ErrDLPBlocked", err)
	}
	if n := len(e.records.Approvals()); n != 0 {
		t.Fatalf("%d approvals hold a blocked write", n)
	}
}

// A secret wrapped in an object under its field's name, or named by a name/value pair as
// custom fields are sent, never reaches the vendor: the DLP scan blocks the write.
func TestWriteBlocksSecretsWrappedInObjectsAndPairs(t *testing.T) {
	t.Parallel()
	for name, fields := range map[string]map[string]any{
		"object":   {"password": map[string]any{"value": "hunter2xyz"}},
		"netsuite": {"custentity_api_password": map[string]any{"value": "hunter2xyz"}},
		"pair":     {"customFields": []any{map[string]any{"fieldId": "custentity_api_secret", "value": "hunter2xyz"}}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			_, err := e.write(operator("t1"), req(crm, crm, "opportunity", "O-1", fields))
			if !errors.Is(err, governance.ErrDLPBlocked) {
				got, _ := e.fakes[crm].Get("opportunity", "O-1")
				t.Fatalf("written to the vendor: err=%v record=%v", err, got.Fields)
			}
			if n := e.fakes[crm].WriteCount(); n != 0 {
				t.Fatalf("%d writes", n)
			}
		})
	}
}
