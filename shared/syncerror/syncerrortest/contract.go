package syncerrortest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// SampleRecord returns a valid record for tenantID with the given errorId.
func SampleRecord(tenantID, errorID string) syncerror.Record {
	return syncerror.Record{
		TenantID:       tenantID,
		ErrorID:        errorID,
		RecordType:     "salesOrder",
		RecordID:       "SO-10042",
		ErrorCode:      "INVALID_FIELD_VALUE",
		Message:        "Invalid value for field shipcountry: 'Deutschland'",
		OccurredAt:     time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC),
		Integration:    "shopify-orders",
		ExternalSystem: "shopify",
		Direction:      "inbound",
		Payload:        json.RawMessage(`{"shipcountry":"Deutschland","total":129.5}`),
		Context:        json.RawMessage(`{"script":"ue_sync_error"}`),
	}
}

// SampleProposal returns a realistic proposal for tests.
func SampleProposal(inferenceID string, at time.Time) syncerror.Proposal {
	return syncerror.Proposal{
		Class:       "value",
		Summary:     "shipcountry holds a country name where an ISO code is expected",
		Fix:         []syncerror.FieldChange{{Path: "shipcountry", Before: "Deutschland", After: "DE"}},
		Rationale:   "The target expects ISO 3166-1 alpha-2 codes; Deutschland is Germany, DE.",
		Confidence:  0.92,
		InferenceID: inferenceID,
		Provider:    "rules",
		Model:       "rules-v1",
		DiagnosedAt: at.UTC(),
	}
}

