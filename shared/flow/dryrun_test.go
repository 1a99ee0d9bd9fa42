package flow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/identity"
)

// registryReader is flow.Reader and flow.Describer over the connectors, as the wiring
// builds them.
type registryReader struct{ reg *connector.Registry }

func (r registryReader) Get(ctx context.Context, tenantID string, sys connector.System, entity, id string) (connector.Record, error) {
	c, err := r.reg.Client(ctx, tenantID, sys)
	if err != nil {
		return connector.Record{}, err
	}
	return c.Get(ctx, entity, id)
}

func (r registryReader) Entities(ctx context.Context, tenantID string, sys connector.System) ([]connector.Entity, error) {
	c, err := r.reg.Client(ctx, tenantID, sys)
	if err != nil {
		return nil, err
	}
	return c.Entities(ctx)
}

func (r registryReader) Fields(ctx context.Context, tenantID string, sys connector.System, entity string) ([]connector.Field, error) {
	c, err := r.reg.Client(ctx, tenantID, sys)
	if err != nil {
		return nil, err
	}
	return c.Fields(ctx, entity)
}

func (e *matchEnv) service() *flow.Service {
	rd := registryReader{e.reg}
	return &flow.Service{Store: e.store, Exec: e.x, Evaluator: e.guard, Reader: rd, Describer: rd, MetaCache: e.store,
		Now: e.clock, Audit: &audit.Log{Store: &audittest.Store{}, Redactor: plainRedactor{}, Now: e.clock}}
}

// dryRun posts a dry run of the env's flow as an admin of t1.
func dryRun(t *testing.T, s *flow.Service, body string) (int, flow.DryRun, string) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/api/settings/flows/erp-customer-to-crm/dry-run", bytes.NewBufferString(body))
	r.SetPathValue("id", "erp-customer-to-crm")
	r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{TenantID: "t1", Subject: "admin", Roles: []string{identity.RoleAdmin}}))
	w := httptest.NewRecorder()
	s.DryRunHandler().ServeHTTP(w, r)
	var out flow.DryRun
	_ = json.Unmarshal(w.Body.Bytes(), &out)
	return w.Code, out, w.Body.String()
}

// writesAt counts the requests of the CRM fake that are not reads.
func writesAt(byMethod map[string]int) int {
	n := 0
	for m, c := range byMethod {
		if m != http.MethodGet {
			n += c
		}
	}
	return n
}

// TestDryRunWritesNothing: a dry run answers where the write would go (an upsert by the
// external id before the counterpart exists, an update of the linked Account after), the
// field diff against the Account's current values and the guard's verdict per field, and
// sends nothing but GETs to the target, stores no run and no cross-reference entry.
func TestDryRunWritesNothing(t *testing.T) {
	e := newMatchEnv(t, matches["externalId"])
	s := e.service()
	sample := `{"recordId":"C-9001","fields":{"companyName":"Nordwind Handel GmbH","phone":"+49 40 1","email":"x@example.com"}}`

	code, out, body := dryRun(t, s, sample)
	if code != http.StatusOK || out.Decision != governance.VerdictWritten || out.Target.Action != flow.DryUpsert || out.Target.ID != "" {
		t.Fatalf("first dry run = %d %s", code, body)
	}
	if out.Payload["Phone"] != "+49 40 1" || out.Payload["Name"] != "Nordwind Handel GmbH" || len(out.Payload) != 2 {
		t.Fatalf("payload = %v", out.Payload)
	}
	if n := writesAt(e.crm.RequestsByMethod()); n != 0 || e.crm.WriteCount() != 0 {
		t.Fatalf("the dry run sent %d non-GET requests (%v)", n, e.crm.RequestsByMethod())
	}
	runs, _, err := e.store.Runs(context.Background(), "t1", flow.RunQuery{Limit: 10})
	if err != nil || len(runs) != 0 {
		t.Fatalf("the dry run stored runs: %v %v", runs, err)
	}
	src := flow.Ref{System: connector.SystemHostERP, Entity: "customer", ID: "C-9001"}
	if x, err := e.store.XRefsOf(context.Background(), "t1", src); err != nil || len(x) != 0 {
		t.Fatalf("the dry run touched the cross-reference: %v %v", x, err)
	}

	run := e.change("C-9001", "+49 40 1")
	before := maps.Clone(e.crm.RequestsByMethod())
	code, out, body = dryRun(t, s, `{"recordId":"C-9001","fields":{"companyName":"Nordwind Handel GmbH","phone":"+49 40 2"}}`)
	if code != http.StatusOK || out.Target.Action != flow.DryUpdate || out.Target.ID != run.TargetID || out.Decision != governance.VerdictWritten {
		t.Fatalf("dry run of a linked record = %d %s", code, body)
	}
	changed := map[string]bool{}
	for _, f := range out.Fields {
		changed[f.Field] = f.Changed
		if f.Verdict != governance.VerdictWritten {
			t.Fatalf("field %s: verdict %s", f.Field, f.Verdict)
		}
	}
	if !changed["Phone"] || changed["Name"] {
		t.Fatalf("field diff = %v, want Phone changed and Name not", changed)
	}
	after := e.crm.RequestsByMethod()
	if writesAt(after) != writesAt(before) {
		t.Fatalf("the dry run sent writes: before %v, after %v", before, after)
	}
}

