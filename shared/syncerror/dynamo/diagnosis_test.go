package dynamo

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// A row an older version took for diagnosis holds diagnosis "diagnosing" under its own
// by_diagnosis key and no held_at (diagnosis.go). The reconcile still finds it when
// its attempt is stale, a worker can take it over, and the row is requeued or completed as
// one taken now.
func TestARowTakenBeforeHeldAtIsStillFoundTakenAndRequeued(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx := context.Background()
		s, c, at := claimedAt3(t, e)
		old := s.item(c.ID)
		old["diagnosis"] = dynamostore.Str(string(syncerror.DiagnosisDiagnosing))
		old["diagnosis_key"] = dynamostore.Str("t1#diagnosing")
		old["diagnosis_attempts"] = dynamostore.Num(1)
		s.put(old)

		if got, err := s.Get(ctx, "t1", c.ID); err != nil || got.Diagnosis != syncerror.DiagnosisDiagnosing || !got.DiagnosisSince.Equal(at) {
			t.Fatalf("the old row reads %s since %v (%v)", got.Diagnosis, got.DiagnosisSince, err)
		}
		if got, err := s.Stuck(ctx, "t1", syncerror.DiagnosisQueued, at.Add(time.Hour), 10); err != nil || len(got) != 0 {
			t.Fatalf("the old diagnosing row listed as stuck queued: %v %v", claimIDs(got), err)
		}
		if _, err := s.BeginDiagnosis(ctx, "t1", c.ID, at.Add(time.Minute), at.Add(-time.Minute)); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("a fresh old attempt taken over: %v", err)
		}
		took := at.Add(20 * time.Minute)
		got, err := s.BeginDiagnosis(ctx, "t1", c.ID, took, took.Add(-10*time.Minute))
		if err != nil || got.Diagnosis != syncerror.DiagnosisDiagnosing || got.DiagnosisAttempts != 2 || !got.DiagnosisSince.Equal(took) {
			t.Fatalf("a stale old attempt taken over: %+v %v", got, err)
		}
		stuck, err := s.Stuck(ctx, "t1", syncerror.DiagnosisDiagnosing, took.Add(time.Minute), 10)
		if err != nil || len(stuck) != 1 || !stuck[0].DiagnosisSince.Equal(took) {
			t.Fatalf("stuck diagnosing: %+v %v", stuck, err)
		}
		if err := s.Requeue(ctx, "t1", c.ID, syncerror.DiagnosisDiagnosing, at, took); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("requeued by the time of the attempt it no longer holds: %v", err)
		}
		if err := s.Requeue(ctx, "t1", c.ID, syncerror.DiagnosisDiagnosing, took, took.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		row := s.item(c.ID)
		if dynamostore.GetString(row, "diagnosis") != "queued" || dynamostore.GetString(row, "diagnosis_key") != "t1#queued" ||
			row[attrHeldAt] != nil {
			t.Fatalf("the requeued row is stored as %v", row)
		}
	})
}

// A row held by an attempt is neither queued for the reconcile nor requeued as queued, and
// a stale hold is found as diagnosing since the attempt took it.
func TestAHeldRowIsStuckOnlyAsDiagnosing(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx := context.Background()
		s, c, at := claimedAt3(t, e)
		took := at.Add(30 * time.Minute)
		if _, err := s.BeginDiagnosis(ctx, "t1", c.ID, took, took.Add(-10*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := s.Requeue(ctx, "t1", c.ID, syncerror.DiagnosisQueued, at, took); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("a held row requeued as queued: %v", err)
		}
		if got, err := s.Stuck(ctx, "t1", syncerror.DiagnosisQueued, took.Add(time.Hour), 10); err != nil || len(got) != 0 {
			t.Fatalf("a held row listed as stuck queued: %v %v", claimIDs(got), err)
		}
		if got, err := s.Stuck(ctx, "t1", syncerror.DiagnosisDiagnosing, took, 10); err != nil || len(got) != 0 {
			t.Fatalf("a hold since %v stuck before it: %v %v", took, claimIDs(got), err)
		}
		got, err := s.Stuck(ctx, "t1", syncerror.DiagnosisDiagnosing, took.Add(time.Second), 10)
		if err != nil || len(got) != 1 || !got[0].DiagnosisSince.Equal(took) {
			t.Fatalf("stuck diagnosing: %+v %v", got, err)
		}
	})
}

func claimIDs(cs []syncerror.Claim) []string {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	return ids
}

// claimedAt3 is a raw store holding one queued claim of tenant t1, claimed at 03:00.
func claimedAt3(t *testing.T, e emutest.Emulator) (rawRows, syncerror.Claim, time.Time) {
	s := newRawRows(t, e)
	at := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	return s, queuedClaim(t, s.DynamoClaims, "E-1", at), at
}

// A diagnosis write the SDK sent again after its first was applied (its answer lost) is
// done, each of them making its own condition false: the take returns the held row, not
// "taken by another"; the completion is stored, not dropped as overtaken; the requeue is
// done. Another taker of the held row is still refused.
func TestDiagnosisWritesSentTwiceAreDone(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx := context.Background()
		s, twice := sentTwice(t, e, "UpdateItem")
		at := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
		c := queuedClaim(t, s, "E-1", at)
		got, err := twice.BeginDiagnosis(ctx, "t1", c.ID, at.Add(time.Second), at)
		if err != nil || got.Diagnosis != syncerror.DiagnosisDiagnosing || got.DiagnosisAttempts != 1 {
			t.Fatalf("a take sent twice: %s, attempt %d, %v", got.Diagnosis, got.DiagnosisAttempts, err)
		}
		if _, err := s.BeginDiagnosis(ctx, "t1", c.ID, at.Add(2*time.Second), at); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("another take of the held row: %v, want ErrStateChanged", err)
		}
		p := syncerror.Proposal{Class: "value", Confidence: 0.9, InferenceID: syncerror.InferenceID(c.ID, 1)}
		if err := twice.CompleteDiagnosis(ctx, "t1", c.ID, 1, p, at.Add(3*time.Second)); err != nil {
			t.Fatalf("a completion sent twice: %v", err)
		}
		if row, _ := s.Get(ctx, "t1", c.ID); row.Diagnosis != syncerror.DiagnosisReady {
			t.Fatalf("after the completion: %s", row.Diagnosis)
		}
		q := queuedClaim(t, s, "E-2", at)
		if err := twice.Requeue(ctx, "t1", q.ID, syncerror.DiagnosisQueued, q.DiagnosisSince, at.Add(time.Hour)); err != nil {
			t.Fatalf("a requeue sent twice: %v", err)
		}
	})
}
