package flow_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/audit/audittest"
	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/flow"
	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/identity"
)

// A flow run whose write the guard holds for an ownership approval ends when an approver
// decides: approved, the run writes it (a create linked in the cross-reference, its claim
// given up); denied, it ends rejected with its claim released. Runs of the record that
// meet its claim meanwhile wait, then go on.

var heldMatches = map[string]flow.Match{
	"none":   {By: flow.MatchNone, Create: true},
	"lookup": matches["lookup"],
}

// holdPhones makes the CRM own Account.Phone under require_approval: every write of the
// host ERP flow carrying it (its creates too) is held.
func (e *matchEnv) holdPhones(hold bool) {
	e.t.Helper()
	phone := governance.Entry{Entity: "account", Field: "Phone", Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins}
	if hold {
		phone = governance.Entry{Entity: "account", Field: "Phone", Owner: connector.SystemCRM, Policy: governance.PolicyRequireApproval}
	}
	if err := e.overrides.PutOverrides(context.Background(), "t1", []governance.Entry{
		{Entity: "account", Field: "Name", Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins},
		{Entity: "account", Field: "ERP_Customer_Id__c", Owner: connector.SystemHostERP, Policy: governance.PolicySourceWins}, phone,
	}); err != nil {
		e.t.Fatal(err)
	}
}

// decide approves or denies an approval as an approver does, in the governance panel.
func (e *matchEnv) decide(approvalID, how string) {
	e.t.Helper()
	gov := &governance.Service{Records: e.records, Guard: e.guard, Now: e.clock,
		Audit: &audit.Log{Store: &audittest.Store{}, Redactor: plainRedactor{}, Now: e.clock}}
	h := map[string]http.Handler{"approve": gov.ApproveHandler(), "deny": gov.DenyHandler()}[how]
	r := httptest.NewRequest(http.MethodPost, "/api/governance/approvals/"+approvalID+"/"+how, nil)
	r.SetPathValue("id", approvalID)
	r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{TenantID: "t1", Subject: "victor", Roles: []string{identity.RoleApprover}}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		e.t.Fatalf("%s %s = %d %s", how, approvalID, w.Code, w.Body)
	}
}

// later moves the clock on by d and runs the redrive once.
func (e *matchEnv) later(d time.Duration) {
	e.t.Helper()
	e.mu.Lock()
	e.now = e.now.Add(d)
	e.mu.Unlock()
	if _, err := e.x.Redrive(context.Background(), "t1"); err != nil {
		e.t.Fatal(err)
	}
}

func (e *matchEnv) entry(record string) (flow.XRef, error) {
	return e.store.XRef(context.Background(), "t1", flow.Ref{System: connector.SystemHostERP, Entity: "customer", ID: record},
		flow.Endpoint{System: connector.SystemCRM, Entity: "Account"})
}

// heldCreate posts a new customer whose create is held, and a second change of it, which
// waits on the held run's claim.
func heldCreate(t *testing.T, m flow.Match, record string) (e *matchEnv, held, waiting flow.Run) {
	e = newMatchEnv(t, m)
	e.holdPhones(true)
	held = e.change(record, "+1")
	if held.Outcome != flow.OutcomeHeld || held.ApprovalID == "" || e.crm.WriteCount() != 0 {
		t.Fatalf("run %+v, %d CRM writes; want held, nothing written", held, e.crm.WriteCount())
	}
	waiting = e.change(record, "+2")
	if waiting.Outcome != flow.OutcomeRetrying || !strings.Contains(waiting.Decision, "waiting") {
		t.Fatalf("second change %+v; want it waiting on the held run's claim", waiting)
	}
	return e, held, waiting
}

