package decisions_test

import (
	"context"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/decisions"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/queue"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

func TestGroupPending(t *testing.T) {
	claim := func(id, class string, fix ...syncerror.FieldChange) syncerror.Claim {
		c := syncerror.NewClaim(syncerrortest.SampleRecord("t1", id), syncerror.SourceWebhook, "", clock)
		c.Diagnosis = syncerror.DiagnosisReady
		c.Proposal = &syncerror.Proposal{Class: class, Fix: fix}
		return c
	}
	de := syncerror.FieldChange{Path: "shipcountry", Before: "Deutschland", After: "DE"}
	zip := syncerror.FieldChange{Path: "shipzip", Before: "1O115", After: "10115"}
	deOtherBefore := syncerror.FieldChange{Path: "shipcountry", Before: "Germany", After: "DE"}
	approved := claim("e-approved", "value", de)
	approved.Status = syncerror.StatusApproved
	failed := claim("e-8", "value")
	failed.Diagnosis, failed.Proposal = syncerror.DiagnosisFailed, nil
	queued := claim("e-9", "value")
	queued.Diagnosis, queued.Proposal = syncerror.DiagnosisQueued, nil
	groups, needs := (&decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{}}}}).GroupPending(context.Background(), []syncerror.Claim{
		claim("e-1", "value", zip, de),
		claim("e-2", "value", de),
		claim("e-3", "value", deOtherBefore), // the before value differs per record: same group
		claim("e-4", "value", de, zip),       // same changes in another order: same group as e-1
		claim("e-5", "missing", de),          // another class: its own group
		claim("e-7", "value", de),
		claim("e-6", "connection"), // nothing to write: never grouped
		approved,                   // not pending: never grouped
		failed,                     // diagnosis failed: a person decides
		queued,                     // not diagnosed yet: neither grouped nor counted
	})
	if needs.Count != 2 || needs.ErrorIDs[0] != "e-6" || needs.ErrorIDs[1] != "e-8" || len(needs.IDs) != 2 {
		t.Fatalf("needs a person %+v", needs)
	}
	// Largest first; the two-change group was seen first but is smaller.
	if len(groups) != 3 {
		t.Fatalf("%d groups: %+v", len(groups), groups)
	}
	if g := groups[0]; g.Count != 3 || g.Class != "value" || len(g.Changes) != 1 || g.ErrorIDs[0] != "e-2" || g.ErrorIDs[2] != "e-7" || len(g.RecordIDs) != 3 {
		t.Fatalf("largest group %+v", g)
	}
	if g := groups[1]; g.Count != 2 || len(g.Changes) != 2 || g.Changes[0].Path != "shipcountry" || g.Sample.ErrorID != "e-1" {
		t.Fatalf("two-change group %+v", g)
	}
	if groups[2].Class != "missing" || groups[0].Key == groups[2].Key {
		t.Fatalf("class must split groups: %+v", groups[2])
	}
}

// A group approve writes each member's own fix (FixOf): on a row that keeps an edit (its
// write held for an ownership approval), the edit, not the AI's fix. The console confirms
// "this writes <the group's changes> to each of these records", so such a row grouped by
// the AI's fix would have the edit written under a confirmation that showed another value.
func TestGroupPendingGroupsByTheFixTheApproveWrites(t *testing.T) {
	de := syncerror.FieldChange{Path: "shipcountry", Before: "Deutschland", After: "DE"}
	claim := func(id string) syncerror.Claim {
		c := syncerror.NewClaim(syncerrortest.SampleRecord("t1", id), syncerror.SourceWebhook, "", clock)
		c.Diagnosis = syncerror.DiagnosisReady
		c.Proposal = &syncerror.Proposal{Class: "value", Fix: []syncerror.FieldChange{de}}
		return c
	}
	kept := claim("e-kept")
	kept.EditedFix = []syncerror.FieldChange{{Path: "shipcountry", Before: "Deutschland", After: "AT"},
		{Path: "creditlimit", Before: nil, After: "99999"}}
	kept.History = append(kept.History, syncerror.HistoryEntry{At: clock, Actor: "alice", Action: "approve"},
		syncerror.HistoryEntry{At: clock, Actor: "alice", Action: syncerror.ActionApplyHeld})
	if syncerror.EditKept(kept) == "" {
		t.Fatal("the row does not keep its edit; the test is wrong")
	}
	svc := &decisions.Service{Service: &queue.Service{Service: &policy.Service{Operator: &syncerror.Operator{}}}}
	groups, _ := svc.GroupPending(context.Background(), []syncerror.Claim{claim("e-1"), kept, claim("e-2")})
	for _, g := range groups {
		for _, id := range g.ErrorIDs {
			if id != "e-kept" {
				continue
			}
			if len(g.Changes) != 2 || g.Changes[0].Path != "creditlimit" || g.Changes[1].After != "AT" || g.Count != 1 {
				t.Fatalf("the row keeping an edit is grouped under %+v, which is not the fix its approve writes", g.Changes)
			}
		}
	}
	if len(groups) != 2 || groups[0].Count != 2 {
		t.Fatalf("groups %+v, want the two AI fixes together and the kept edit apart", groups)
	}
}
