package storecontract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/automation"
	"github.com/syncassist/syncassist/shared/syncerror/policy"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// AssistStore is a store of rows and the documents of the approval policy, the learning and
// the automation; the memory store and the DynamoDB store are both.
type AssistStore interface {
	syncerror.ClaimStore
	syncerror.AssistStore
}

// RunAssistStoreContract runs the cases every AssistStore must pass: the documents'
// optimistic versions, listing, the policy, the learning and the auto-apply cap through
// them, the revert transition and the revert's mark. newStore returns an empty store for
// each case, its own: the cases run side by side (t.Parallel).
func RunAssistStoreContract(t *testing.T, newStore func(t *testing.T) AssistStore) {
	ctx := context.Background()
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)

	t.Run("documents are versioned: one winner per version", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if _, err := s.GetDoc(ctx, "t1", "~x"); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("missing doc: %v", err)
		}
		d, err := s.PutDoc(ctx, "t1", syncerror.Doc{Key: "~x", Body: json.RawMessage(`{"a":1}`)}, now)
		if err != nil || d.Version != 1 {
			t.Fatalf("create: %+v %v", d, err)
		}
		if _, err := s.PutDoc(ctx, "t1", syncerror.Doc{Key: "~x", Body: json.RawMessage(`{}`)}, now); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("second create: %v", err)
		}
		n := winners(t, 6, func(i int) (bool, error) {
			_, err := s.PutDoc(ctx, "t1", syncerror.Doc{Key: "~x", Version: 1, Body: json.RawMessage(fmt.Sprintf(`{"a":%d}`, i))}, now)
			return won(err)
		})
		if n != 1 {
			t.Fatalf("%d writers won version 1", n)
		}
		got, err := s.GetDoc(ctx, "t1", "~x")
		if err != nil || got.Version != 2 || !got.UpdatedAt.Equal(now) {
			t.Fatalf("after: %+v %v", got, err)
		}
		if _, err := s.GetDoc(ctx, "t2", "~x"); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("another tenant sees the doc: %v", err)
		}
		if err := s.DeleteDoc(ctx, "t1", "~x", 1); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("stale delete: %v", err)
		}
		if err := s.DeleteDoc(ctx, "t1", "~x", 2); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteDoc(ctx, "t1", "~x", 2); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("delete twice: %v", err)
		}
	})

	t.Run("a document key never reaches a row", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := syncerror.NewClaim(syncerrortest.SampleRecord("t1", "e-1"), syncerror.SourceWebhook, "m", now)
		mustClaim(t, s, c)
		if _, err := s.PutDoc(ctx, "t1", syncerror.Doc{Key: c.ID, Body: json.RawMessage(`{}`)}, now); err == nil {
			t.Fatal("a claim id was written as a document")
		}
		if _, err := s.GetDoc(ctx, "t1", c.ID); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("a row read as a document: %v", err)
		}
	})

	t.Run("list pages by prefix", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for i := range 5 {
			if _, err := s.PutDoc(ctx, "t1", syncerror.Doc{Key: fmt.Sprintf("~p#%d", i), Body: json.RawMessage(`{}`)}, now); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.PutDoc(ctx, "t1", syncerror.Doc{Key: "~q#0", Body: json.RawMessage(`{}`)}, now); err != nil {
			t.Fatal(err)
		}
		var keys []string
		cursor := ""
		for range 10 {
			docs, next, err := s.ListDocs(ctx, "t1", "~p#", 2, cursor)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range docs {
				keys = append(keys, d.Key)
			}
			if cursor = next; cursor == "" {
				break
			}
		}
		if fmt.Sprint(keys) != "[~p#0 ~p#1 ~p#2 ~p#3 ~p#4]" {
			t.Fatalf("listed %v", keys)
		}
		if _, _, err := s.ListDocs(ctx, "t1", "~p#", 2, "not-a-cursor!"); !errors.Is(err, syncerror.ErrBadCursor) {
			t.Fatalf("bad cursor: %v", err)
		}
	})

	t.Run("list newest first by Sort, with a cursor that holds its place", func(t *testing.T) {
		t.Parallel()
		testListDocsNewest(t, newStore(t), now)
	})

	t.Run("older automation records are given their time, a bounded number per run, once", func(t *testing.T) {
		t.Parallel()
		testOrderAutomation(t, newStore(t), now)
	})

	t.Run("approval policy: default, then versioned puts", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		p := policy.Policies{Docs: s}
		got, err := p.Get(ctx, "t1")
		if err != nil || got.Version != 0 || len(got.Rules) != 2 {
			t.Fatalf("default: %+v %v", got, err)
		}
		if err := p.Onboard(ctx, "t1", now); err != nil {
			t.Fatal(err)
		}
		got, _ = p.Get(ctx, "t1")
		if got.Version != 1 {
			t.Fatalf("onboarded version %d", got.Version)
		}
		next := policy.Policy{Version: 1, Rules: []policy.PolicyRule{{ID: "all", Apply: policy.ApplyApprover}}}
		if _, err := p.Put(ctx, "t1", next, now); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Put(ctx, "t1", next, now); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("stale put: %v", err)
		}
		if err := p.Onboard(ctx, "t1", now); err != nil {
			t.Fatal(err)
		}
		got, _ = p.Get(ctx, "t1")
		if got.Version != 2 || len(got.Rules) != 1 || got.Rules[0].ID != "all" {
			t.Fatalf("onboarding overwrote the tenant's policy: %+v", got)
		}
	})

	t.Run("learning: approve, edit, reject and concurrent decisions", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		l := policy.Learning{Docs: s}
		row := readyRow(t, s, "t1", "e-1", now)
		fix := []syncerror.FieldChange{{Path: "shipcountry", Before: "Deutschland", After: "DE"}}
		n := winners(t, 5, func(i int) (bool, error) {
			_, err := l.Learn(ctx, row, fix, policy.Verdict{Approved: true, Actor: fmt.Sprintf("op%d", i%3), At: now})
			return err == nil, err
		})
		if n != 5 {
			t.Fatalf("%d of 5 decisions learned", n)
		}
		other := readyRow(t, s, "t1", "e-2", now)
		p, ok, err := l.Propose(ctx, other, "inf", now)
		if err != nil || !ok || p.Source != syncerror.SourceLearned || p.Learned.Approvals != 5 || p.Learned.People != 3 ||
			len(p.Fix) != 1 || p.Fix[0].After != "DE" {
			t.Fatalf("proposal %+v ok=%v err=%v", p, ok, err)
		}
		if _, err := l.Learn(ctx, row, fix, policy.Verdict{Actor: "ap", Reason: "DE is wrong here", At: now}); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := l.Propose(ctx, other, "inf", now); ok {
			t.Fatal("a rejected value is still proposed")
		}
		edit := []syncerror.FieldChange{{Path: "shipcountry", Before: "Deutschland", After: "DEU"}}
		if _, err := l.Learn(ctx, row, edit, policy.Verdict{Approved: true, Actor: "op1", At: now}); err != nil {
			t.Fatal(err)
		}
		p, ok, _ = l.Propose(ctx, other, "inf", now)
		if !ok || p.Fix[0].After != "DEU" || p.Learned.Approvals != 1 {
			t.Fatalf("edited value not learned: %+v", p)
		}
		if _, ok, _ := l.Propose(ctx, readyRow(t, s, "t2", "e-1", now), "inf", now); ok {
			t.Fatal("another tenant learned from t1")
		}
	})

	t.Run("auto-apply cap: exactly the limit per minute, also at once", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := &policy.Assist{Store: s, AutoApplyPerMinute: 3}
		n := winners(t, 6, func(int) (bool, error) {
			err := a.TakeAutoApply(ctx, "t1", now)
			if errors.Is(err, policy.ErrAutoApplyCapped) {
				return false, nil
			}
			return err == nil, err
		})
		if n != 3 {
			t.Fatalf("%d auto-applies in a minute capped at 3", n)
		}
		if err := a.TakeAutoApply(ctx, "t1", now.Add(time.Minute)); err != nil {
			t.Fatalf("the next minute: %v", err)
		}
	})

	t.Run("revert: approved only, once", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		row := readyRow(t, s, "t1", "e-1", now)
		entry := syncerror.HistoryEntry{At: now, Actor: "ap", Action: "reverted"}
		if err := s.MarkReverted(ctx, "t1", row.ID, entry, now); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("pending reverted: %v", err)
		}
		lease := syncerror.NewLease(now, time.Minute)
		if _, err := s.BeginApply(ctx, "t1", row.ID, syncerror.StatusPending, lease, nil, syncerror.HistoryEntry{At: now, Actor: "op", Action: "approve"}, now); err != nil {
			t.Fatal(err)
		}
		// Reverted is the one way out of approved for a row whose fix is marked applied.
		if _, err := s.CompleteApply(ctx, "t1", row.ID, lease.Token, syncerror.AppliedWrite{Key: "k", At: now},
			syncerror.HistoryEntry{At: now, Actor: "op", Action: "approved"}, now); err != nil {
			t.Fatal(err)
		}
		n := winners(t, 4, func(int) (bool, error) { return won(s.MarkReverted(ctx, "t1", row.ID, entry, now.Add(time.Second))) })
		if n != 1 {
			t.Fatalf("%d reverts won", n)
		}
		got, _ := s.Get(ctx, "t1", row.ID)
		if got.Status != syncerror.StatusReverted || got.History[len(got.History)-1].Action != "reverted" {
			t.Fatalf("row %+v", got)
		}
		page, err := s.List(ctx, "t1", syncerror.ListQuery{Status: syncerror.StatusReverted, Limit: 10})
		if err != nil || len(page.Claims) != 1 {
			t.Fatalf("reverted listing %v %v", page, err)
		}
		if err := s.MarkReverted(ctx, "t1", "se_aaaaaaaaaaaaaaaaaaaaaaaaaa", entry, now); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("unknown row: %v", err)
		}
	})

	runRevertMarkContract(t, newStore, now)
}

