package storecontract

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// runEditContract holds the operator's edit (edited_fix) to the write it came with: a row
// holds an edit only while the approve that carries it is applying, or once that write
// happened. A write that did not happen (refused, failed, its lease ended unwritten) takes
// its edit with it as it returns the row to a decision: the next bodyless approve (a bulk
// item, an auto rule) writes the AI's proposal, so what the bulk preview, the approval
// policy and the detail read as the row's fix must be the proposal too. (The attempt stays
// in the row's history: the approve's entry names the edit.)
func runEditContract(t *testing.T, newStore func(t *testing.T) syncerror.ClaimStore, ready readyFunc, base time.Time) {
	ctx := context.Background()
	entry := historyAt(base)
	edit := []syncerror.FieldChange{{Path: "shipcountry", Before: "Deutschland", After: "AT"}}

	t.Run("an edit stays only with the write that carried it", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for i, tc := range []struct {
			from   syncerror.Status
			action string
		}{
			{syncerror.StatusPending, "apply_failed"},
			{syncerror.StatusPending, "lease_expired"},
			{syncerror.StatusEscalated, "apply_refused"},
		} {
			c := ready(t, s, "t1", "e-"+string(rune('a'+i)), base)
			if tc.from == syncerror.StatusEscalated {
				if err := s.Decide(ctx, "t1", c.ID, syncerror.StatusPending, syncerror.StatusEscalated, entry("escalated"), base); err != nil {
					t.Fatal(err)
				}
			}
			l := syncerror.Lease{Token: "tok-" + c.ID, ExpiresAt: base.Add(time.Minute), Fix: edit, Key: c.ID + "-k"}
			if got, err := s.BeginApply(ctx, "t1", c.ID, tc.from, l, edit, entry("approve"), base); err != nil || !reflect.DeepEqual(got.EditedFix, edit) {
				t.Fatalf("%s: begin: edit %#v err=%v", tc.action, got.EditedFix, err)
			}
			if err := s.FinishApply(ctx, "t1", c.ID, l.Token, tc.from, "host ERP: 400 INVALID_FLD_VALUE", entry(tc.action), base); err != nil {
				t.Fatal(err)
			}
			row, err := s.Get(ctx, "t1", c.ID)
			if err != nil {
				t.Fatal(err)
			}
			if row.Status != tc.from || row.EditedFix != nil || row.Proposal == nil || row.Proposal.Fix[0].After != "DE" {
				t.Fatalf("%s from %s: status %s, edit %#v left on the row (proposal %+v)", tc.action, tc.from, row.Status, row.EditedFix, row.Proposal)
			}
			if n := len(row.History); n < 2 || row.History[n-2].Action != "approve" || row.History[n-1].Action != tc.action {
				t.Fatalf("%s: history %+v", tc.action, row.History)
			}
		}

		// An edit whose write happened stays beside the AI's fix. The approve that wrote it stopped before completing; a takeover (or the
		// reconcile) ends the marked row approved with FinishApply.
		c := ready(t, s, "t1", "e-written", base)
		l := syncerror.Lease{Token: "tok-1", ExpiresAt: base.Add(time.Minute), Fix: edit, Key: c.ID + "-k"}
		if _, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, l, edit, entry("approve"), base); err != nil {
			t.Fatal(err)
		}
		if err := s.MarkApplied(ctx, "t1", c.ID, l.Token, syncerror.AppliedWrite{Key: l.Key, At: base, Fix: edit}, base); err != nil {
			t.Fatal(err)
		}
		if err := s.FinishApply(ctx, "t1", c.ID, l.Token, syncerror.StatusApproved, "", entry("approved"), base); err != nil {
			t.Fatal(err)
		}
		row, _ := s.Get(ctx, "t1", c.ID)
		if row.Status != syncerror.StatusApproved || !reflect.DeepEqual(row.EditedFix, edit) || row.Proposal == nil || row.Proposal.Fix[0].After != "DE" {
			t.Fatalf("approved with an edit: status %s edit %#v proposal %+v", row.Status, row.EditedFix, row.Proposal)
		}
	})

	t.Run("a held or unverified write keeps its edit, listed as read", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for i, tc := range []struct {
			from   syncerror.Status
			action string
		}{
			{syncerror.StatusPending, syncerror.ActionApplyHeld},
			{syncerror.StatusEscalated, syncerror.ActionLeaseUnverified},
		} {
			c := ready(t, s, "t1", "k-"+string(rune('a'+i)), base)
			if tc.from == syncerror.StatusEscalated {
				if err := s.Decide(ctx, "t1", c.ID, syncerror.StatusPending, syncerror.StatusEscalated, entry("escalated"), base); err != nil {
					t.Fatal(err)
				}
			}
			l := syncerror.Lease{Token: "tok-" + c.ID, ExpiresAt: base.Add(time.Minute), Fix: edit, Key: c.ID + "-k", From: tc.from}
			if _, err := s.BeginApply(ctx, "t1", c.ID, tc.from, l, edit, entry("approve"), base); err != nil {
				t.Fatal(err)
			}
			if err := s.FinishApply(ctx, "t1", c.ID, l.Token, tc.from, "held or unverified", entry(tc.action), base); err != nil {
				t.Fatal(err)
			}
			row, err := s.Get(ctx, "t1", c.ID)
			if err != nil {
				t.Fatal(err)
			}
			if row.Status != tc.from || !reflect.DeepEqual(row.EditedFix, edit) || syncerror.EditKept(row) != tc.action ||
				!reflect.DeepEqual(syncerror.FixOf(row), edit) {
				t.Fatalf("%s: status %s, edit %#v, kept %q, fix %#v", tc.action, row.Status, row.EditedFix, syncerror.EditKept(row), syncerror.FixOf(row))
			}
			p, err := s.List(ctx, "t1", syncerror.ListQuery{Status: tc.from, Limit: 10})
			if err != nil || len(p.Claims) != 1 {
				t.Fatalf("list %s: %v err=%v", tc.from, claimIDs(p.Claims), err)
			}
			if listed := p.Claims[0]; syncerror.EditKept(listed) != tc.action || !reflect.DeepEqual(syncerror.FixOf(listed), edit) {
				t.Fatalf("%s: listed, kept %q fix %#v", tc.action, syncerror.EditKept(listed), syncerror.FixOf(listed))
			}
			// Its next write carries it (or another edit); ending unwritten takes it off.
			l2 := syncerror.Lease{Token: "tok2-" + c.ID, ExpiresAt: base.Add(time.Minute), Fix: edit, Key: c.ID + "-k", From: tc.from}
			if _, err := s.BeginApply(ctx, "t1", c.ID, tc.from, l2, edit, entry("approve"), base); err != nil {
				t.Fatal(err)
			}
			if err := s.FinishApply(ctx, "t1", c.ID, l2.Token, tc.from, "denied", entry("apply_refused"), base); err != nil {
				t.Fatal(err)
			}
			if row, _ := s.Get(ctx, "t1", c.ID); row.EditedFix != nil || syncerror.EditKept(row) != "" {
				t.Fatalf("%s, then refused: edit %#v kept %q", tc.action, row.EditedFix, syncerror.EditKept(row))
			}
		}
	})
}
