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

// loopEnv runs flows through the real guard, with trails, into the vendor fakes over HTTP.
type loopEnv struct {
	t       *testing.T
	fakes   map[connector.System]*fakesystem.Server
	x       *flow.Executor
	store   *flow.DynamoStore
	records *governancetest.Store
	seq     int
}

// newLoopEnv serves a fake of each system, lets each writer own the fields entries give
// it (so ownership lets every hop through and only the loop check can stop a value) and
// stores flows.
func newLoopEnv(t *testing.T, systems []connector.System, entries []governance.Entry, flows []flow.Flow) *loopEnv {
	t.Helper()
	ctx := context.Background()
	e := &loopEnv{t: t, fakes: map[connector.System]*fakesystem.Server{}, records: &governancetest.Store{}}
	mux := http.NewServeMux()
	for _, sys := range systems {
		e.fakes[sys] = fakesystem.New(sys)
		mux.Handle("/fake/"+string(sys)+"/", http.StripPrefix("/fake/"+string(sys), e.fakes[sys]))
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	reg := connector.NewRegistry(fakeConfigs{srv.URL}, time.Hour)
	overrides := &governancetest.Overrides{}
	if err := overrides.PutOverrides(ctx, "t1", entries); err != nil {
		t.Fatal(err)
	}
	ledger := &governancetest.Ledger{}
	clock := func() time.Time { return t0 }
	g, err := governance.NewGuard(governance.Deps{
		Manifests: &governance.TenantManifests{Default: governance.DefaultManifest(), Overrides: overrides},
		Ledger:    ledger, Records: e.records, Connectors: governance.RegistryConnectors(reg),
		Scanner: dlp.NewScanner(), Audit: &audit.Log{Store: &audittest.Store{}, Redactor: plainRedactor{}, Now: clock}, Now: clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.store = newStore(t)
	e.x = &flow.Executor{Store: e.store, Guard: g, SyncErrors: &reporter{}, Now: clock, XRefs: e.store,
		Finder: registryFinder{reg}, Trails: governance.Trails{Ledger: ledger}}
	for _, f := range flows {
		if errs := f.Validate(); len(errs) > 0 {
			t.Fatalf("flow %s: %v", f.ID, errs)
		}
		if err := e.store.PutFlow(ctx, "t1", f); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// hop runs the change a system reports for its record, with the record's fields as the
// system holds them (as its change report carries them), and returns the one run it started.
func (e *loopEnv) hop(sys connector.System, entity, id string) flow.Run {
	e.t.Helper()
	rec, ok := e.fakes[sys].Get(entity, id)
	if !ok {
		e.t.Fatalf("%s has no %s %s", sys, entity, id)
	}
	e.seq++
	ctx := context.Background()
	ids, _, err := e.x.Handle(ctx, "t1", sys, flow.Event{EventID: "ev-" + string(rune('a'+e.seq)), Entity: entity,
		RecordID: id, ChangedAt: t0, Fields: rec.Fields})
	if err != nil || len(ids) != 1 {
		e.t.Fatalf("%s %s/%s: %v %v", sys, entity, id, ids, err)
	}
	r, err := e.store.Run(ctx, "t1", ids[0])
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

// A phone number that goes round three systems whose records have ids of their own: the
// host ERP customer is upserted into the CRM by an external id (the CRM keeps it under
// the Account id it returns), the CRM Account is created in erp2 (which returns a new
// GUID), and erp2 writes it back to the host ERP customer found by its entity id. Each
// system reports its change under its own id, so the trail must be kept under the id the
// target returned; kept under the upsert key or an empty id, the value would start
// afresh at each of those hops and the loop would pass once.
func TestThreeHopLoopThroughAnUpsertAndACreateBreaksOnItsFirstRound(t *testing.T) {
	e := newLoopEnv(t, []connector.System{connector.SystemHostERP, connector.SystemCRM, connector.SystemERP2}, []governance.Entry{
		{Entity: "account", Field: "Phone", Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins},
		{Entity: "customers", Field: "phoneNumber", Owner: connector.SystemCRM, Policy: governance.PolicySourceWins},
		{Entity: "customers", Field: "number", Owner: connector.SystemCRM, Policy: governance.PolicySourceWins},
		{Entity: "customer", Field: "phone", Owner: connector.SystemERP2, Policy: governance.PolicySourceWins},
	}, []flow.Flow{
		{ID: "erp-to-crm", Enabled: true, Source: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"},
			Target:  flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
			Mapping: map[string]string{"Phone": "phone"}, Match: &flow.Match{By: flow.MatchExternalID, Field: "ERP_Customer_Id__c", Create: true}},
		{ID: "crm-to-erp2", Enabled: true, Source: flow.Endpoint{System: connector.SystemCRM, Entity: "Account"},
			Target:  flow.Endpoint{System: connector.SystemERP2, Entity: "customers"},
			Mapping: map[string]string{"phoneNumber": "Phone", "number": "ERP_Customer_Id__c"}, Match: &flow.Match{By: flow.MatchNone, Create: true}},
		{ID: "erp2-to-erp", Enabled: true, Source: flow.Endpoint{System: connector.SystemERP2, Entity: "customers"},
			Target:  flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"},
			Mapping: map[string]string{"phone": "phoneNumber"}, Match: &flow.Match{By: flow.MatchLookup, Field: "entityId", SourceField: "number"}},
	})
	hosterp := e.fakes[connector.SystemHostERP]
	hosterp.Seed("customer", "C-9001", map[string]any{"entityId": "C-9001", "phone": "+49 40 1"})

	upserted := e.hop(connector.SystemHostERP, "customer", "C-9001")
	if upserted.Outcome != flow.OutcomeWritten || upserted.TargetID == "" || upserted.TargetID == "C-9001" {
		t.Fatalf("upsert run %+v, want written to the Account id the CRM returned", upserted)
	}
	created := e.hop(connector.SystemCRM, "Account", upserted.TargetID)
	if created.Outcome != flow.OutcomeWritten || created.TargetAction != flow.ActionCreated || created.TargetID == "" {
		t.Fatalf("create run %+v, want a new erp2 customer", created)
	}
	back := e.hop(connector.SystemERP2, "customers", created.TargetID)
	if back.Outcome != flow.OutcomeLoopBroken {
		t.Fatalf("return leg %+v, want the loop broken on its first round", back)
	}
	if len(hosterp.Writes()) != 0 {
		t.Fatalf("host ERP written: %+v", hosterp.Writes())
	}
	loops := e.records.Loops()
	if len(loops) != 1 {
		t.Fatalf("%d loop detections, want 1", len(loops))
	}
	l := loops[0]
	want := "hosterp/customer/C-9001.phone → crm/Account/" + upserted.TargetID + ".Phone → erp2/customers/" + created.TargetID + ".phoneNumber"
	if l.Caller != connector.SystemERP2 || l.Target != connector.SystemHostERP || !strings.Contains(l.BreakingCondition, want) {
		t.Fatalf("loop %+v, want its breaking condition to name the chain %s", l, want)
	}
}

// Mailchimp answers a write with the member's subscriber hash but lists its changes by
// the member's address (connector/mailchimp.go: idKey email_address): the trail of a
// member upserted by its address is found from either, so the echo of a value a flow put
// there still carries its hops, and the way back is broken.
func TestLoopThroughAMailchimpUpsertBreaksAlthoughItsChangesNameTheAddress(t *testing.T) {
	const list, email = "L1", "Jane.Doe@example.com"
	e := newLoopEnv(t, []connector.System{connector.SystemHostERP, connector.SystemMarketing}, []governance.Entry{
		{Entity: list, Field: "PHONE", Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins},
		{Entity: "customer", Field: "phone", Owner: connector.SystemMarketing, Policy: governance.PolicySourceWins},
	}, []flow.Flow{
		{ID: "erp-to-marketing", Enabled: true, Source: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"},
			Target:  flow.Endpoint{System: connector.SystemMarketing, Entity: list},
			Mapping: map[string]string{"PHONE": "phone"}, Match: &flow.Match{By: flow.MatchExternalID, Field: connector.MailchimpEmail, SourceField: "email", Create: true}},
		{ID: "marketing-to-erp", Enabled: true, Source: flow.Endpoint{System: connector.SystemMarketing, Entity: list},
			Target:  flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"},
			Mapping: map[string]string{"phone": "PHONE"}, Match: &flow.Match{By: flow.MatchLookup, Field: "email", SourceField: connector.MailchimpEmail}},
	})
	e.fakes[connector.SystemHostERP].Seed("customer", "C-7", map[string]any{"email": email, "phone": "+49 40 7"})

	upserted := e.hop(connector.SystemHostERP, "customer", "C-7")
	if upserted.Outcome != flow.OutcomeWritten || upserted.TargetID != connector.SubscriberHash(email) {
		t.Fatalf("upsert run %+v, want written to the member's hash", upserted)
	}
	back := e.hop(connector.SystemMarketing, list, email)
	if back.Outcome != flow.OutcomeLoopBroken || len(e.fakes[connector.SystemHostERP].Writes()) != 0 {
		t.Fatalf("return leg %+v, want the loop broken", back)
	}
}