// TestHeldCreateIsWrittenOnceApproved: the approver approves the held create; the redrive
// writes it, links the Account as created and gives up the claim, and the change that
// waited updates that Account: one Account.
func TestHeldCreateIsWrittenOnceApproved(t *testing.T) {
	for name, m := range heldMatches {
		t.Run(name, func(t *testing.T) {
			e, held, waiting := heldCreate(t, m, "C-9301")
			e.later(time.Hour) // undecided: checked, still held
			if r := e.run(held.ID); r.Outcome != flow.OutcomeHeld || e.crm.WriteCount() != 0 {
				t.Fatalf("run before the approval %+v", r)
			}
			e.decide(held.ApprovalID, "approve")
			if e.crm.WriteCount() != 0 {
				t.Fatal("the release wrote; the run is to write it")
			}
			e.later(flow.MaxHeldRecheck)
			r := e.run(held.ID)
			if r.Outcome != flow.OutcomeWritten || r.TargetAction != flow.ActionCreated || r.TargetID == "" || r.NextAttemptAt != nil {
				t.Fatalf("held run after the approval %+v; want written, created", r)
			}
			x, err := e.entry("C-9301")
			if err != nil || x.State != flow.XRefLinked || x.Target.ID != r.TargetID || x.Action != flow.ActionCreated {
				t.Fatalf("entry %+v, %v; want linked to %s as created", x, err, r.TargetID)
			}
			e.later(flow.ClaimWait)
			if w := e.run(waiting.ID); w.Outcome != flow.OutcomeHeld || w.TargetID != r.TargetID {
				t.Fatalf("the waiting change %+v; want its update of %s held in turn", w, r.TargetID)
			}
			if acc, ok := e.crm.Get("Account", r.TargetID); !ok || acc.Fields["Phone"] != "+1" || e.crm.WriteCount() != 1 {
				t.Fatalf("Account %+v, %d CRM writes; want the one created", acc, e.crm.WriteCount())
			}
		})
	}
}

// TestHeldCreateDeniedReleasesTheClaim: the approver denies the held create; the run ends
// rejected, saying so, its claim released (nothing was made), and the change that waited
// creates the Account once the CRM no longer holds its writes.
func TestHeldCreateDeniedReleasesTheClaim(t *testing.T) {
	for name, m := range heldMatches {
		t.Run(name, func(t *testing.T) {
			e, held, waiting := heldCreate(t, m, "C-9302")
			e.decide(held.ApprovalID, "deny")
			e.holdPhones(false)
			e.later(flow.MaxHeldRecheck)
			r := e.run(held.ID)
			if r.Outcome != flow.OutcomeRejected || !strings.Contains(r.Decision, "denied") || r.NextAttemptAt != nil || e.crm.WriteCount() != 0 {
				t.Fatalf("held run after the denial %+v, %d CRM writes; want rejected as denied, nothing written", r, e.crm.WriteCount())
			}
			if x, err := e.entry("C-9302"); !errors.Is(err, flow.ErrNotFound) && (x.ClaimedBy == held.ID || x.Creating) {
				t.Fatalf("entry %+v, %v; want the denied run's claim released", x, err)
			}
			e.later(flow.ClaimWait)
			if w := e.run(waiting.ID); w.Outcome != flow.OutcomeWritten || w.TargetAction != flow.ActionCreated || e.crm.WriteCount() != 1 {
				t.Fatalf("the waiting change %+v, %d CRM writes; want it to create the Account", w, e.crm.WriteCount())
			}
		})
	}
}

// stopAfterWrite fails the save of a written run once, as a function that stopped
// between the run's write (and link) and storing how it ended.
type stopAfterWrite struct {
	*flow.DynamoStore
	mu      sync.Mutex
	stopped bool
}

func (s *stopAfterWrite) SaveRun(ctx context.Context, r flow.Run, attempts int) error {
	s.mu.Lock()
	stop := !s.stopped && r.Outcome == flow.OutcomeWritten
	s.stopped = s.stopped || stop
	s.mu.Unlock()
	if stop {
		return errors.New("function stopped")
	}
	return s.DynamoStore.SaveRun(ctx, r, attempts)
}

// TestApprovedCreateThatStoppedIsNotCreatedAgain: the attempt after the approval creates
// the Account, links it and stops before saving the run; the redrive takes the run over
// once its lease ends and ends it written, to that Account, creating nothing more.
func TestApprovedCreateThatStoppedIsNotCreatedAgain(t *testing.T) {
	for name, m := range heldMatches {
		t.Run(name, func(t *testing.T) {
			e := newMatchEnv(t, m)
			e.holdPhones(true)
			e.x.Store = &stopAfterWrite{DynamoStore: e.store}
			held := e.change("C-9303", "+1")
			e.decide(held.ApprovalID, "approve")
			e.later(flow.MaxHeldRecheck)
			if r := e.run(held.ID); r.Outcome != flow.OutcomeHeld || e.crm.WriteCount() != 1 {
				t.Fatalf("run after the stopped attempt %+v, %d CRM writes; want still held, one create", r, e.crm.WriteCount())
			}
			e.later(flow.DefaultLease + time.Second)
			r := e.run(held.ID)
			x, _ := e.entry("C-9303")
			if r.Outcome != flow.OutcomeWritten || r.TargetID == "" || x.Target.ID != r.TargetID || e.crm.WriteCount() != 1 {
				t.Fatalf("run %+v, entry %+v, %d CRM writes; want written to the one Account created", r, x, e.crm.WriteCount())
			}
		})
	}
}
