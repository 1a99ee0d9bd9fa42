package storecontract

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// runListedContract holds what the readers of a store's listings read of a row (issue 37
// §1): a store may list from an index that projects part of a row (the DynamoDB store's
// by_status and by_diagnosis, shared/blueprint), so each reader's need is a case here.
func runListedContract(t *testing.T, newStore func(t *testing.T) syncerror.ClaimStore, ready readyFunc, base time.Time) {
	ctx := context.Background()
	entry := historyAt(base)

	t.Run("a listed row carries what the queue, insights and the status tool read of it", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		// Escalated with its triage: the summary's escalation, assignee, tags, notes.
		esc := ready(t, s, "t1", "e-esc", base)
		for _, err := range []error{
			s.Decide(ctx, "t1", esc.ID, syncerror.StatusPending, syncerror.StatusEscalated, entry("escalated"), base),
			errOf(s.Assign(ctx, "t1", esc.ID, "", "bob", entry("assigned"), base)),
			errOf(s.Tag(ctx, "t1", esc.ID, "vip", true, entry("tagged"), base)),
			errOf(s.AddNote(ctx, "t1", esc.ID, syncerror.Note{At: base, Actor: "bob", Text: "call them"}, entry("noted"), base)),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
		// Approved with an edited fix and its write marked: insights' time to fix.
		done := ready(t, s, "t1", "e-done", base)
		edited := []syncerror.FieldChange{{Path: "shipcountry", Before: "Deutschland", After: "DE"}}
		lease := syncerror.Lease{Token: "tok", ExpiresAt: base.Add(time.Minute)}
		if _, err := s.BeginApply(ctx, "t1", done.ID, syncerror.StatusPending, lease, edited, entry("approve"), base); err != nil {
			t.Fatal(err)
		}
		if err := s.MarkApplied(ctx, "t1", done.ID, "tok", syncerror.AppliedWrite{Key: "k", At: base.Add(time.Second)}, base); err != nil {
			t.Fatal(err)
		}
		if err := s.FinishApply(ctx, "t1", done.ID, "tok", syncerror.StatusApproved, "", entry("approved"), base.Add(2*time.Second)); err != nil {
			t.Fatal(err)
		}
		// Pending again after a failed write: the queue marks it by its apply error.
		failed := ready(t, s, "t1", "e-failed", base)
		if _, err := s.BeginApply(ctx, "t1", failed.ID, syncerror.StatusPending, lease, nil, entry("approve"), base); err != nil {
			t.Fatal(err)
		}
		if err := s.FinishApply(ctx, "t1", failed.ID, "tok", syncerror.StatusPending, "ERP down", entry("apply_failed"), base); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			id     string
			status syncerror.Status
		}{{esc.ID, syncerror.StatusEscalated}, {done.ID, syncerror.StatusApproved}, {failed.ID, syncerror.StatusPending}} {
			p, err := s.List(ctx, "t1", syncerror.ListQuery{Status: c.status, Limit: 10})
			if err != nil || len(p.Claims) != 1 {
				t.Fatalf("list %s: %v err=%v", c.status, claimIDs(p.Claims), err)
			}
			row, err := s.Get(ctx, "t1", c.id)
			if err != nil {
				t.Fatal(err)
			}
			if diff := listedDiff(p.Claims[0], row); diff != "" {
				t.Errorf("%s row as listed differs from the row in %s", c.status, diff)
			}
		}
	})

	t.Run("a row a worker holds lists as queued and is otherwise listed as it was", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := syncerror.NewClaim(syncerrortest.SampleRecord("t1", "e-held"), syncerror.SourceWebhook, "", base)
		mustClaim(t, s, c)
		before, err := s.List(ctx, "t1", syncerror.ListQuery{Status: syncerror.StatusPending, Limit: 10})
		if err != nil || len(before.Claims) != 1 {
			t.Fatalf("list: %v err=%v", claimIDs(before.Claims), err)
		}
		if _, err := s.BeginDiagnosis(ctx, "t1", c.ID, base.Add(time.Minute), base); err != nil {
			t.Fatal(err)
		}
		row, err := s.Get(ctx, "t1", c.ID)
		if err != nil || row.Diagnosis != syncerror.DiagnosisDiagnosing {
			t.Fatalf("the held row reads %s (%v), want diagnosing", row.Diagnosis, err)
		}
		after, err := s.List(ctx, "t1", syncerror.ListQuery{Status: syncerror.StatusPending, Limit: 10})
		if err != nil || len(after.Claims) != 1 {
			t.Fatalf("list: %v err=%v", claimIDs(after.Claims), err)
		}
		if after.Claims[0].Diagnosis != syncerror.DiagnosisQueued {
			t.Fatalf("the held row lists as %s, want queued (the listing is not written when a worker takes a row)", after.Claims[0].Diagnosis)
		}
		if diff := listedDiff(after.Claims[0], before.Claims[0]); diff != "" {
			t.Errorf("taking the row changed its listing in %s", diff)
		}
		row.Diagnosis = syncerror.DiagnosisQueued
		if diff := listedDiff(after.Claims[0], row); diff != "" {
			t.Errorf("the held row as listed differs from the row in %s", diff)
		}
	})

	t.Run("a proposal reads back whole from its row and by its listed part from a listing", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := syncerror.NewClaim(syncerrortest.SampleRecord("t1", "e-learned"), syncerror.SourceWebhook, "", base)
		mustClaim(t, s, c)
		got, err := s.BeginDiagnosis(ctx, "t1", c.ID, base, base)
		if err != nil {
			t.Fatal(err)
		}
		at := base.Add(time.Minute)
		p := syncerrortest.SampleProposal(syncerror.InferenceID(c.ID, 1), base)
		p.Retryable, p.Source = true, syncerror.SourceLearned
		p.Learned = &syncerror.Provenance{KnowledgeIDs: []string{"kn1"}, Approvals: 4, People: 2, LastApprovedBy: "alice", LastApprovedAt: &at}
		if err := s.CompleteDiagnosis(ctx, "t1", c.ID, got.DiagnosisAttempts, p, base); err != nil {
			t.Fatal(err)
		}
		row, err := s.Get(ctx, "t1", c.ID)
		if err != nil || !reflect.DeepEqual(row.Proposal, &p) {
			t.Fatalf("stored proposal %+v err=%v, want %+v", row.Proposal, err, p)
		}
		page, err := s.List(ctx, "t1", syncerror.ListQuery{Status: syncerror.StatusPending, Class: p.Class, Limit: 10})
		if err != nil || len(page.Claims) != 1 {
			t.Fatalf("list by class %q: %v err=%v", p.Class, claimIDs(page.Claims), err)
		}
		if got, want := listedProposal(page.Claims[0].Proposal), listedProposal(&p); !reflect.DeepEqual(got, want) {
			t.Fatalf("listed proposal %+v, want %+v", got, want)
		}
	})

	t.Run("a listed row carries the customer ids of its context and payload", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		r := syncerrortest.SampleRecord("t1", "e-customer")
		r.Context = json.RawMessage(`{"customerId":" C-1 ","order":{"customer":{"id":77}}}`)
		r.Payload = json.RawMessage(`{"lines":[{"customer_id":"C-2"}],"customerId":"C-1"}`)
		mustClaim(t, s, syncerror.NewClaim(r, syncerror.SourceWebhook, "", base))
		p, err := s.List(ctx, "t1", syncerror.ListQuery{Status: syncerror.StatusPending, Limit: 10})
		if err != nil || len(p.Claims) != 1 {
			t.Fatalf("list: %v err=%v", claimIDs(p.Claims), err)
		}
		if got, want := syncerror.CustomersOf(p.Claims[0]), []string{"C-1", "77", "C-2"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("listed customer ids %q, want %q", got, want)
		}
	})

	t.Run("stuck rows carry what the reconcile requeues them by", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := syncerror.NewClaim(syncerrortest.SampleRecord("t1", "e-stuck"), syncerror.SourceWebhook, "", base)
		mustClaim(t, s, c)
		stuck, err := s.Stuck(ctx, "t1", syncerror.DiagnosisQueued, base.Add(time.Hour), 10)
		if err != nil || len(stuck) != 1 {
			t.Fatalf("stuck: %v err=%v", claimIDs(stuck), err)
		}
		got := stuck[0]
		if got.Diagnosis != syncerror.DiagnosisQueued || !got.DiagnosisSince.Equal(c.DiagnosisSince) {
			t.Fatalf("stuck row diagnosis %q since %v, want %q since %v", got.Diagnosis, got.DiagnosisSince, syncerror.DiagnosisQueued, c.DiagnosisSince)
		}
		if err := s.Requeue(ctx, "t1", got.ID, got.Diagnosis, got.DiagnosisSince, base.Add(time.Hour)); err != nil {
			t.Fatalf("requeue by what stuck answered: %v", err)
		}
	})

	t.Run("the lease and retry sweeps answer whole rows", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := ready(t, s, "t1", "e-lease", base)
		edited := []syncerror.FieldChange{{Path: "shipcountry", Before: "Deutschland", After: "DE"}}
		lease := syncerror.Lease{Token: "tok", ExpiresAt: base.Add(time.Minute)}
		if _, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, lease, edited, entry("approve"), base); err != nil {
			t.Fatal(err)
		}
		if err := s.MarkApplied(ctx, "t1", c.ID, "tok", syncerror.AppliedWrite{Key: "k", At: base, Prior: []syncerror.PriorValue{{Path: "shipcountry", Value: "Deutschland", Wrote: "DE"}}}, base); err != nil {
			t.Fatal(err)
		}
		exp, err := s.ExpiredLeases(ctx, "t1", base.Add(2*time.Minute), 10)
		row, _ := s.Get(ctx, "t1", c.ID)
		if err != nil || len(exp) != 1 || !reflect.DeepEqual(exp[0], row) {
			t.Fatalf("expired lease %+v err=%v, want the whole row %+v", exp, err, row)
		}
		r := ready(t, s, "t1", "e-retry", base)
		log := []syncerror.RetryAttempt{{At: base, Actor: "alice", Result: syncerror.DeliveryTransient}}
		if _, err := s.ChangeRetry(ctx, "t1", r.ID, syncerror.RetryChange{From: []syncerror.Status{syncerror.StatusPending}, To: syncerror.StatusRetrying,
			Begin: true, NextAt: base.Add(time.Minute), LastError: "unavailable", Log: log, Entry: entry("retry")}, base); err != nil {
			t.Fatal(err)
		}
		due, err := s.DueRetries(ctx, "t1", base.Add(time.Hour), 10)
		row, _ = s.Get(ctx, "t1", r.ID)
		if err != nil || len(due) != 1 || !reflect.DeepEqual(due[0], row) || len(row.Retry.Log) != 1 {
			t.Fatalf("due retry %+v err=%v, want the whole row %+v", due, err, row)
		}
	})
}