// readyRow claims a sample error and completes its diagnosis with the sample proposal.
func readyRow(t *testing.T, s syncerror.ClaimStore, tenantID, errorID string, at time.Time) syncerror.Claim {
	t.Helper()
	c := ready(t, s, tenantID, errorID, at)
	out, err := s.Get(context.Background(), tenantID, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// testListDocsNewest: documents with a Sort under the prefix, newest first (equal times by
// key, descending); one without a Sort, another prefix's and another tenant's are left
// out; a document added or moved meanwhile does not shift the next page; a cursor of
// another prefix or none of ours is refused.
func testListDocsNewest(t *testing.T, s AssistStore, now time.Time) {
	ctx := context.Background()
	put := func(tenantID, key string, version int, at time.Time) {
		t.Helper()
		if _, err := s.PutDoc(ctx, tenantID, syncerror.Doc{Key: key, Version: version, Body: json.RawMessage(`{}`), Sort: at}, now); err != nil {
			t.Fatal(err)
		}
	}
	for i, key := range []string{"~n#c", "~n#a", "~n#e", "~n#b", "~n#d"} {
		put("t1", key, 0, now.Add(time.Duration(i%3)*time.Minute)) // c, b: +0; a, d: +1; e: +2
	}
	put("t1", "~n#unsorted", 0, time.Time{})
	put("t1", "~m#z", 0, now.Add(time.Hour))
	put("t2", "~n#other", 0, now.Add(time.Hour))
	if d, err := s.GetDoc(ctx, "t1", "~n#e"); err != nil || !d.Sort.Equal(now.Add(2*time.Minute)) {
		t.Fatalf("sort not kept: %v %v", d.Sort, err)
	}
	docs, next, err := s.ListDocsNewest(ctx, "t1", "~n#", 2, "")
	if err != nil || fmt.Sprint(docKeys(docs)) != "[~n#e ~n#d]" || next == "" {
		t.Fatalf("first page %v %q %v", docKeys(docs), next, err)
	}
	put("t1", "~n#f", 0, now.Add(time.Hour))  // newer than the cursor: not on a later page
	put("t1", "~n#e", 1, now.Add(-time.Hour)) // served already; moved past the cursor: listed again, last
	keys := docKeys(docs)
	for cursor := next; cursor != ""; {
		docs, cursor, err = s.ListDocsNewest(ctx, "t1", "~n#", 2, cursor)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, docKeys(docs)...)
	}
	if fmt.Sprint(keys) != "[~n#e ~n#d ~n#a ~n#c ~n#b ~n#e]" {
		t.Fatalf("listed %v", keys)
	}
	if _, _, err := s.ListDocsNewest(ctx, "t1", "~m#", 2, next); !errors.Is(err, syncerror.ErrBadCursor) {
		t.Fatalf("another prefix's cursor: %v", err)
	}
	if _, _, err := s.ListDocsNewest(ctx, "t1", "~n#", 2, "not-a-cursor!"); !errors.Is(err, syncerror.ErrBadCursor) {
		t.Fatalf("bad cursor: %v", err)
	}
	if docs, _, err := s.ListDocsNewest(ctx, "t2", "~n#", 10, ""); err != nil || fmt.Sprint(docKeys(docs)) != "[~n#other]" {
		t.Fatalf("t2 %v %v", docKeys(docs), err)
	}
}

func docKeys(ds []syncerror.Doc) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Key
	}
	return out
}

