package flow_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/connector/fakesystem"
	"github.com/syncassist/syncassist/shared/dlp"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/governance/governancetest"
)

// A phone number that goes round three systems whose records have ids of their own: the
// host ERP customer is upserted into the CRM by an external id (the CRM keeps it under
// the Account id it returns), the CRM Account is created in erp2 (which returns a new
// GUID), and erp2 writes it back to the host ERP customer found by its entity id. Each
// system reports its change under its own id, so the trail must be kept under the id the
// target returned; kept under the upsert key or an empty id, the value would start
// afresh at each of those hops and the loop would pass once.
func TestThreeHopLoopThroughAnUpsertAndACreateBreaksOnItsFirstRound(t *testing.T) {
	ctx := context.Background()
	fakes := map[connector.System]*fakesystem.Server{}
	mux := http.NewServeMux()
	for _, sys := range []connector.System{connector.SystemHostERP, connector.SystemCRM, connector.SystemERP2} {
		fakes[sys] = fakesystem.New(sys)
		mux.Handle("/fake/"+string(sys)+"/", http.StripPrefix("/fake/"+string(sys), fakes[sys]))
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	reg := connector.NewRegistry(fakeConfigs{srv.URL}, time.Hour)
	fakes[connector.SystemHostERP].Seed("customer", "C-9001", map[string]any{"entityId": "C-9001", "phone": "+49 40 1"})

	// Each flow's writer owns the fields it writes, so ownership lets every hop through
	// and only the loop check can stop the value.
	overrides := &governancetest.Overrides{}
	if err := overrides.PutOverrides(ctx, "t1", []governance.Entry{
		{Entity: "account", Field: "Phone", Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins},
		{Entity: "customers", Field: "phoneNumber", Owner: connector.SystemCRM, Policy: governance.PolicySourceWins},
		{Entity: "customers", Field: "number", Owner: connector.SystemCRM, Policy: governance.PolicySourceWins},
		{Entity: "customer", Field: "phone", Owner: connector.SystemERP2, Policy: governance.PolicySourceWins},
	}); err != nil {
		t.Fatal(err)
	}
	ledger, records := &governancetest.Ledger{}, &governancetest.Store{}
	clock := func() time.Time { return t0 }
	g, err := governance.NewGuard(governance.Deps{
		Manifests: &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: overrides},
		Ledger:    ledger, Records: records, Connectors: governance.RegistryConnectors(reg),
		Scanner: dlp.NewScanner(), Audit: &audit.Log{Store: &audittest.Store{}, Redactor: plainRedactor{}, Now: clock}, Now: clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	store := newStore(t)
	x := &flow.Executor{Store: store, Guard: g, SyncErrors: &reporter{}, Now: clock, XRefs: store,
		Finder: registryFinder{reg}, Trails: governance.Trails{Ledger: ledger}}
	for _, f := range []flow.Flow{
		{ID: "erp-to-crm", Enabled: true, Source: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"},
			Target:  flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
			Mapping: map[string]string{"Phone": "phone"}, Match: &flow.Match{By: flow.MatchExternalID, Field: "ERP_Customer_Id__c", Create: true}},
		{ID: "crm-to-erp2", Enabled: true, Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
			Target:  flow.Endpoint{System: connector.SystemERP2, Entity: "customers"},
			Mapping: map[string]string{"phoneNumber": "Phone", "number": "ERP_Customer_Id__c"}, Match: &flow.Match{By: flow.MatchNone, Create: true}},
		{ID: "erp2-to-erp", Enabled: true, Source: flow.Endpoint{System: connector.SystemERP2, Entity: "customers"},
			Target:  flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"},
			Mapping: map[string]string{"phone": "phoneNumber"}, Match: &flow.Match{By: flow.MatchLookup, Field: "entityId", SourceField: "number"}},
	} {
		if errs := f.Validate(); len(errs) > 0 {
			t.Fatalf("flow %s: %v", f.ID, errs)
		}
		if err := store.PutFlow(ctx, "t1", f); err != nil {
			t.Fatal(err)
		}
	}

	// hop runs the event a system reports for its record and returns the one run it started.
	seq := 0
	hop := func(sys connector.System, entity, id string, fields map[string]any) flow.Run {
		t.Helper()
		seq++
		ids, _, err := x.Handle(ctx, "t1", sys, flow.Event{EventID: "ev-" + string(rune('a'+seq)), Entity: entity,
			RecordID: id, ChangedAt: t0, Fields: fields})
		if err != nil || len(ids) != 1 {
			t.Fatalf("%s %s/%s: %v %v", sys, entity, id, ids, err)
		}
		r, err := store.Run(ctx, "t1", ids[0])
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// reported is the record as its system holds it, as its change report carries it.
	reported := func(sys connector.System, entity, id string) map[string]any {
		t.Helper()
		rec, ok := fakes[sys].Get(entity, id)
		if !ok {
			t.Fatalf("%s has no %s %s", sys, entity, id)
		}
		return rec.Fields
	}

	upserted := hop(connector.SystemHostERP, "customer", "C-9001", reported(connector.SystemHostERP, "customer", "C-9001"))
	if upserted.Outcome != flow.OutcomeWritten || upserted.TargetID == "" || upserted.TargetID == "C-9001" {
		t.Fatalf("upsert run %+v, want written to the Account id the CRM returned", upserted)
	}
	created := hop(connector.SystemCRM, "Account", upserted.TargetID, reported(connector.SystemCRM, "Account", upserted.TargetID))
	if created.Outcome != flow.OutcomeWritten || created.TargetAction != flow.ActionCreated || created.TargetID == "" {
		t.Fatalf("create run %+v, want a new erp2 customer", created)
	}
	back := hop(connector.SystemERP2, "customers", created.TargetID, reported(connector.SystemERP2, "customers", created.TargetID))
	if back.Outcome != flow.OutcomeLoopBroken {
		t.Fatalf("return leg %+v, want the loop broken on its first round", back)
	}
	if rec, _ := fakes[connector.SystemHostERP].Get("customer", "C-9001"); len(fakes[connector.SystemHostERP].Writes()) != 0 {
		t.Fatalf("host ERP written: %+v (%+v)", fakes[connector.SystemHostERP].Writes(), rec)
	}
	loops := records.Loops()
	if len(loops) != 1 {
		t.Fatalf("%d loop detections, want 1", len(loops))
	}
	l := loops[0]
	want := "hosterp/customer/C-9001.phone → crm/Account/" + upserted.TargetID + ".Phone → erp2/customers/" + created.TargetID + ".phoneNumber"
	if l.Caller != connector.SystemERP2 || l.Target != connector.SystemHostERP || !strings.Contains(l.BreakingCondition, want) {
		t.Fatalf("loop %+v, want its breaking condition to name the chain %s", l, want)
	}
}
