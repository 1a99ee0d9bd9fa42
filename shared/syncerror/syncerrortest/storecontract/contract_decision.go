package storecontract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// runDecisionContract covers the operator's decisions: the approve lease (taken once,
// never taken over: the reconcile settles an expired one; ended only as its marks allow)
// and reject and escalate, each holding only while the row is in the status it was
// decided on.
func runDecisionContract(t *testing.T, newStore func(t *testing.T) syncerror.ClaimStore, ready readyFunc, base time.Time) {
	ctx := context.Background()
	entry := historyAt(base)

	t.Run("approve lease", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		queued := syncerror.NewClaim(syncerrortest.SampleRecord("t1", "e-q"), syncerror.SourceWebhook, "", base)
		mustClaim(t, s, queued)
		l1 := syncerror.Lease{Token: "tok-1", ExpiresAt: base.Add(time.Minute)}
		if _, err := s.BeginApply(ctx, "t1", queued.ID, syncerror.StatusPending, l1, nil, entry("approve"), base); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("approve without a ready proposal: err=%v", err)
		}
		if _, err := s.BeginApply(ctx, "t1", "se_missing", syncerror.StatusPending, l1, nil, entry("approve"), base); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("missing row: err=%v", err)
		}
		c := ready(t, s, "t1", "e-1", base)
		edited := []syncerror.FieldChange{{Path: "shipcountry", Before: "Deutschland", After: "DE"}, {Path: "shipzip", Before: "1O115", After: "10115"}}
		l1.Fix, l1.Key = edited, c.ID+"-k1"
		got, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, l1, edited, entry("approve"), base)
		if err != nil {
			t.Fatal(err)
		}
		want := l1
		want.From = syncerror.StatusPending
		if got.Status != syncerror.StatusApplying || got.Lease == nil || !reflect.DeepEqual(*got.Lease, want) || !reflect.DeepEqual(got.EditedFix, edited) ||
			got.Proposal == nil || len(got.Proposal.Fix) != 1 {
			t.Fatalf("after begin: %+v", got)
		}
		l2 := syncerror.Lease{Token: "tok-2", ExpiresAt: base.Add(3 * time.Minute)}
		if _, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, l2, nil, entry("approve"), base.Add(30*time.Second)); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("lease taken while held: err=%v", err)
		}
		if exp, err := s.ExpiredLeases(ctx, "t1", base.Add(30*time.Second), 10); err != nil || len(exp) != 0 {
			t.Fatalf("expired leases before expiry: %v err=%v", claimIDs(exp), err)
		}
		exp, err := s.ExpiredLeases(ctx, "t1", base.Add(2*time.Minute), 10)
		if err != nil || len(exp) != 1 || exp[0].ID != c.ID || exp[0].Lease == nil || !reflect.DeepEqual(*exp[0].Lease, want) {
			t.Fatalf("expired leases (the sweep looks for the lease's write under its key): %+v err=%v", exp, err)
		}
		// Its write may have landed with the answer lost: only the reconcile settles it.
		if _, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, l2, nil, entry("approve"), base.Add(2*time.Minute)); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("an expired lease taken over by another approve: err=%v", err)
		}
		if err := s.FinishApply(ctx, "t1", c.ID, "tok-2", syncerror.StatusApproved, "", entry("approved"), base); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("finish with a token that never held the row: err=%v", err)
		}
		if err := s.FinishApply(ctx, "t1", c.ID, "tok-1", syncerror.StatusPending, "host ERP answered 503", entry("apply_failed"), base); err != nil {
			t.Fatal(err)
		}
		row, _ := s.Get(ctx, "t1", c.ID)
		if row.Status != syncerror.StatusPending || row.Lease != nil || row.ApplyError != "host ERP answered 503" {
			t.Fatalf("after failed apply: %+v", row)
		}
		// An approve of the AI's fix drops the edit whose write failed: the row never
		// shows (or retries, or reverts) an edit that was not written.
		l3 := syncerror.Lease{Token: "tok-3", ExpiresAt: base.Add(time.Hour)}
		if _, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, l3, nil, entry("approve"), base); err != nil {
			t.Fatal(err)
		}
		if err := s.FinishApply(ctx, "t1", c.ID, "tok-3", syncerror.StatusApproved, "", entry("approved"), base); err != nil {
			t.Fatal(err)
		}
		row, _ = s.Get(ctx, "t1", c.ID)
		if row.Status != syncerror.StatusApproved || row.Lease != nil || row.ApplyError != "" || len(row.History) != 5 || row.EditedFix != nil {
			t.Fatalf("after approve: status %s lease %v err %q history %d edited %v", row.Status, row.Lease, row.ApplyError, len(row.History), row.EditedFix)
		}
		if err := s.Decide(ctx, "t1", c.ID, syncerror.StatusPending, syncerror.StatusRejected, entry("rejected"), base); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("reject an approved row: err=%v", err)
		}
	})

	t.Run("a row marked applied only ends approved", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := ready(t, s, "t1", "e-1", base)
		l1 := syncerror.Lease{Token: "tok-1", ExpiresAt: base.Add(time.Minute)}
		if _, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, l1, nil, entry("approve"), base); err != nil {
			t.Fatal(err)
		}
		w := syncerror.AppliedWrite{Key: c.ID + "-k", At: base.Add(time.Second)}
		if err := s.MarkApplied(ctx, "t1", c.ID, "tok-other", w, base); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("mark with another token: err=%v", err)
		}
		if err := s.MarkApplied(ctx, "t1", "se_missing", "tok-1", w, base); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("mark a missing row: err=%v", err)
		}
		if err := s.MarkApplied(ctx, "t1", c.ID, "tok-1", w, base); err != nil {
			t.Fatal(err)
		}
		row, _ := s.Get(ctx, "t1", c.ID)
		if row.Status != syncerror.StatusApplying || row.Applied == nil || row.Applied.Key != w.Key || !row.Applied.At.Equal(w.At) {
			t.Fatalf("marked row %+v", row)
		}
		if err := s.FinishApply(ctx, "t1", c.ID, "tok-1", syncerror.StatusPending, "late failure", entry("apply_failed"), base); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("an applied row returned to pending: err=%v", err)
		}
		l2 := syncerror.Lease{Token: "tok-2", ExpiresAt: base.Add(time.Hour)}
		if _, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, l2, nil, entry("approve"), base.Add(2*time.Minute)); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("an applied row taken over for another write: err=%v", err)
		}
		if exp, err := s.ExpiredLeases(ctx, "t1", base.Add(2*time.Minute), 10); err != nil || len(exp) != 1 || exp[0].Applied == nil {
			t.Fatalf("the sweep must see the marker: %+v err=%v", exp, err)
		}
		if err := s.FinishApply(ctx, "t1", c.ID, "tok-1", syncerror.StatusApproved, "", entry("approved"), base); err != nil {
			t.Fatal(err)
		}
		if row, _ := s.Get(ctx, "t1", c.ID); row.Status != syncerror.StatusApproved || row.Applied == nil {
			t.Fatalf("completed row %+v", row)
		}
	})

	t.Run("the fix a write carried is kept with its mark, and the lease's goes with the lease", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := ready(t, s, "t1", "e-1", base)
		sent := []syncerror.FieldChange{{Path: "shipzip", Before: "10115", After: "01067"}, {Path: "shipcountry", Before: "Deutschland", After: "DE"}}
		l := syncerror.Lease{Token: "tok-1", ExpiresAt: base.Add(time.Minute), Fix: sent, Key: c.ID + "-k"}
		if _, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, l, nil, entry("approve"), base); err != nil {
			t.Fatal(err)
		}
		// The ownership manifest dropped shipcountry: the row keeps what was written.
		w := syncerror.AppliedWrite{Key: l.Key, At: base.Add(time.Second), Fix: sent[:1]}
		got, err := s.CompleteApply(ctx, "t1", c.ID, "tok-1", w, entry("approved"), base)
		if err != nil {
			t.Fatal(err)
		}
		row, _ := s.Get(ctx, "t1", c.ID)
		for _, r := range []syncerror.Claim{got, row} {
			if r.Lease != nil || r.Applied == nil || r.Applied.Key != l.Key || !reflect.DeepEqual(r.Applied.Fix, sent[:1]) {
				t.Fatalf("completed row: lease %+v applied %+v", r.Lease, r.Applied)
			}
		}
		// A mark alone (the completion did not land) keeps it too.
		d := ready(t, s, "t1", "e-2", base)
		if _, err := s.BeginApply(ctx, "t1", d.ID, syncerror.StatusPending, l, nil, entry("approve"), base); err != nil {
			t.Fatal(err)
		}
		if err := s.MarkApplied(ctx, "t1", d.ID, "tok-1", syncerror.AppliedWrite{Key: l.Key, At: base, Fix: sent}, base); err != nil {
			t.Fatal(err)
		}
		if row, _ := s.Get(ctx, "t1", d.ID); row.Applied == nil || !reflect.DeepEqual(row.Applied.Fix, sent) || row.Lease == nil || !reflect.DeepEqual(row.Lease.Fix, sent) {
			t.Fatalf("marked row: applied %+v lease %+v", row.Applied, row.Lease)
		}
	})

	t.Run("a lease's key and fix are its own, never an earlier lease's", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := ready(t, s, "t1", "e-1", base)
		fix := []syncerror.FieldChange{{Path: "shipcountry", Before: "Deutschland", After: "DE"}}
		for i, l := range []syncerror.Lease{
			{Token: "tok-1", ExpiresAt: base.Add(time.Minute), Fix: fix, Key: "k1"},
			{Token: "tok-2", ExpiresAt: base.Add(time.Minute)}, // a lease without them (a pre-upgrade row's)
			{Token: "tok-3", ExpiresAt: base.Add(time.Minute), Fix: fix, Key: "k3"},
		} {
			got, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, l, nil, entry("approve"), base)
			if err != nil {
				t.Fatal(err)
			}
			writes := syncerror.LeaseWrites(got)
			if got.Lease == nil || got.Lease.Unbound || l.Key != "" && (len(writes) != 1 || writes[0].Key != l.Key) ||
				l.Key == "" && (got.Lease.Key != "" || got.Lease.Fix != nil) {
				t.Fatalf("lease %d: %+v looks for %+v", i, got.Lease, writes)
			}
			if err := s.FinishApply(ctx, "t1", c.ID, l.Token, syncerror.StatusPending, "lease expired", entry("lease_expired"), base); err != nil {
				t.Fatal(err)
			}
		}
	})

	t.Run("a fix's numbers are kept digit for digit", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := ready(t, s, "t1", "e-1", base)
		fix := []syncerror.FieldChange{
			{Path: "externalRef", Before: json.Number("9007199254740992"), After: json.Number("9007199254740993")},
			{Path: "accountNumber", Before: "1", After: "12345678901234567890"},
			{Path: "untyped", After: json.Number("9007199254740993")},
		}
		l := syncerror.Lease{Token: "tok-1", ExpiresAt: base.Add(time.Minute), Fix: fix, Key: "k"}
		got, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, l, fix, entry("approve"), base)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.EditedFix, fix) || !reflect.DeepEqual(got.Lease.Fix, fix) {
			t.Fatalf("begun with\n%#v\nstored edit %#v\nlease %#v", fix, got.EditedFix, got.Lease.Fix)
		}
		w := syncerror.AppliedWrite{Key: "k", At: base, Fix: fix,
			Prior: []syncerror.PriorValue{{Path: "externalRef", Value: json.Number("9007199254740992"), Wrote: json.Number("9007199254740993")}}}
		if _, err := s.CompleteApply(ctx, "t1", c.ID, "tok-1", w, entry("approved"), base); err != nil {
			t.Fatal(err)
		}
		row, _ := s.Get(ctx, "t1", c.ID)
		if row.Applied == nil || !reflect.DeepEqual(row.Applied.Fix, fix) || !reflect.DeepEqual(row.Applied.Prior, w.Prior) || !reflect.DeepEqual(row.EditedFix, fix) {
			t.Fatalf("stored %#v, read back %#v (edit %#v)", w, row.Applied, row.EditedFix)
		}
	})

	t.Run("a row whose fix is marked applied is never reopened", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		// A retry takes it (the re-run is what is left) ...
		c, held := appliedInRetry(t, s, ready, base)
		// ... but no change sends it back to a decision: the record holds its fix.
		for _, to := range []syncerror.Status{syncerror.StatusPending, syncerror.StatusEscalated, syncerror.StatusRejected} {
			if _, err := s.ChangeRetry(ctx, "t1", c.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusRetrying},
				Attempts: held.Retry.Attempts, To: to, Entry: entry("retry_failed")}, base); !errors.Is(err, syncerror.ErrStateChanged) {
				t.Fatalf("an applied row's retry ended %s: err=%v", to, err)
			}
		}
		if _, err := s.ChangeRetry(ctx, "t1", c.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusRetrying},
			Attempts: held.Retry.Attempts, To: syncerror.StatusApproved, Entry: entry("retry_failed")}, base); err != nil {
			t.Fatalf("an applied row's failed retry back to approved: %v", err)
		}
		for _, to := range []syncerror.Status{syncerror.StatusRejected, syncerror.StatusEscalated} {
			if err := s.Decide(ctx, "t1", c.ID, syncerror.StatusApproved, to, entry(string(to)), base); !errors.Is(err, syncerror.ErrStateChanged) {
				t.Fatalf("an applied row decided %s: err=%v", to, err)
			}
		}
		if row, _ := s.Get(ctx, "t1", c.ID); row.Status != syncerror.StatusApproved {
			t.Fatalf("applied row is %s", row.Status)
		}
	})

	// A retry that finds the fix was reverted (written, its marking on the row lost) ends
	// the row as the revert's marking would have: reverted, listed as such, its attempt
	// logged, and no retry starts from it again.
	t.Run("a retry of an applied row may end it reverted", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c, held := appliedInRetry(t, s, ready, base)
		attempt := syncerror.RetryAttempt{At: base, Actor: "a", Result: syncerror.DeliveryPermanent, Code: "RETRY_FIX_REVERTED", Reason: "reverted"}
		row, err := s.ChangeRetry(ctx, "t1", c.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusRetrying},
			Attempts: held.Retry.Attempts, To: syncerror.StatusReverted, LastError: "reverted", Log: []syncerror.RetryAttempt{attempt},
			Entry: entry("revert_found")}, base.Add(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := s.Get(ctx, "t1", c.ID)
		for _, r := range []syncerror.Claim{row, got} {
			if r.Status != syncerror.StatusReverted || r.Applied == nil || len(r.Retry.Log) != 1 || r.Retry.Log[0].Code != "RETRY_FIX_REVERTED" ||
				r.History[len(r.History)-1].Action != "revert_found" || !r.Retry.HeldUntil.IsZero() {
				t.Fatalf("row %s applied %v log %+v history %+v held %v", r.Status, r.Applied, r.Retry.Log, r.History, r.Retry.HeldUntil)
			}
		}
		page, err := s.List(ctx, "t1", syncerror.ListQuery{Status: syncerror.StatusReverted, Limit: 10})
		if err != nil || len(page.Claims) != 1 || page.Claims[0].ID != c.ID {
			t.Fatalf("reverted rows %+v (err %v)", page.Claims, err)
		}
		if _, err := s.ChangeRetry(ctx, "t1", c.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusApproved},
			Attempts: got.Retry.Attempts, To: syncerror.StatusRetrying, Begin: true, NextAt: base.Add(time.Hour), Entry: entry("retry")}, base); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("a retry began from the reverted row: %v", err)
		}
	})

	t.Run("the values before a fix are kept with its mark, each with its type", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := ready(t, s, "t1", "e-1", base)
		l1 := syncerror.Lease{Token: "tok-1", ExpiresAt: base.Add(time.Minute)}
		if _, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, l1, nil, entry("approve"), base); err != nil {
			t.Fatal(err)
		}
		prior := []syncerror.PriorValue{
			{Path: "shipzip", Value: "01067", Wrote: "01069"},
			{Path: "creditLimit", Absent: true, Wrote: json.Number("2500")},
			{Path: "memo", Value: nil, Wrote: "paid"},
			{Path: "apiPassword", Withheld: true, Wrote: "x"},
			{Path: "total", Value: json.Number("129.5"), Wrote: true},
			// Numbers come back digit for digit (json.Number), never through float64.
			{Path: "externalRef", Value: json.Number("9007199254740993"), Wrote: json.Number("9007199254740995")},
		}
		w := syncerror.AppliedWrite{Key: c.ID + "-k", At: base.Add(time.Second), Prior: prior}
		if err := s.MarkApplied(ctx, "t1", c.ID, "tok-1", w, base); err != nil {
			t.Fatal(err)
		}
		if err := s.FinishApply(ctx, "t1", c.ID, "tok-1", syncerror.StatusApproved, "", entry("approved"), base); err != nil {
			t.Fatal(err)
		}
		row, err := s.Get(ctx, "t1", c.ID)
		if err != nil || row.Applied == nil || !reflect.DeepEqual(row.Applied.Prior, prior) {
			t.Fatalf("prior values %#v, want %#v (err=%v)", row.Applied, prior, err)
		}
		// A mark without them (the record could not be read) keeps none.
		d := ready(t, s, "t1", "e-2", base)
		if _, err := s.BeginApply(ctx, "t1", d.ID, syncerror.StatusPending, l1, nil, entry("approve"), base); err != nil {
			t.Fatal(err)
		}
		if err := s.MarkApplied(ctx, "t1", d.ID, "tok-1", syncerror.AppliedWrite{Key: d.ID + "-k", At: base}, base); err != nil {
			t.Fatal(err)
		}
		if row, _ := s.Get(ctx, "t1", d.ID); row.Applied == nil || row.Applied.Prior != nil {
			t.Fatalf("prior values of a mark without them %#v", row.Applied)
		}
	})

	t.Run("concurrent approves take one lease", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := ready(t, s, "t1", "e-1", base)
		n := winners(t, 20, func(i int) (bool, error) {
			l := syncerror.Lease{Token: fmt.Sprintf("tok-%d", i), ExpiresAt: base.Add(time.Minute)}
			_, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, l, nil, entry("approve"), base)
			return won(err)
		})
		if n != 1 {
			t.Fatalf("%d approves took the lease, want 1", n)
		}
	})

	// An escalated row is decided by whoever it was handed to: approve or reject it from
	// escalated. Each change holds only while the row is in the status it was decided on.
	t.Run("approve and reject an escalated row, only while it is escalated", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := ready(t, s, "t1", "e-1", base)
		d := ready(t, s, "t1", "e-2", base)
		for _, id := range []string{c.ID, d.ID} {
			if err := s.Decide(ctx, "t1", id, syncerror.StatusPending, syncerror.StatusEscalated, entry("escalated"), base); err != nil {
				t.Fatal(err)
			}
		}
		l := syncerror.NewLease(base, time.Minute)
		if _, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, l, nil, entry("approve"), base); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("an approve decided on pending took an escalated row: err=%v", err)
		}
		got, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusEscalated, l, nil, entry("approve"), base)
		if err != nil || got.Status != syncerror.StatusApplying || got.Lease == nil || got.Lease.Token != l.Token ||
			got.Lease.Origin() != syncerror.StatusEscalated {
			t.Fatalf("approve an escalated row: %+v %v", got, err)
		}
		// A write that did not happen returns it where it came from: still for an approver.
		if err := s.FinishApply(ctx, "t1", c.ID, l.Token, got.Lease.Origin(), "ERP down", entry("apply_failed"), base); err != nil {
			t.Fatal(err)
		}
		if row, _ := s.Get(ctx, "t1", c.ID); row.Status != syncerror.StatusEscalated || row.Lease != nil || row.ApplyError != "ERP down" {
			t.Fatalf("after a failed write from escalated: %s, lease %+v, error %q", row.Status, row.Lease, row.ApplyError)
		}
		if err := s.Decide(ctx, "t1", d.ID, syncerror.StatusPending, syncerror.StatusRejected, entry("rejected"), base); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("a reject decided on pending moved an escalated row: err=%v", err)
		}
		if err := s.Decide(ctx, "t1", d.ID, syncerror.StatusEscalated, syncerror.StatusRejected, entry("rejected"), base); err != nil {
			t.Fatal(err)
		}
		if row, _ := s.Get(ctx, "t1", d.ID); row.Status != syncerror.StatusRejected {
			t.Fatalf("rejected from escalated: %+v", row)
		}
		if page, err := s.List(ctx, "t1", syncerror.ListQuery{Status: syncerror.StatusEscalated, Limit: 10}); err != nil ||
			len(page.Claims) != 1 || page.Claims[0].ID != c.ID {
			t.Fatalf("escalated list: %d rows, err %v; want the one whose write failed", len(page.Claims), err)
		}
	})

	t.Run("decide reject and escalate from pending only", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := ready(t, s, "t1", "e-1", base)
		d := ready(t, s, "t1", "e-2", base)
		if err := s.Decide(ctx, "t1", c.ID, syncerror.StatusPending, syncerror.StatusRejected, entry("rejected"), base); err != nil {
			t.Fatal(err)
		}
		if err := s.Decide(ctx, "t1", c.ID, syncerror.StatusPending, syncerror.StatusEscalated, entry("escalated"), base); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("escalate a rejected row: err=%v", err)
		}
		if err := s.Decide(ctx, "t1", d.ID, syncerror.StatusPending, syncerror.StatusEscalated, entry("escalated"), base); err != nil {
			t.Fatal(err)
		}
		if err := s.Decide(ctx, "t2", d.ID, syncerror.StatusPending, syncerror.StatusRejected, entry("rejected"), base); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("other tenant: err=%v", err)
		}
		row, _ := s.Get(ctx, "t1", d.ID)
		if row.Status != syncerror.StatusEscalated || row.History[len(row.History)-1] != entry("escalated") {
			t.Fatalf("escalated row %+v", row)
		}
	})
}

// appliedInRetry is a row approved with its fix written (CompleteApply) that a retry holds.
func appliedInRetry(t *testing.T, s syncerror.ClaimStore, ready readyFunc, base time.Time) (c, held syncerror.Claim) {
	t.Helper()
	ctx, entry := context.Background(), historyAt(base)
	c = ready(t, s, "t1", "e-1", base)
	l := syncerror.Lease{Token: "tok-1", ExpiresAt: base.Add(time.Minute)}
	if _, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, l, nil, entry("approve"), base); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CompleteApply(ctx, "t1", c.ID, "tok-1", syncerror.AppliedWrite{Key: "k", At: base}, entry("approved"), base); err != nil {
		t.Fatal(err)
	}
	held, err := s.ChangeRetry(ctx, "t1", c.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusApproved},
		To: syncerror.StatusRetrying, Begin: true, NextAt: base.Add(time.Minute), Entry: entry("retry")}, base)
	if err != nil {
		t.Fatal(err)
	}
	return c, held
}
