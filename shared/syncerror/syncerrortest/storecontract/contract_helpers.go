package storecontract

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// The contract suites' own helpers: claims made for a test, and races counted.

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

// ready claims a row and completes its diagnosis, so it can be approved.
func ready(t *testing.T, s syncerror.ClaimStore, tenant, errorID string, at time.Time) syncerror.Claim {
	t.Helper()
	ctx := context.Background()
	c := syncerror.NewClaim(syncerrortest.SampleRecord(tenant, errorID), syncerror.SourceWebhook, "msg", at)
	mustClaim(t, s, c)
	got, err := s.BeginDiagnosis(ctx, tenant, c.ID, at, at)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CompleteDiagnosis(ctx, tenant, c.ID, got.DiagnosisAttempts, syncerrortest.SampleProposal(syncerror.InferenceID(c.ID, 1), at), at); err != nil {
		t.Fatal(err)
	}
	return c
}

// historyAt makes the history entries the contracts append: alice's, at base, with a note.
func historyAt(base time.Time) func(action string) syncerror.HistoryEntry {
	return func(action string) syncerror.HistoryEntry {
		return syncerror.HistoryEntry{At: base, Actor: "alice", Action: action, Note: "n"}
	}
}
