package governance_test

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"testing"

	"github.com/syncassist/syncassist/shared/governance"
	"github.com/syncassist/syncassist/shared/identity"
)

// Four eyes: the identity whose write was held may not release it; another approver may.
func TestReleaseNeedsAnotherApprover(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.holdOptIn("t1", "C-1") // held for alice
	h := e.api()
	self := &caller{"t1", "alice", []string{identity.RoleApprover}}
	w := serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", self)
	if code, _ := problemCode(t, w); w.Code != http.StatusForbidden || code != governance.CodeFourEyes {
		t.Fatalf("self-release: %d %s", w.Code, code)
	}
	if got := approvalStatus(t, e, "t1", a.ID); got.Status != governance.StatusPending || e.fakes[crm].WriteCount() != 0 {
		t.Fatalf("after a refused self-release: %+v, %d writes", got, e.fakes[crm].WriteCount())
	}
	if w := serve(h, http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", approverT1); w.Code != http.StatusOK {
		t.Fatalf("another approver: %d %s", w.Code, w.Body)
	}
}

// Once released, the original operation retried with the same idempotency key writes
// through (the target replays the released write) instead of being held again; once
// denied, it stays refused.
func TestRetryAfterTheDecisionOfAHold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		decision string
		want     error
	}{{"approve", nil}, {"deny", governance.ErrApprovalDenied}} {
		t.Run(tc.decision, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			r := req(crm, crm, "contact", "C-1", map[string]any{"marketingOptIn": true})
			res, err := e.write(operator("t1"), r)
			if !errors.Is(err, governance.ErrPendingApproval) {
				t.Fatalf("hold: %v", err)
			}
			if w := serve(e.api(), http.MethodPost, "/api/governance/approvals/"+res.Held.ID+"/"+tc.decision, approverT1); w.Code != http.StatusOK {
				t.Fatalf("%s: %d %s", tc.decision, w.Code, w.Body)
			}
			_, err = e.write(operator("t1"), r)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("retry after %s: %v, want %v", tc.decision, err, tc.want)
			}
			want := 0
			if tc.decision == "approve" {
				want = 1 // the release; the retry is replayed by its key
			}
			if got := e.fakes[crm].WriteCount(); got != want {
				t.Fatalf("%d writes applied at the CRM, want %d", got, want)
			}
		})
	}
}

// The requester is matched by any of the approver's names, case-insensitively: a held
// write requested by "Alice" cannot be released by alice signed in with another case.
func TestReleaseFourEyesIgnoresCase(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.holdOptIn("t1", "C-1") // held for alice
	self := &caller{"t1", "ALICE", []string{identity.RoleApprover}}
	w := serve(e.api(), http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", self)
	if code, _ := problemCode(t, w); w.Code != http.StatusForbidden || code != governance.CodeFourEyes {
		t.Fatalf("self-release in capitals: %d %s", w.Code, code)
	}
}

// The four-eyes check fails closed: when the approval cannot be read, nothing is released.
func TestReleaseFourEyesFailsClosed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.holdOptIn("t1", "C-1")
	s := &governance.Service{Records: unreadable{e.records}, Guard: e.guard, Audit: e.auditLog, Now: e.clock.Now}
	h := identity.ValidateGuestContext(identity.RequireApproverRole(s.ApproveHandler()))
	mux := http.NewServeMux()
	mux.Handle(governance.PatternApprove, h)
	self := &caller{"t1", "alice", []string{identity.RoleApprover}}
	w := serve(mux, http.MethodPost, "/api/governance/approvals/"+a.ID+"/approve", self)
	if w.Code != http.StatusServiceUnavailable {
		t.Fatalf("release with the approval unreadable: %d %s", w.Code, w.Body)
	}
	if got := approvalStatus(t, e, "t1", a.ID); got.Status != governance.StatusPending || e.fakes[crm].WriteCount() != 0 {
		t.Fatalf("after a release that could not check four eyes: %+v, %d writes", got, e.fakes[crm].WriteCount())
	}
}

type unreadable struct{ governance.RecordStore }