// testOrderAutomation: seven automation records from before records carried their time
// (no Sort) and one that has it; runs of three give them their time in turns, leave the
// sorted one alone, and once all are done read nothing more.
func testOrderAutomation(t *testing.T, s AssistStore, now time.Time) {
	ctx := context.Background()
	for i := range 7 {
		body := fmt.Sprintf(`{"claimId":"se_%d","ruleId":"r","mode":"enforce","at":%q,"outcome":"applied"}`, i, now.Add(time.Duration(i)*time.Minute).Format(time.RFC3339))
		if _, err := s.PutDoc(ctx, "t1", syncerror.Doc{Key: fmt.Sprintf("~auto#se_%d", i), Body: json.RawMessage(body)}, now); err != nil {
			t.Fatal(err)
		}
	}
	sorted := syncerror.Doc{Key: "~auto#se_9", Body: json.RawMessage(`{"claimId":"se_9","at":"2026-11-25T10:00:00Z"}`), Sort: now.Add(time.Hour)}
	if _, err := s.PutDoc(ctx, "t1", sorted, now); err != nil {
		t.Fatal(err)
	}
	var got []int
	for range 4 {
		n, err := automation.OrderAutomation(ctx, s, "t1", 3, now)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, n)
	}
	if fmt.Sprint(got) != "[3 3 1 0]" {
		t.Fatalf("ordered per run %v", got)
	}
	docs, _, err := s.ListDocsNewest(ctx, "t1", "~auto#", 20, "")
	if err != nil || fmt.Sprint(docKeys(docs)) != "[~auto#se_9 ~auto#se_6 ~auto#se_5 ~auto#se_4 ~auto#se_3 ~auto#se_2 ~auto#se_1 ~auto#se_0]" {
		t.Fatalf("newest first after ordering: %v %v", docKeys(docs), err)
	}
	if d, _ := s.GetDoc(ctx, "t1", "~auto#se_9"); d.Version != 1 {
		t.Fatalf("a record with its time was written again: version %d", d.Version)
	}
	if d, _ := s.GetDoc(ctx, "t1", "~auto#se_3"); !d.Sort.Equal(now.Add(3*time.Minute)) || d.Version != 2 {
		t.Fatalf("se_3: sort %v version %d", d.Sort, d.Version)
	}
}
