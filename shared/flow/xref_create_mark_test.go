package flow_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/identity"
)

// A claim whose Creating mark says a create may have reached the target outlives the run
// that made it: the run may end (a re-run ends after its one attempt, a run after its
// last), but the next run must still look for the record, or refuse, never create again.

// TestRerunLostCreateIsNotCreatedAgain: a sync error's re-run sends the create and loses
// its answer; the re-run ends, and the retry's next re-run finds the record by its match
// key (linked as created), or, matching by nothing, refuses: the CRM holds one record.
func TestRerunLostCreateIsNotCreatedAgain(t *testing.T) {
	for name, c := range map[string]struct {
		m    flow.Match
		want flow.Outcome
	}{
		"lookup": {matches["lookup"], flow.OutcomeWritten},
		"none":   {flow.Match{By: flow.MatchNone, Create: true}, flow.OutcomeFailed},
	} {
		t.Run(name, func(t *testing.T) {
			e := newMatchEnv(t, c.m)
			e.dropCreates = 1
			src := &sourceReader{fields: map[string]any{"companyName": "Nordwind Handel GmbH", "phone": "+49 40 9"}}
			ctx := context.Background()
			q := flow.RerunRequest{FlowID: "erp-customer-to-crm", RecordID: "C-9101", Attempt: "se_1-a1", SyncErrorID: "se_1"}
			first, err := e.x.Rerun(ctx, src, "t1", q)
			if err != nil || first.Outcome != flow.OutcomeRetrying || e.crm.WriteCount() != 1 {
				t.Fatalf("first re-run %+v, %v, %d CRM writes; want retrying after one create", first, err, e.crm.WriteCount())
			}
			q.Attempt = "se_1-a2"
			next, err := e.x.Rerun(ctx, src, "t1", q)
			if err != nil || next.Outcome != c.want || e.crm.WriteCount() != 1 {
				t.Fatalf("next re-run %+v, %v, %d CRM writes; want %s and one record", next, err, e.crm.WriteCount(), c.want)
			}
			if c.want == flow.OutcomeWritten && next.Run.TargetAction != flow.ActionCreated {
				t.Fatalf("next re-run %+v; want the record found and linked as created", next.Run)
			}
		})
	}
}

// failingLinks fails the first n LinkXRef calls, as a store outage right after a create.
type failingLinks struct {
	flow.XRefStore
	mu sync.Mutex
	n  int
}

func (f *failingLinks) LinkXRef(ctx context.Context, tenantID string, e flow.XRef) error {
	f.mu.Lock()
	fail := f.n > 0
	f.n--
	f.mu.Unlock()
	if fail {
		return errors.New("link store down")
	}
	return f.XRefStore.LinkXRef(ctx, tenantID, e)
}

// TestCreatedButNeverLinkedIsNotCreatedAgain: the create landed but its link could not be
// stored on any attempt, so the run fails; the next change of the record, matching by
// nothing, is refused rather than create a second record.
func TestCreatedButNeverLinkedIsNotCreatedAgain(t *testing.T) {
	e := newMatchEnv(t, flow.Match{By: flow.MatchNone, Create: true})
	e.x.XRefs = &failingLinks{XRefStore: e.store, n: 2}
	e.x.Backoff = []time.Duration{time.Minute}
	r := e.change("C-9102", "+1")
	e.redriveAll()
	if r = e.run(r.ID); r.Outcome != flow.OutcomeFailed || e.crm.WriteCount() != 1 {
		t.Fatalf("run %+v, %d CRM writes; want failed after one create", r, e.crm.WriteCount())
	}
	next := e.change("C-9102", "+2")
	e.redriveAll()
	if next = e.run(next.ID); next.Outcome != flow.OutcomeFailed || e.crm.WriteCount() != 1 {
		t.Fatalf("next run %+v, %d CRM writes; want it refused and one record", next, e.crm.WriteCount())
	}
}

// hookGuard calls hook before the nth guarded write, n from 1.
type hookGuard struct {
	flow.Guard
	mu   sync.Mutex
	n    int
	hook func(n int)
}

func (h *hookGuard) Write(ctx context.Context, id identity.Identity, req governance.WriteRequest) (governance.Result, error) {
	h.mu.Lock()
	h.n++
	n := h.n
	h.mu.Unlock()
	h.hook(n)
	return h.Guard.Write(ctx, id, req)
}

// TestLateRunOfAnEventIsLeftToTheRedrive: an event's runs are attempted one after the
// other under leases taken when it arrived; a run reached after its lease ran out (an
// earlier run's create was slow) is the redrive's, which may be attempting it already, and
// two attempts of one run both find nothing and both create. It is left to the redrive,
// so each counterpart is created once.
func TestLateRunOfAnEventIsLeftToTheRedrive(t *testing.T) {
	e := newMatchEnv(t, matches["lookup"])
	leads := flow.Flow{ID: "erp-customer-to-crm-lead", Enabled: true, Source: flow.Endpoint{System: connector.SystemHostERP, Entity: "customer"},
		Target: flow.Endpoint{System: connector.SystemCRM, Entity: "Lead"}, Mapping: map[string]string{"Company": "companyName"},
		Match: &flow.Match{By: flow.MatchLookup, Field: "ERP_Customer_Id__c", Create: true}}
	if err := e.store.PutFlow(context.Background(), "t1", leads); err != nil {
		t.Fatal(err)
	}
	e.x.Guard = &hookGuard{Guard: e.guard, hook: func(n int) {
		switch n {
		case 1: // the event's first create takes longer than the lease
			e.mu.Lock()
			e.now = e.now.Add(flow.DefaultLease + time.Second)
			e.mu.Unlock()
		case 2: // the redrive runs meanwhile
			if _, err := e.x.Redrive(context.Background(), "t1"); err != nil {
				t.Error(err)
			}
		}
	}}
	if _, _, err := e.x.Handle(context.Background(), "t1", connector.SystemHostERP, flow.Event{EventID: "ev-late", Entity: "customer",
		RecordID: "C-9103", ChangedAt: t0, Fields: map[string]any{"companyName": "Nordwind Handel GmbH", "phone": "+1"}}); err != nil {
		t.Fatal(err)
	}
	e.redriveAll()
	ids, err := registryFinder{e.reg}.Find(context.Background(), "t1", connector.SystemCRM, "Lead", "ERP_Customer_Id__c", "C-9103")
	if err != nil || len(ids) != 1 || len(e.accounts("C-9103")) != 1 {
		t.Fatalf("Leads %v (%v), Accounts %v; want one of each (one CRM create each)", ids, err, e.accounts("C-9103"))
	}
}
