package storecontract

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// runCompleteApplyContract holds CompleteApply to what MarkApplied then FinishApply
// (approved) leave, in one write (issue 37 §1): the row approved, its lease gone, its
// apply error cleared, the write's key, time and prior values kept, one history entry;
// refused, changing nothing, where the token no longer holds the row.
func runCompleteApplyContract(t *testing.T, newStore func(t *testing.T) syncerror.ClaimStore, ready readyFunc, base time.Time) {
	ctx := context.Background()
	entry := historyAt(base)
	t.Run("complete apply marks and approves in one write", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		lease := syncerror.Lease{Token: "tok-1", ExpiresAt: base.Add(time.Minute)}
		w := syncerror.AppliedWrite{Key: "k-1", At: base.Add(time.Second),
			Prior: []syncerror.PriorValue{{Path: "shipcountry", Value: "Deutschland", Wrote: "DE"}}}
		// The same approve through the two writes, as the reference.
		two := ready(t, s, "t1", "e-two", base)
		one := ready(t, s, "t1", "e-one", base)
		for _, id := range []string{two.ID, one.ID} {
			if _, err := s.BeginApply(ctx, "t1", id, syncerror.StatusPending, lease, nil, entry("approve"), base); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.MarkApplied(ctx, "t1", two.ID, "tok-1", w, base.Add(2*time.Second)); err != nil {
			t.Fatal(err)
		}
		if err := s.FinishApply(ctx, "t1", two.ID, "tok-1", syncerror.StatusApproved, "", entry("approved"), base.Add(2*time.Second)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CompleteApply(ctx, "t1", one.ID, "tok-other", w, entry("approved"), base.Add(2*time.Second)); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("complete under another token: err=%v", err)
		}
		if row, _ := s.Get(ctx, "t1", one.ID); row.Status != syncerror.StatusApplying || row.Applied != nil {
			t.Fatalf("a refused complete changed the row: %s applied %+v", row.Status, row.Applied)
		}
		if _, err := s.CompleteApply(ctx, "t1", "se_missing", "tok-1", w, entry("approved"), base); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("complete of a missing row: err=%v", err)
		}
		written, err := s.CompleteApply(ctx, "t1", one.ID, "tok-1", w, entry("approved"), base.Add(2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := s.Get(ctx, "t1", one.ID)
		// The row it returns is the row as stored: the approve answers with it, unread.
		if !reflect.DeepEqual(written, got) {
			t.Fatalf("CompleteApply returned\n%+v\nthe row reads\n%+v", written, got)
		}
		want, _ := s.Get(ctx, "t1", two.ID)
		if got.Status != syncerror.StatusApproved || got.Lease != nil || got.ApplyError != "" || !reflect.DeepEqual(got.Applied, want.Applied) ||
			!reflect.DeepEqual(got.History, want.History) || !got.UpdatedAt.Equal(want.UpdatedAt) {
			t.Fatalf("completed in one write:\n%+v\nin two:\n%+v", got, want)
		}
		if _, err := s.CompleteApply(ctx, "t1", one.ID, "tok-1", w, entry("approved"), base.Add(3*time.Second)); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("complete of an approved row: err=%v", err)
		}
		p, err := s.List(ctx, "t1", syncerror.ListQuery{Status: syncerror.StatusApproved, Limit: 10})
		if err != nil || len(p.Claims) != 2 {
			t.Fatalf("approved listing %v err=%v", claimIDs(p.Claims), err)
		}
	})
	t.Run("a proposal's numbers read back with their digits", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := syncerror.NewClaim(syncerrortest.SampleRecord("t1", "e-digits"), syncerror.SourceWebhook, "", base)
		mustClaim(t, s, c)
		got, err := s.BeginDiagnosis(ctx, "t1", c.ID, base, base)
		if err != nil {
			t.Fatal(err)
		}
		// The AI's answer is read with UseNumber (shared/ai): what an approve writes is the
		// fix as read back here, so a float64 on the way wrote ...567000 or a rounded amount.
		p := syncerrortest.SampleProposal(syncerror.InferenceID(c.ID, got.DiagnosisAttempts), base)
		p.Fix = []syncerror.FieldChange{
			{Path: "accountnumber", Before: json.Number("1"), After: json.Number("12345678901234567890")},
			{Path: "balance", Before: nil, After: json.Number("123456789012345.6789")},
		}
		if err := s.CompleteDiagnosis(ctx, "t1", c.ID, got.DiagnosisAttempts, p, base); err != nil {
			t.Fatal(err)
		}
		row, err := s.Get(ctx, "t1", c.ID)
		if err != nil || row.Proposal == nil || len(row.Proposal.Fix) != 2 {
			t.Fatalf("row %+v err=%v", row.Proposal, err)
		}
		for i, want := range []string{"12345678901234567890", "123456789012345.6789"} {
			if b, _ := json.Marshal(row.Proposal.Fix[i].After); string(b) != want {
				t.Errorf("fix[%d].after read back as %s, written %s", i, b, want)
			}
		}
	})
}