// A dry run of a record that does not pass the filter says so; one of a flow that does
// not exist is a 404; a body without a record id is a 400.
func TestDryRunRefusals(t *testing.T) {
	e := newMatchEnv(t, matches["lookup"])
	s := e.service()
	if code, _, body := dryRun(t, s, `{"fields":{}}`); code != http.StatusBadRequest {
		t.Fatalf("no record id = %d %s", code, body)
	}
	if code, out, body := dryRun(t, s, `{"recordId":"C-1","fields":{"other":"x"}}`); code != http.StatusOK || out.Decision != flow.DecisionSkipped {
		t.Fatalf("no mapped field = %d %s", code, body)
	}
	if code, _, body := dryRun(t, s, `{"recordId":"C-404"}`); code != http.StatusNotFound || !strings.Contains(body, "vendor_not_found") {
		t.Fatalf("a source record that cannot be read = %d %s", code, body)
	}
}

// TestDryRunOfTheEditedFlow: a body carrying the flow as edited runs that definition, not
// the stored one (issue 35 §5): the stored flow maps Phone, the edited one maps Name and
// Description instead, so the answer writes Name alone and names Description's source
// field, which the record lacks, as missing. The stored flow is left as it was, and an
// edited flow that would not save is refused with the save's field errors under "flow.".
func TestDryRunOfTheEditedFlow(t *testing.T) {
	e := newMatchEnv(t, matches["externalId"])
	s := e.service()
	edited := `{"source":{"system":"hosterp","entity":"customer"},"target":{"system":"crm","entity":"Account"},` +
		`"mapping":{"Name":"companyName","Description":"notes"},"match":{"by":"externalId","field":"ERP_Customer_Id__c","create":true}}`
	code, out, body := dryRun(t, s, `{"recordId":"C-9002","fields":{"companyName":"Nordwind","phone":"+49 40 9"},"flow":`+edited+`}`)
	if code != http.StatusOK || out.Decision != governance.VerdictWritten {
		t.Fatalf("dry run of the edited flow = %d %s", code, body)
	}
	if _, ok := out.Payload["Phone"]; ok || out.Payload["Name"] != "Nordwind" {
		t.Fatalf("payload = %v, want the edited mapping's Name and not the stored Phone", out.Payload)
	}
	if len(out.Missing) != 1 || out.Missing[0] != (flow.MissingField{Field: "Description", SourceField: "notes"}) {
		t.Fatalf("missing = %+v, want Description ← notes", out.Missing)
	}
	stored, err := e.store.Flow(context.Background(), "t1", "erp-customer-to-crm")
	if err != nil || stored.Mapping["Phone"] != "phone" {
		t.Fatalf("the stored flow changed: %+v %v", stored, err)
	}

	code, _, body = dryRun(t, s, `{"recordId":"C-9002","fields":{},"flow":{"source":{"system":"hosterp","entity":"customer"},`+
		`"target":{"system":"crm","entity":"Account"},"mapping":{}}}`)
	if code != http.StatusBadRequest || !strings.Contains(body, `"flow.mapping"`) {
		t.Fatalf("an edited flow that would not save = %d %s", code, body)
	}
}

// The stored flow's dry run names the mapped fields the sample lacks too.
func TestDryRunNamesMissingFields(t *testing.T) {
	e := newMatchEnv(t, matches["externalId"])
	code, out, body := dryRun(t, e.service(), `{"recordId":"C-9003","fields":{"companyName":"Nordwind"}}`)
	if code != http.StatusOK || len(out.Missing) != 1 || out.Missing[0].Field != "Phone" || out.Missing[0].SourceField != "phone" {
		t.Fatalf("dry run = %d %s", code, body)
	}
}