func errOf(_ syncerror.Claim, err error) error { return err }

// withoutDocs is r without its payload and context.
func withoutDocs(r syncerror.Record) syncerror.Record {
	r.Payload, r.Context = nil, nil
	return r
}

// listedProposal is what the listing's readers read of a proposal: the class, the fix, the
// confidence, the source and the learned approvals (the summary, the approval rule, groups
// and bulk previews). The rest (summary, rationale, the inference) only a row's detail
// reads, from the whole row: a store may leave it out of a listed row.
func listedProposal(p *syncerror.Proposal) *syncerror.Proposal {
	if p == nil {
		return nil
	}
	out := syncerror.Proposal{Class: p.Class, Fix: p.Fix, Confidence: p.Confidence, Source: p.Source}
	if p.Learned != nil {
		out.Learned = &syncerror.Provenance{Approvals: p.Learned.Approvals}
	}
	return &out
}

// listedDiff names the first field a listing's readers read that listed lacks of row: the
// summary's (record, status, diagnosis, proposal, escalation, retry and recurrence view,
// triage, apply error), the approval rule's (proposal, edited fix), insights' (updated_at,
// the applied write's time) and the status tool's (the customer ids of the record's
// context and payload, which a store may list without the two documents).
func listedDiff(listed, row syncerror.Claim) string {
	view := func(r syncerror.RetryState) syncerror.RetryState {
		r.Log, r.Signature, r.ErrorKeys = nil, "", nil
		return r
	}
	appliedAt := func(c syncerror.Claim) time.Time {
		if c.Applied == nil {
			return time.Time{}
		}
		return c.Applied.At
	}
	for _, f := range []struct {
		name      string
		got, want any
	}{
		{"record", withoutDocs(listed.Record), withoutDocs(row.Record)},
		{"customer ids", syncerror.CustomersOf(listed), syncerror.CustomersOf(row)},
		{"status", listed.Status, row.Status},
		{"diagnosis", listed.Diagnosis, row.Diagnosis},
		{"source", listed.Source, row.Source},
		{"claimed at", listed.ClaimedAt.UTC(), row.ClaimedAt.UTC()},
		{"updated at", listed.UpdatedAt.UTC(), row.UpdatedAt.UTC()},
		{"proposal", listedProposal(listed.Proposal), listedProposal(row.Proposal)},
		{"edited fix", listed.EditedFix, row.EditedFix},
		{"history", listed.History, row.History},
		{"triage", listed.Triage, row.Triage},
		{"retry view", view(listed.Retry), view(row.Retry)},
		{"apply error", listed.ApplyError, row.ApplyError},
		{"applied at", appliedAt(listed).UTC(), appliedAt(row).UTC()},
	} {
		if !reflect.DeepEqual(f.got, f.want) {
			return fmt.Sprintf("%s: listed %+v, stored %+v", f.name, f.got, f.want)
		}
	}
	return ""
}
