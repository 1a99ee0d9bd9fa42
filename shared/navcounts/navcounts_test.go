package navcounts_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/identity"
	"github.com/syncassist/syncassist/shared/navcounts"
)

func counter(n int, more bool, err error) navcounts.Counter {
	return func(_ context.Context, tenantID string) (navcounts.Count, error) {
		if tenantID != "acme" {
			return navcounts.Count{}, errors.New("wrong tenant " + tenantID)
		}
		return navcounts.Count{Pending: n, More: more}, err
	}
}

func get(c *navcounts.Counts, roles ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("GET", "/api/console/counts", nil)
	if roles != nil {
		r = r.WithContext(identity.WithAuth(r.Context(), identity.Principal{Subject: "alice", TenantID: "acme", Roles: roles}))
	}
	w := httptest.NewRecorder()
	c.ServeHTTP(w, r)
	return w
}

func TestCountsFollowTheRole(t *testing.T) {
	c := &navcounts.Counts{Queue: counter(7, false, nil), Finance: counter(100, true, nil), Governance: counter(2, false, nil)}
	for role, wantGov := range map[string]bool{"operator": false, "approver": true} {
		w := get(c, role)
		var a navcounts.Answer
		if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &a) != nil {
			t.Fatalf("%s: %d %s", role, w.Code, w.Body)
		}
		if a.Queue == nil || a.Queue.Pending != 7 || a.Finance == nil || !a.Finance.More || (a.Governance != nil) != wantGov {
			t.Fatalf("%s: %s", role, w.Body)
		}
	}
	if w := get(c); w.Code != 401 {
		t.Fatalf("anonymous: %d", w.Code)
	}
	c.Finance = counter(0, false, errors.New("throttled"))
	if w := get(c, "operator"); w.Code != 503 {
		t.Fatalf("a count that cannot be read: %d %s", w.Code, w.Body)
	}
}

// The three counts are read at once: each counter here waits until all three have started,
// which a sequential read never reaches (the guard turns that hang into a failure).
func TestCountsAreReadConcurrently(t *testing.T) {
	var started sync.WaitGroup
	started.Add(3)
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	barrier := func(n int) navcounts.Counter {
		return func(ctx context.Context, _ string) (navcounts.Count, error) {
			started.Done()
			select {
			case <-all:
				return navcounts.Count{Pending: n}, nil
			case <-time.After(10 * time.Second):
				return navcounts.Count{}, errors.New("the other counts never started")
			}
		}
	}
	c := &navcounts.Counts{Queue: barrier(1), Finance: barrier(2), Governance: barrier(3)}
	w := get(c, "approver")
	var a navcounts.Answer
	if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &a) != nil {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if a.Queue.Pending != 1 || a.Finance.Pending != 2 || a.Governance.Pending != 3 {
		t.Fatalf("%s", w.Body)
	}
}

func TestOfSaysMoreWhenThereIsANextPage(t *testing.T) {
	if got := navcounts.Of(100, "c"); got != (navcounts.Count{Pending: 100, More: true}) {
		t.Fatal(got)
	}
	if got := navcounts.Of(3, ""); got != (navcounts.Count{Pending: 3}) {
		t.Fatal(got)
	}
}

// The Escalated inbox's badge comes with the others, for approvers only (issue 35 §1).
func TestEscalatedIsCountedForApprovers(t *testing.T) {
	c := &navcounts.Counts{Queue: counter(1, false, nil), Escalated: counter(4, false, nil)}
	for role, want := range map[string]bool{"operator": false, "approver": true} {
		var a navcounts.Answer
		if w := get(c, role); w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &a) != nil {
			t.Fatalf("%s: %d %s", role, w.Code, w.Body)
		}
		if (a.Escalated != nil) != want || want && a.Escalated.Pending != 4 {
			t.Fatalf("%s: escalated %+v", role, a.Escalated)
		}
	}
}