func (unreadable) GetApproval(context.Context, string, string) (governance.PendingApproval, error) {
	return governance.PendingApproval{}, errors.New("dynamodb: connection reset")
}

// An approval releases the write the approver saw, nothing else: a later write under the
// same idempotency key to another record, of other values, from another source or of
// another entity is refused (ErrApprovalMismatch) and reaches no system, whatever the
// approval's state. The key is the caller's to derive; the guard does not trust it to
// name the content.
func TestApprovalReleasesOnlyTheApprovedWrite(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		change func(*governance.WriteRequest)
	}{
		{"another record", func(r *governance.WriteRequest) { r.RecordID = "C-2" }},
		{"other values", func(r *governance.WriteRequest) { r.Fields = map[string]any{"marketingOptIn": true} }},
		{"another field", func(r *governance.WriteRequest) {
			r.Fields = map[string]any{"marketingOptIn": false, "email": "x@example.com"}
		}},
		{"another source", func(r *governance.WriteRequest) { r.Source = erp2 }},
		{"another entity spelling", func(r *governance.WriteRequest) { r.Entity = "Contact" }},
	} {
		for _, decision := range []string{"approve", ""} {
			t.Run(tc.name+"/"+cmp.Or(decision, "pending"), func(t *testing.T) {
				t.Parallel()
				e := newEnv(t)
				e.seed(crm, "contact", "C-2")
				r := req(crm, crm, "contact", "C-1", map[string]any{"marketingOptIn": false})
				res, err := e.write(operator("t1"), r)
				if !errors.Is(err, governance.ErrPendingApproval) {
					t.Fatalf("hold: %v", err)
				}
				if decision != "" {
					if w := serve(e.api(), http.MethodPost, "/api/governance/approvals/"+res.Held.ID+"/"+decision, approverT1); w.Code != http.StatusOK {
						t.Fatalf("%s: %d %s", decision, w.Code, w.Body)
					}
				}
				writes := e.totalWrites()
				other := r
				tc.change(&other)
				if _, err := e.write(operator("t1"), other); !errors.Is(err, governance.ErrApprovalMismatch) {
					t.Fatalf("another write under the approved key: %v, want ErrApprovalMismatch", err)
				}
				if got := e.totalWrites(); got != writes {
					t.Fatalf("%d writes applied after the refusal, want %d", got, writes)
				}
				if got, _ := e.fakes[crm].Get("contact", "C-2"); got.Fields["marketingOptIn"] != nil {
					t.Fatalf("C-2 written: %v", got.Fields)
				}
				if _, err := e.write(operator("t1"), r); decision == "approve" && err != nil {
					t.Fatalf("the approved write itself, retried: %v", err)
				}
			})
		}
	}
}

// An approval stored before approvals kept the hash of their values is compared on what
// it holds: its request, values included. The retry of its own write still goes through;
// another write under its key does not.
func TestApprovalWithoutHashComparedOnItsRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := req(crm, crm, "contact", "C-1", map[string]any{"marketingOptIn": false, "score": 7.5})
	sum := sha256.Sum256([]byte(string(r.Target) + "\x00" + r.IdempotencyKey))
	old := governance.PendingApproval{
		ID: "ap_" + hex.EncodeToString(sum[:16]), Time: t0, Tenant: "t1", Entity: r.Entity,
		DeclaredOwner: marketing, Caller: crm, Target: crm, Resource: "crm/contact/C-1",
		Reason: governance.ReasonOwnership, Status: governance.StatusApproved, Request: r,
		Fields: []string{"marketingOptIn"}, RequestedBy: "alice", DecidedBy: "bob", DecidedAt: t0,
	}
	if err := e.records.PutApproval(context.Background(), old); err != nil {
		t.Fatal(err)
	}
	other := r
	other.Fields = map[string]any{"marketingOptIn": true, "score": 7.5}
	if _, err := e.write(operator("t1"), other); !errors.Is(err, governance.ErrApprovalMismatch) {
		t.Fatalf("other values under an old approval's key: %v, want ErrApprovalMismatch", err)
	}
	if _, err := e.write(operator("t1"), r); err != nil {
		t.Fatalf("the old approval's own write: %v", err)
	}
}
