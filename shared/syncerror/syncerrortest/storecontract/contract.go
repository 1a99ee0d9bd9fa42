package storecontract

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// RunClaimStoreContract runs the cases every ClaimStore must pass. newStore returns an
// empty store for each case, its own: the cases run side by side (t.Parallel), so a store
// on an emulator spends its waits on one case's round trips working on another's.
func RunClaimStoreContract(t *testing.T, newStore func(t *testing.T) syncerror.ClaimStore) {
	ctx := context.Background()
	base := time.Date(2026, 11, 22, 10, 0, 0, 123456789, time.UTC)

	t.Run("claim once then duplicate", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := syncerror.NewClaim(syncerrortest.SampleRecord("t1", "e-1"), syncerror.SourceWebhook, "msg_1", base)
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
		t.Parallel()
		s := newStore(t)
		c := syncerror.NewClaim(syncerrortest.SampleRecord("t1", "e-1"), syncerror.SourceWebhook, "msg_1", base)
		mustClaim(t, s, c)
		if _, err := s.Get(ctx, "t2", c.ID); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("other tenant: err=%v, want ErrNotFound", err)
		}
		if _, err := s.Get(ctx, "t1", "se_missing"); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("unknown id: err=%v, want ErrNotFound", err)
		}
	})

	t.Run("minimal record round-trips", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		r := syncerrortest.SampleRecord("t1", "e-min")
		r.Integration, r.ExternalSystem, r.Direction, r.Payload, r.Context = "", "", "", nil, nil
		c := syncerror.NewClaim(r, syncerror.SourceReconcile, "", base)
		mustClaim(t, s, c)
		got, err := s.Get(ctx, "t1", c.ID)
		if err != nil || !reflect.DeepEqual(got, c) {
			t.Fatalf("got %+v err=%v, want %+v", got, err, c)
		}
	})

	t.Run("concurrent claims create one row", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := syncerror.NewClaim(syncerrortest.SampleRecord("t1", "e-race"), syncerror.SourceWebhook, "msg_1", base)
		n := winners(t, 20, func(int) (bool, error) { return s.Claim(ctx, c) })
		if n != 1 {
			t.Fatalf("%d claims reported created, want 1", n)
		}
	})

	t.Run("begin diagnosis takes queued and stale rows only", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := syncerror.NewClaim(syncerrortest.SampleRecord("t1", "e-1"), syncerror.SourceWebhook, "msg_1", base)
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
		t.Parallel()
		s := newStore(t)
		var ids []string
		for i := 0; i < 5; i++ {
			c := syncerror.NewClaim(syncerrortest.SampleRecord("t1", fmt.Sprintf("e-%d", i)), syncerror.SourceWebhook, "", base.Add(time.Duration(i)*time.Minute))
			mustClaim(t, s, c)
			ids = append(ids, c.ID)
		}
		mustClaim(t, s, syncerror.NewClaim(syncerrortest.SampleRecord("t2", "e-0"), syncerror.SourceWebhook, "", base))
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
		for _, d := range []syncerror.Diagnosis{syncerror.DiagnosisReady, syncerror.DiagnosisFailed} {
			if got, err := s.Stuck(ctx, "t1", d, base.Add(time.Hour), 10); !errors.Is(err, syncerror.ErrUntracked) {
				t.Fatalf("stuck %s = %v err=%v, want ErrUntracked", d, claimIDs(got), err)
			}
		}
	})

	t.Run("complete diagnosis only from the same attempt", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := syncerror.NewClaim(syncerrortest.SampleRecord("t1", "e-1"), syncerror.SourceWebhook, "", base)
		mustClaim(t, s, c)
		got, err := s.BeginDiagnosis(ctx, "t1", c.ID, base, base)
		if err != nil {
			t.Fatal(err)
		}
		p := syncerrortest.SampleProposal(syncerror.InferenceID(c.ID, got.DiagnosisAttempts), base.Add(time.Second))
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
		t.Parallel()
		s := newStore(t)
		c := syncerror.NewClaim(syncerrortest.SampleRecord("t1", "e-1"), syncerror.SourceWebhook, "", base)
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

	entry := historyAt(base)

	t.Run("list by status newest first, paged", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		var ids []string
		for i := 0; i < 5; i++ {
			c := syncerror.NewClaim(syncerrortest.SampleRecord("t1", fmt.Sprintf("e-%d", i)), syncerror.SourceWebhook, "", base.Add(time.Duration(i)*time.Minute))
			mustClaim(t, s, c)
			ids = append([]string{c.ID}, ids...)
		}
		mustClaim(t, s, syncerror.NewClaim(syncerrortest.SampleRecord("t2", "e-0"), syncerror.SourceWebhook, "", base))
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
		t.Parallel()
		s := newStore(t)
		var missing []string
		for i := 0; i < 7; i++ {
			at := base.Add(time.Duration(i) * time.Minute)
			c := syncerror.NewClaim(syncerrortest.SampleRecord("t1", fmt.Sprintf("f-%d", i)), syncerror.SourceWebhook, "msg", at)
			mustClaim(t, s, c)
			got, err := s.BeginDiagnosis(ctx, "t1", c.ID, at, at)
			if err != nil {
				t.Fatal(err)
			}
			p := syncerrortest.SampleProposal(syncerror.InferenceID(c.ID, 1), at)
			if i%3 == 0 { // spread among rows of another class, so pages must read past them
				p.Class = "missing"
				missing = append([]string{c.ID}, missing...)
			}
			if err := s.CompleteDiagnosis(ctx, "t1", c.ID, got.DiagnosisAttempts, p, at); err != nil {
				t.Fatal(err)
			}
		}
		mustClaim(t, s, syncerror.NewClaim(syncerrortest.SampleRecord("t1", "undiagnosed"), syncerror.SourceWebhook, "", base.Add(time.Hour)))
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

	runDecisionContract(t, newStore, ready, base)
	runRetryContract(t, newStore, ready, base)
	runFoldContract(t, newStore, base)
	runTriageContract(t, newStore, base)
	runSystemListContract(t, newStore, base)
	runListedContract(t, newStore, ready, base)
	runCompleteApplyContract(t, newStore, ready, base)
	runEditContract(t, newStore, ready, base)

	t.Run("watermark advances conditionally", func(t *testing.T) {
		t.Parallel()
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
		t.Parallel()
		s := newStore(t)
		c := syncerror.NewClaim(syncerrortest.SampleRecord("t1", "e-1"), syncerror.SourceWebhook, "", base)
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