// RunClaimStoreContract runs the cases every ClaimStore must pass. newStore returns an
// empty store for each case.
func RunClaimStoreContract(t *testing.T, newStore func(t *testing.T) syncerror.ClaimStore) {
	ctx := context.Background()
	base := time.Date(2026, 11, 22, 10, 0, 0, 123456789, time.UTC)

	t.Run("claim once then duplicate", func(t *testing.T) {
		s := newStore(t)
		c := syncerror.NewClaim(SampleRecord("t1", "e-1"), syncerror.SourceWebhook, "msg_1", base)
		created, err := s.Claim(ctx, c)
		if err != nil || !created {
			t.Fatalf("first claim: created=%v err=%v", created, err)
		}
		again := c
		again.WebhookID = "msg_2"
		created, err = s.Claim(ctx, again)
		if err != nil || created {
			t.Fatalf("second claim: created=%v err=%v, want false, nil", created, err)
		}
		got, err := s.Get(ctx, "t1", c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Fatalf("stored row differs:\n got %+v\nwant %+v", got, c)
		}
	})

	t.Run("get is tenant scoped", func(t *testing.T) {
		s := newStore(t)
		c := syncerror.NewClaim(SampleRecord("t1", "e-1"), syncerror.SourceWebhook, "msg_1", base)
		mustClaim(t, s, c)
		if _, err := s.Get(ctx, "t2", c.ID); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("other tenant: err=%v, want ErrNotFound", err)
		}
		if _, err := s.Get(ctx, "t1", "se_missing"); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("unknown id: err=%v, want ErrNotFound", err)
		}
	})

	t.Run("minimal record round-trips", func(t *testing.T) {
		s := newStore(t)
		r := SampleRecord("t1", "e-min")
		r.Integration, r.ExternalSystem, r.Direction, r.Payload, r.Context = "", "", "", nil, nil
		c := syncerror.NewClaim(r, syncerror.SourceReconcile, "", base)
		mustClaim(t, s, c)
		got, err := s.Get(ctx, "t1", c.ID)
		if err != nil || !reflect.DeepEqual(got, c) {
			t.Fatalf("got %+v err=%v, want %+v", got, err, c)
		}
	})

	t.Run("concurrent claims create one row", func(t *testing.T) {
		s := newStore(t)
		c := syncerror.NewClaim(SampleRecord("t1", "e-race"), syncerror.SourceWebhook, "msg_1", base)
		n := winners(t, 20, func(int) (bool, error) { return s.Claim(ctx, c) })
		if n != 1 {
			t.Fatalf("%d claims reported created, want 1", n)
		}
	})

	t.Run("begin diagnosis takes queued and stale rows only", func(t *testing.T) {
		s := newStore(t)
		c := syncerror.NewClaim(SampleRecord("t1", "e-1"), syncerror.SourceWebhook, "msg_1", base)
		mustClaim(t, s, c)
		t1 := base.Add(time.Second)
		got, err := s.BeginDiagnosis(ctx, "t1", c.ID, t1, t1.Add(-time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if got.Diagnosis != syncerror.DiagnosisDiagnosing || got.DiagnosisAttempts != 1 || !got.DiagnosisSince.Equal(t1) {
			t.Fatalf("after begin: %+v", got)
		}
		if got.Status != syncerror.StatusPending {
			t.Fatalf("status changed to %q", got.Status)
		}
		if _, err := s.BeginDiagnosis(ctx, "t1", c.ID, t1, t1.Add(-time.Minute)); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("fresh diagnosing row taken again: err=%v", err)
		}
		t2 := t1.Add(10 * time.Minute)
		got, err = s.BeginDiagnosis(ctx, "t1", c.ID, t2, t2.Add(-time.Minute))
		if err != nil || got.DiagnosisAttempts != 2 {
			t.Fatalf("stale takeover: %+v err=%v", got, err)
		}
		if _, err := s.BeginDiagnosis(ctx, "t1", "se_missing", t2, t2); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("missing row: err=%v, want ErrNotFound", err)
		}
		if _, err := s.BeginDiagnosis(ctx, "t2", c.ID, t2, t2); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("other tenant: err=%v, want ErrNotFound", err)
		}
	})

	t.Run("stuck lists a tenant's old rows oldest first", func(t *testing.T) {
		s := newStore(t)
		var ids []string
		for i := 0; i < 5; i++ {
			c := syncerror.NewClaim(SampleRecord("t1", fmt.Sprintf("e-%d", i)), syncerror.SourceWebhook, "", base.Add(time.Duration(i)*time.Minute))
			mustClaim(t, s, c)
			ids = append(ids, c.ID)
		}
		mustClaim(t, s, syncerror.NewClaim(SampleRecord("t2", "e-0"), syncerror.SourceWebhook, "", base))
		// e-4 is diagnosing, so not queued.
		if _, err := s.BeginDiagnosis(ctx, "t1", ids[4], base.Add(time.Minute), base); err != nil {
			t.Fatal(err)
		}
		got, err := s.Stuck(ctx, "t1", syncerror.DiagnosisQueued, base.Add(3*time.Minute), 10)
		if err != nil {
			t.Fatal(err)
		}
		if g := claimIDs(got); !reflect.DeepEqual(g, ids[:3]) {
			t.Fatalf("stuck = %v, want %v", g, ids[:3])
		}
		got, err = s.Stuck(ctx, "t1", syncerror.DiagnosisQueued, base.Add(time.Hour), 2)
		if err != nil {
			t.Fatal(err)
		}
		if g := claimIDs(got); !reflect.DeepEqual(g, ids[:2]) {
			t.Fatalf("limited stuck = %v, want %v", g, ids[:2])
		}
		got, err = s.Stuck(ctx, "t1", syncerror.DiagnosisDiagnosing, base.Add(time.Hour), 10)
		if err != nil || len(got) != 1 || got[0].ID != ids[4] {
			t.Fatalf("stuck diagnosing = %v err=%v", claimIDs(got), err)
		}
	})

	t.Run("complete diagnosis only from the same attempt", func(t *testing.T) {
		s := newStore(t)
		c := syncerror.NewClaim(SampleRecord("t1", "e-1"), syncerror.SourceWebhook, "", base)
		mustClaim(t, s, c)
		got, err := s.BeginDiagnosis(ctx, "t1", c.ID, base, base)
		if err != nil {
			t.Fatal(err)
		}
		p := SampleProposal(syncerror.InferenceID(c.ID, got.DiagnosisAttempts), base.Add(time.Second))
		if err := s.CompleteDiagnosis(ctx, "t1", c.ID, got.DiagnosisAttempts+1, p, base); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("other attempt completed: err=%v", err)
		}
		if err := s.CompleteDiagnosis(ctx, "t1", c.ID, got.DiagnosisAttempts, p, base.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		row, err := s.Get(ctx, "t1", c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if row.Diagnosis != syncerror.DiagnosisReady || row.Proposal == nil || !reflect.DeepEqual(*row.Proposal, p) || row.Status != syncerror.StatusPending {
			t.Fatalf("row %+v proposal %+v", row, row.Proposal)
		}
		if err := s.CompleteDiagnosis(ctx, "t1", c.ID, got.DiagnosisAttempts, p, base); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("completed twice: err=%v", err)
		}
		if _, err := s.BeginDiagnosis(ctx, "t1", c.ID, base.Add(time.Hour), base.Add(time.Hour)); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("ready row taken for diagnosis again: err=%v", err)
		}
		if err := s.CompleteDiagnosis(ctx, "t1", "se_missing", 1, p, base); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("missing row: err=%v", err)
		}
	})

	t.Run("end diagnosis requeues or fails", func(t *testing.T) {
		s := newStore(t)
		c := syncerror.NewClaim(SampleRecord("t1", "e-1"), syncerror.SourceWebhook, "", base)
		mustClaim(t, s, c)
		if _, err := s.BeginDiagnosis(ctx, "t1", c.ID, base, base); err != nil {
			t.Fatal(err)
		}
		if err := s.EndDiagnosis(ctx, "t1", c.ID, 1, syncerror.DiagnosisQueued, "provider timed out", base.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		row, _ := s.Get(ctx, "t1", c.ID)
		if row.Diagnosis != syncerror.DiagnosisQueued || row.DiagnosisError != "provider timed out" || !row.DiagnosisSince.Equal(base.Add(time.Second)) {
			t.Fatalf("after requeue: %+v", row)
		}
		stuck, _ := s.Stuck(ctx, "t1", syncerror.DiagnosisQueued, base.Add(time.Hour), 10)
		if len(stuck) != 1 {
			t.Fatalf("requeued row not listed as queued: %v", claimIDs(stuck))
		}
		row, err := s.BeginDiagnosis(ctx, "t1", c.ID, base.Add(2*time.Second), base)
		if err != nil || row.DiagnosisAttempts != 2 {
			t.Fatalf("second attempt: %+v err=%v", row, err)
		}
		if err := s.EndDiagnosis(ctx, "t1", c.ID, 1, syncerror.DiagnosisFailed, "stale", base); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("stale attempt ended the diagnosis: err=%v", err)
		}
		if err := s.EndDiagnosis(ctx, "t1", c.ID, 2, syncerror.DiagnosisFailed, "unparseable", base.Add(3*time.Second)); err != nil {
			t.Fatal(err)
		}
		row, _ = s.Get(ctx, "t1", c.ID)
		if row.Diagnosis != syncerror.DiagnosisFailed || row.DiagnosisError != "unparseable" || row.Proposal != nil {
			t.Fatalf("after fail: %+v", row)
		}
	})

	// ready claims a row and completes its diagnosis, so it can be approved.
	ready := func(t *testing.T, s syncerror.ClaimStore, tenant, errorID string, at time.Time) syncerror.Claim {
		t.Helper()
		c := syncerror.NewClaim(SampleRecord(tenant, errorID), syncerror.SourceWebhook, "msg", at)
		mustClaim(t, s, c)
		got, err := s.BeginDiagnosis(ctx, tenant, c.ID, at, at)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.CompleteDiagnosis(ctx, tenant, c.ID, got.DiagnosisAttempts, SampleProposal(syncerror.InferenceID(c.ID, 1), at), at); err != nil {
			t.Fatal(err)
		}
		return c
	}
	entry := func(action string) syncerror.HistoryEntry {
		return syncerror.HistoryEntry{At: base, Actor: "alice", Action: action, Note: "n"}
	}

	t.Run("list by status newest first, paged", func(t *testing.T) {
		s := newStore(t)
		var ids []string
		for i := 0; i < 5; i++ {
			c := syncerror.NewClaim(SampleRecord("t1", fmt.Sprintf("e-%d", i)), syncerror.SourceWebhook, "", base.Add(time.Duration(i)*time.Minute))
			mustClaim(t, s, c)
			ids = append([]string{c.ID}, ids...)
		}
		mustClaim(t, s, syncerror.NewClaim(SampleRecord("t2", "e-0"), syncerror.SourceWebhook, "", base))
		rej := ready(t, s, "t1", "e-rej", base.Add(time.Hour))
		if err := s.Decide(ctx, "t1", rej.ID, syncerror.StatusPending, syncerror.StatusRejected, entry("rejected"), base); err != nil {
			t.Fatal(err)
		}
		var got []string
		cursor := ""
		for page := 0; ; page++ {
			p, err := s.List(ctx, "t1", syncerror.ListQuery{Status: syncerror.StatusPending, Limit: 2, Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Claims) > 2 || page > 5 {
				t.Fatalf("page %d: %d rows", page, len(p.Claims))
			}
			got = append(got, claimIDs(p.Claims)...)
			if p.NextCursor == "" {
				break
			}
			cursor = p.NextCursor
		}
		if !reflect.DeepEqual(got, ids) {
			t.Fatalf("pending pages = %v, want %v", got, ids)
		}
		p, err := s.List(ctx, "t1", syncerror.ListQuery{Status: syncerror.StatusRejected, Limit: 10, Cursor: ""})
		if err != nil || len(p.Claims) != 1 || p.Claims[0].ID != rej.ID || p.NextCursor != "" {
			t.Fatalf("rejected = %v err=%v", claimIDs(p.Claims), err)
		}
		// Garbled cursors: not base64, a foreign shape, and a well-formed one whose id is
		// no row id (over DynamoDB's key size, which must not reach it as a 503).
		for _, bad := range []string{"%%bogus",
			base64.RawURLEncoding.EncodeToString([]byte("not-a-time#se_x")),
			base64.RawURLEncoding.EncodeToString([]byte("2026-11-22T09:30:00.000000000Z#se_" + strings.Repeat("a", 2000)))} {
			if _, err := s.List(ctx, "t1", syncerror.ListQuery{Status: syncerror.StatusPending, Limit: 2, Cursor: bad}); !errors.Is(err, syncerror.ErrBadCursor) {
				t.Fatalf("bad cursor %.40q: err=%v", bad, err)
			}
		}
	})

	t.Run("list filtered by class and since, paged across filtered-out rows", func(t *testing.T) {
		s := newStore(t)
		var missing []string
		for i := 0; i < 7; i++ {
			at := base.Add(time.Duration(i) * time.Minute)
			c := syncerror.NewClaim(SampleRecord("t1", fmt.Sprintf("f-%d", i)), syncerror.SourceWebhook, "msg", at)
			mustClaim(t, s, c)
			got, err := s.BeginDiagnosis(ctx, "t1", c.ID, at, at)
			if err != nil {
				t.Fatal(err)
			}
			p := SampleProposal(syncerror.InferenceID(c.ID, 1), at)
			if i%3 == 0 { // spread among rows of another class, so pages must read past them
				p.Class = "missing"
				missing = append([]string{c.ID}, missing...)
			}
			if err := s.CompleteDiagnosis(ctx, "t1", c.ID, got.DiagnosisAttempts, p, at); err != nil {
				t.Fatal(err)
			}
		}
		mustClaim(t, s, syncerror.NewClaim(SampleRecord("t1", "undiagnosed"), syncerror.SourceWebhook, "", base.Add(time.Hour)))
		var got []string
		cursor := ""
		for page := 0; page < 10; page++ {
			p, err := s.List(ctx, "t1", syncerror.ListQuery{Status: syncerror.StatusPending, Class: "missing", Limit: 1, Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, claimIDs(p.Claims)...)
			if cursor = p.NextCursor; cursor == "" {
				break
			}
		}
		if !reflect.DeepEqual(got, missing) {
			t.Fatalf("class missing = %v, want %v", got, missing)
		}
		if p, err := s.List(ctx, "t1", syncerror.ListQuery{Status: syncerror.StatusPending, Class: "miss", Limit: 5}); err != nil || len(p.Claims) != 0 {
			t.Fatalf("a class prefix must not match: %v err=%v", claimIDs(p.Claims), err)
		}
		p, err := s.List(ctx, "t1", syncerror.ListQuery{Status: syncerror.StatusPending, Since: base.Add(4 * time.Minute), Limit: 10})
		if err != nil || len(p.Claims) != 4 { // f-4, f-5, f-6 and the undiagnosed row
			t.Fatalf("since: %v err=%v", claimIDs(p.Claims), err)
		}
	})

	t.Run("approve lease", func(t *testing.T) {
		s := newStore(t)
		queued := syncerror.NewClaim(SampleRecord("t1", "e-q"), syncerror.SourceWebhook, "", base)
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
		got, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, l1, edited, entry("approve"), base)
		if err != nil {
			t.Fatal(err)
		}
		want := l1
		want.From = syncerror.StatusPending
		if got.Status != syncerror.StatusApplying || got.Lease == nil || *got.Lease != want || !reflect.DeepEqual(got.EditedFix, edited) ||
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
		if exp, err := s.ExpiredLeases(ctx, "t1", base.Add(2*time.Minute), 10); err != nil || len(exp) != 1 || exp[0].ID != c.ID {
			t.Fatalf("expired leases: %v err=%v", claimIDs(exp), err)
		}
		if _, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, l2, nil, entry("approve"), base.Add(2*time.Minute)); err != nil {
			t.Fatalf("takeover of an expired lease: %v", err)
		}
		if err := s.FinishApply(ctx, "t1", c.ID, "tok-1", syncerror.StatusApproved, "", entry("approved"), base); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("finish with the overtaken token: err=%v", err)
		}
		if err := s.FinishApply(ctx, "t1", c.ID, "tok-2", syncerror.StatusPending, "host ERP answered 503", entry("apply_failed"), base); err != nil {
			t.Fatal(err)
		}
		row, _ := s.Get(ctx, "t1", c.ID)
		if row.Status != syncerror.StatusPending || row.Lease != nil || row.ApplyError != "host ERP answered 503" {
			t.Fatalf("after failed apply: %+v", row)
		}
		l3 := syncerror.Lease{Token: "tok-3", ExpiresAt: base.Add(time.Hour)}
		if _, err := s.BeginApply(ctx, "t1", c.ID, syncerror.StatusPending, l3, nil, entry("approve"), base); err != nil {
			t.Fatal(err)
		}
		if err := s.FinishApply(ctx, "t1", c.ID, "tok-3", syncerror.StatusApproved, "", entry("approved"), base); err != nil {
			t.Fatal(err)
		}
		row, _ = s.Get(ctx, "t1", c.ID)
		if row.Status != syncerror.StatusApproved || row.Lease != nil || row.ApplyError != "" || len(row.History) != 6 ||
			!reflect.DeepEqual(row.EditedFix, edited) {
			t.Fatalf("after approve: status %s lease %v err %q history %d edited %v", row.Status, row.Lease, row.ApplyError, len(row.History), row.EditedFix)
		}
		if err := s.Decide(ctx, "t1", c.ID, syncerror.StatusPending, syncerror.StatusRejected, entry("rejected"), base); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("reject an approved row: err=%v", err)
		}
	})

	t.Run("a row marked applied only ends approved", func(t *testing.T) {
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

	t.Run("concurrent approves take one lease", func(t *testing.T) {
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

	runRetryContract(t, newStore, ready, base)
	runFoldContract(t, newStore, base)
	runTriageContract(t, newStore, base)
	runSystemListContract(t, newStore, base)

	t.Run("watermark advances conditionally", func(t *testing.T) {
		s := newStore(t)
		if w, err := s.Watermark(ctx, "t1"); err != nil || !w.IsZero() {
			t.Fatalf("fresh watermark %v err=%v", w, err)
		}
		if err := s.AdvanceWatermark(ctx, "t1", time.Time{}, base); err != nil {
			t.Fatal(err)
		}
		if err := s.AdvanceWatermark(ctx, "t1", time.Time{}, base.Add(time.Hour)); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("advance from a stale watermark: err=%v", err)
		}
		if err := s.AdvanceWatermark(ctx, "t1", base, base.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if w, _ := s.Watermark(ctx, "t1"); !w.Equal(base.Add(time.Minute)) {
			t.Fatalf("watermark %v", w)
		}
		if w, _ := s.Watermark(ctx, "t2"); !w.IsZero() {
			t.Fatalf("other tenant's watermark %v", w)
		}
	})

	t.Run("requeue is conditional on what was seen", func(t *testing.T) {
		s := newStore(t)
		c := syncerror.NewClaim(SampleRecord("t1", "e-1"), syncerror.SourceWebhook, "", base)
		mustClaim(t, s, c)
		now := base.Add(time.Hour)
		n := winners(t, 10, func(int) (bool, error) {
			return won(s.Requeue(ctx, "t1", c.ID, syncerror.DiagnosisQueued, c.DiagnosisSince, now))
		})
		if n != 1 {
			t.Fatalf("%d requeues won, want 1", n)
		}
		got, err := s.Get(ctx, "t1", c.ID)
		if err != nil || got.Diagnosis != syncerror.DiagnosisQueued || !got.DiagnosisSince.Equal(now) {
			t.Fatalf("after requeue: %+v err=%v", got, err)
		}
		stuck, err := s.Stuck(ctx, "t1", syncerror.DiagnosisQueued, now, 10)
		if err != nil || len(stuck) != 0 {
			t.Fatalf("requeued row still stuck before its new time: %v err=%v", claimIDs(stuck), err)
		}
	})
}

func mustClaim(t *testing.T, s syncerror.ClaimStore, c syncerror.Claim) {
	t.Helper()
	if created, err := s.Claim(context.Background(), c); err != nil || !created {
		t.Fatalf("claim %s: created=%v err=%v", c.ID, created, err)
	}
}

func claimIDs(cs []syncerror.Claim) []string {
	ids := make([]string, 0, len(cs))
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	return ids
}

// winners runs try n times at once and counts the calls that report true; an error fails
// the test. It is how the contract checks that a conditional write has exactly one winner.
func winners(t *testing.T, n int, try func(i int) (bool, error)) int {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	count := 0
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := try(i)
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				count++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return count
}

// won reads a conditional write's outcome: success wins, ErrStateChanged loses, anything
// else is an error.
func won(err error) (bool, error) {
	if errors.Is(err, syncerror.ErrStateChanged) {
		return false, nil
	}
	return err == nil, err
}
