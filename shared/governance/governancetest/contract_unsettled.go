package governancetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/governance"
)

// unsettledContract: an approval whose release lost its answer is moved releasing →
// unsettled, listed under that status (the Dynamo index is keyed by it) and not under
// pending, not denied from pending, and taken again (unsettled → releasing) by the
// approve that settles it, or by a take-over of that release; an approver's "not
// written" sends it back to pending.
func unsettledContract(t *testing.T, s governance.RecordStore) {
	ctx := context.Background()
	a := SampleApproval("t1", 1)
	if err := s.PutApproval(ctx, a); err != nil {
		t.Fatal(err)
	}
	at := base.Add(time.Minute)
	if _, err := s.DecideApproval(ctx, "t1", a.ID, governance.StatusPending, governance.StatusReleasing, "bob", at); err != nil {
		t.Fatal(err)
	}
	got, err := s.DecideApproval(ctx, "t1", a.ID, governance.StatusReleasing, governance.StatusUnsettled, "bob", at)
	if err != nil || got.Status != governance.StatusUnsettled || got.DecidedBy != "bob" {
		t.Fatalf("releasing→unsettled: %+v, %v", got, err)
	}
	if got, err := s.GetApproval(ctx, "t1", a.ID); err != nil || got.Status != governance.StatusUnsettled {
		t.Fatalf("an unsettled approval read back: %+v, %v", got, err)
	}
	// The store's index is keyed by status: the unsettled listing has it, the pending one not.
	for status, want := range map[governance.ApprovalStatus]int{governance.StatusUnsettled: 1, governance.StatusPending: 0} {
		p, err := s.ListApprovals(ctx, governance.ApprovalQuery{Tenant: "t1", Status: status, Reason: a.Reason, Limit: 10})
		if err != nil || len(p.Items) != want {
			t.Fatalf("%s listing: %+v, %v", status, p.Items, err)
		}
	}
	if _, err := s.DecideApproval(ctx, "t1", a.ID, governance.StatusPending, governance.StatusDenied, "carol", at); !errors.Is(err, governance.ErrStateChanged) {
		t.Fatalf("deny of an unsettled approval: err=%v, want ErrStateChanged", err)
	}
	if got, err := s.DecideApproval(ctx, "t1", a.ID, governance.StatusUnsettled, governance.StatusReleasing, "carol", at); err != nil ||
		got.Status != governance.StatusReleasing || got.DecidedBy != "carol" {
		t.Fatalf("unsettled→releasing: %+v, %v", got, err)
	}
	// A take-over of the settling release (the approve then judges it settling: retaken).
	later := at.Add(time.Hour)
	if got, err := s.RetakeRelease(ctx, "t1", a.ID, later, "dave", later); err != nil || got.Status != governance.StatusReleasing || got.DecidedBy != "dave" {
		t.Fatalf("retake of a settling release: %+v, %v", got, err)
	}
	// An approver who says the write was not made sends it back to pending.
	if _, err := s.DecideApproval(ctx, "t1", a.ID, governance.StatusReleasing, governance.StatusUnsettled, "dave", later); err != nil {
		t.Fatal(err)
	}
	if got, err := s.DecideApproval(ctx, "t1", a.ID, governance.StatusUnsettled, governance.StatusPending, "", time.Time{}); err != nil ||
		got.Status != governance.StatusPending {
		t.Fatalf("unsettled→pending: %+v, %v", got, err)
	}
	if got, err := s.GetApproval(ctx, "t1", a.ID); err != nil || got.Status != governance.StatusPending {
		t.Fatalf("a settled approval read back: %+v, %v", got, err)
	}
}
