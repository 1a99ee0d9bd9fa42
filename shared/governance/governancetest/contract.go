package governancetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/connector"
	"github.com/syncassist/syncassist/shared/governance"
)

var base = time.Date(2026, 11, 22, 10, 0, 0, 123456789, time.UTC)

// SampleRejection returns a complete rejection of tenant at base+i seconds.
func SampleRejection(tenant string, i int) governance.OwnershipRejection {
	return governance.OwnershipRejection{
		ID: fmt.Sprintf("rej-%s-%03d", tenant, i), Time: base.Add(time.Duration(i) * time.Second), Tenant: tenant,
		Entity: "salesOrder", DeclaredOwner: connector.SystemHostERP, Caller: connector.SystemCRM,
		Target: connector.SystemHostERP, Policy: governance.PolicyRejectWithAlert, CorrelationID: "corr-" + fmt.Sprint(i),
		Resource: "hosterp/salesOrder/SO-" + fmt.Sprint(i), Fields: []string{"memo", "status"},
	}
}

// SampleLoop returns a complete loop detection of tenant at base+i seconds.
func SampleLoop(tenant string, i int) governance.LoopDetection {
	return governance.LoopDetection{
		ID: fmt.Sprintf("loop-%s-%03d", tenant, i), Time: base.Add(time.Duration(i) * time.Second), Tenant: tenant,
		Entity: "contact", Caller: connector.SystemHostERP, Target: connector.SystemCRM,
		BreakingCondition: "ping-pong of fields [email phone]", CorrelationID: "corr-" + fmt.Sprint(i),
		Resource: "crm/contact/C-" + fmt.Sprint(i),
	}
}

// SampleApproval returns a complete pending approval of tenant at base+i seconds.
func SampleApproval(tenant string, i int) governance.PendingApproval {
	a := governance.PendingApproval{
		ID: fmt.Sprintf("ap_%s_%03d", tenant, i), Time: base.Add(time.Duration(i) * time.Second), Tenant: tenant,
		Entity: "contact", DeclaredOwner: connector.SystemMarketing, Caller: connector.SystemCRM,
		Target: connector.SystemCRM, Resource: "crm/contact/C-" + fmt.Sprint(i), Reason: governance.ReasonOwnership,
		Status: governance.StatusPending, Fields: []string{"marketingOptIn"}, CorrelationID: "corr-" + fmt.Sprint(i),
		RequestedBy: "alice", RequestedByKeys: []string{"k-alice", "k-alice-mail"}, PayloadHash: fmt.Sprintf("%064x", i),
		Request: governance.WriteRequest{
			Target: connector.SystemCRM, Source: connector.SystemCRM, Entity: "contact", RecordID: "C-" + fmt.Sprint(i),
			Fields: map[string]any{"marketingOptIn": true, "score": json.Number("12345678901234567890"),
				"address": map[string]any{"city": "Köln", "lines": []any{"Ring 1", "2. OG"}}},
			IdempotencyKey: "idem-" + fmt.Sprint(i), Reason: "sync.contact", IfVersion: "7",
			// Both values of the flags round-trip across the samples.
			ReleaseByRetry: i%2 == 1, Create: i%2 == 0, UpsertKey: "email",
			// A flow's write is held with its link; the release is loop-checked with it.
			Link: &governance.Link{Key: "crm/contact|marketing/member|C-" + fmt.Sprint(i),
				Fields: map[string]any{"crm/contact/marketingOptIn|marketing/member/OPTIN": true},
				Traces: map[string]governance.Trace{"marketingOptIn": {Replaced: true, Hops: []governance.Hop{
					{System: connector.SystemMarketing, Entity: "member", Record: "m-1", Field: "OPTIN"}}}}},
		},
	}
	if i%2 == 0 {
		// With the change it carries, so that a release is not made of a superseded value.
		a.Request.Link.Changed, a.Request.Link.Received = base.Add(-time.Minute+time.Nanosecond), base.Add(-time.Second)
	}
	return a
}

func fieldsJSON(t *testing.T, f map[string]any) string {
	t.Helper()
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// approvalsEqual compares approvals with the held fields compared as JSON, since a store
// may give back numbers as json.Number.
func approvalsEqual(t *testing.T, got, want governance.PendingApproval) bool {
	t.Helper()
	if fieldsJSON(t, got.Request.Fields) != fieldsJSON(t, want.Request.Fields) {
		return false
	}
	got.Request.Fields, want.Request.Fields = nil, nil
	return reflect.DeepEqual(got, want)
}

// listFunc lists one page of some record type of a tenant in [from, to).
type listFunc[T any] func(s governance.RecordStore, tenant string, from, to time.Time, limit int, cursor string) (governance.Page[T], error)

func runTimedContract[T any](t *testing.T, newStore func(t *testing.T) governance.RecordStore,
	put func(governance.RecordStore, T) error, sample func(tenant string, i int) T,
	list listFunc[T], at func(T) (time.Time, string, string)) {
	seed := func(t *testing.T, s governance.RecordStore) {
		for i := 0; i < 10; i++ {
			for _, tenant := range []string{"t1", "t2"} {
				if err := put(s, sample(tenant, i)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}

	t.Run("round trip", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		want := sample("t1", 1)
		if err := put(s, want); err != nil {
			t.Fatal(err)
		}
		p, err := list(s, "t1", base, base.Add(time.Hour), 10, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) != 1 || !reflect.DeepEqual(p.Items[0], want) || p.NextCursor != "" {
			t.Fatalf("got %+v (cursor %q)\nwant %+v", p.Items, p.NextCursor, want)
		}
	})

	t.Run("tenant and window, newest first", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		seed(t, s)
		from, to := base.Add(2*time.Second), base.Add(5*time.Second)
		p, err := list(s, "t1", from, to, 100, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Items) != 3 || p.NextCursor != "" {
			t.Fatalf("got %d items (cursor %q), want the 3 of seconds 2..4", len(p.Items), p.NextCursor)
		}
		for i, it := range p.Items {
			when, tenant, _ := at(it)
			if tenant != "t1" {
				t.Fatalf("another tenant's record: %+v", it)
			}
			if when.Before(from) || !when.Before(to) {
				t.Fatalf("outside [from, to): %v", when)
			}
			if prev, _, _ := at(p.Items[max(i-1, 0)]); when.After(prev) {
				t.Fatalf("not newest first at %d", i)
			}
		}
		p, err = list(s, "t3", base, base.Add(time.Hour), 100, "")
		if err != nil || len(p.Items) != 0 {
			t.Fatalf("unknown tenant: %d items, err=%v", len(p.Items), err)
		}
	})

	t.Run("pages cover everything once", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		seed(t, s)
		// Two records at the same instant must not be lost at a page boundary.
		twin := sample("t1", 4)
		seen := map[string]bool{}
		if err := put(s, withID(twin, "zz-twin")); err != nil {
			t.Fatal(err)
		}
		cursor := ""
		for pages := 0; ; pages++ {
			p, err := list(s, "t1", base, base.Add(time.Hour), 3, cursor)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Items) > 3 {
				t.Fatalf("page of %d with limit 3", len(p.Items))
			}
			for _, it := range p.Items {
				_, _, id := at(it)
				if seen[id] {
					t.Fatalf("%s on two pages", id)
				}
				seen[id] = true
			}
			if p.NextCursor == "" {
				break
			}
			if pages > 10 {
				t.Fatal("pagination does not end")
			}
			cursor = p.NextCursor
		}
		if len(seen) != 11 {
			t.Fatalf("%d records over all pages, want 11", len(seen))
		}
	})

	t.Run("bad cursor", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		seed(t, s)
		for _, c := range []string{"%%%", "bm90LWEtY3Vyc29y", "cmVqIzIwMjYtMTEtMjI"} {
			if _, err := list(s, "t1", base, base.Add(time.Hour), 3, c); !errors.Is(err, governance.ErrBadCursor) {
				t.Errorf("cursor %q: err=%v, want ErrBadCursor", c, err)
			}
		}
	})
}

// withID gives a record another id; only the three record types are supported.
func withID[T any](v T, id string) T {
	switch r := any(&v).(type) {
	case *governance.OwnershipRejection:
		r.ID = id
	case *governance.LoopDetection:
		r.ID = id
	case *governance.PendingApproval:
		r.ID = id
	}
	return v
}

// RunRecordStoreContract runs the cases every governance.RecordStore must pass; newStore
// returns an empty store for each case, its own: the cases run side by side (t.Parallel).
func RunRecordStoreContract(t *testing.T, newStore func(t *testing.T) governance.RecordStore) {
	ctx := context.Background()

	t.Run("rejections", func(t *testing.T) {
		t.Parallel()
		runTimedContract(t, newStore,
			func(s governance.RecordStore, r governance.OwnershipRejection) error { return s.PutRejection(ctx, r) },
			SampleRejection,
			func(s governance.RecordStore, tenant string, from, to time.Time, limit int, cursor string) (governance.Page[governance.OwnershipRejection], error) {
				return s.ListRejections(ctx, governance.RecordQuery{Tenant: tenant, From: from, To: to, Limit: limit, Cursor: cursor})
			},
			func(r governance.OwnershipRejection) (time.Time, string, string) { return r.Time, r.Tenant, r.ID })
	})

	t.Run("loops", func(t *testing.T) {
		t.Parallel()
		runTimedContract(t, newStore,
			func(s governance.RecordStore, l governance.LoopDetection) error { return s.PutLoop(ctx, l) },
			SampleLoop,
			func(s governance.RecordStore, tenant string, from, to time.Time, limit int, cursor string) (governance.Page[governance.LoopDetection], error) {
				return s.ListLoops(ctx, governance.RecordQuery{Tenant: tenant, From: from, To: to, Limit: limit, Cursor: cursor})
			},
			func(l governance.LoopDetection) (time.Time, string, string) { return l.Time, l.Tenant, l.ID })
	})

	t.Run("a cursor of one listing is refused by another", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for i := 0; i < 3; i++ {
			if err := s.PutRejection(ctx, SampleRejection("t1", i)); err != nil {
				t.Fatal(err)
			}
			if err := s.PutLoop(ctx, SampleLoop("t1", i)); err != nil {
				t.Fatal(err)
			}
		}
		q := governance.RecordQuery{Tenant: "t1", From: base, To: base.Add(time.Hour), Limit: 1}
		p, err := s.ListRejections(ctx, q)
		if err != nil || p.NextCursor == "" {
			t.Fatalf("first page: %+v, %v", p, err)
		}
		q.Cursor = p.NextCursor
		if _, err := s.ListLoops(ctx, q); !errors.Is(err, governance.ErrBadCursor) {
			t.Fatalf("rejection cursor on loops: err=%v, want ErrBadCursor", err)
		}
	})

	t.Run("approval round trip", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		// Between them the two samples set every field of the held request, so a field a
		// store forgets to keep fails here (2026-12-01: UpsertKey and Create were lost).
		requireEveryRequestField(t, SampleApproval("t1", 1).Request, SampleApproval("t1", 2).Request)
		want := SampleApproval("t1", 1)
		for _, a := range []governance.PendingApproval{want, SampleApproval("t1", 2)} {
			if err := s.PutApproval(ctx, a); err != nil {
				t.Fatal(err)
			}
			got, err := s.GetApproval(ctx, "t1", a.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !approvalsEqual(t, got, a) {
				t.Fatalf("got  %+v\nwant %+v", got, a)
			}
		}
		got, _ := s.GetApproval(ctx, "t1", want.ID)
		if n, ok := got.Request.Fields["score"].(json.Number); !ok || n.String() != "12345678901234567890" {
			t.Fatalf("a large number lost precision: %#v", got.Request.Fields["score"])
		}
		if _, err := s.GetApproval(ctx, "t2", want.ID); !errors.Is(err, governance.ErrNotFound) {
			t.Fatalf("another tenant's get: err=%v, want ErrNotFound", err)
		}
		if _, err := s.GetApproval(ctx, "t1", "ap_unknown"); !errors.Is(err, governance.ErrNotFound) {
			t.Fatalf("unknown id: err=%v, want ErrNotFound", err)
		}
		again := want
		again.RequestedBy = "mallory"
		if err := s.PutApproval(ctx, again); !errors.Is(err, governance.ErrExists) {
			t.Fatalf("second put: err=%v, want ErrExists", err)
		}
		if got, _ := s.GetApproval(ctx, "t1", want.ID); got.RequestedBy != "alice" {
			t.Fatalf("second put overwrote the first: %+v", got)
		}
	})

	t.Run("approvals by status and reason, newest first, paged", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for i := 0; i < 7; i++ {
			for _, tenant := range []string{"t1", "t2"} {
				if err := s.PutApproval(ctx, SampleApproval(tenant, i)); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := s.DecideApproval(ctx, "t1", SampleApproval("t1", 3).ID, governance.StatusPending, governance.StatusDenied, "bob", base); err != nil {
			t.Fatal(err)
		}
		var ids []string
		q := governance.ApprovalQuery{Tenant: "t1", Status: governance.StatusPending, Reason: governance.ReasonOwnership, Limit: 4}
		for pages := 0; ; pages++ {
			p, err := s.ListApprovals(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range p.Items {
				if a.Tenant != "t1" || a.Status != governance.StatusPending {
					t.Fatalf("listed %+v", a)
				}
				ids = append(ids, a.ID)
			}
			if p.NextCursor == "" {
				break
			}
			if pages > 5 {
				t.Fatal("pagination does not end")
			}
			q.Cursor = p.NextCursor
		}
		want := []string{"ap_t1_006", "ap_t1_005", "ap_t1_004", "ap_t1_002", "ap_t1_001", "ap_t1_000"}
		if !slices.Equal(ids, want) {
			t.Fatalf("pending of t1: %v, want %v", ids, want)
		}
		// Wait out eventually consistent indexes; the fake and the emulator are immediate.
		p, err := s.ListApprovals(ctx, governance.ApprovalQuery{Tenant: "t1", Status: governance.StatusDenied, Reason: governance.ReasonOwnership, Limit: 10})
		if err != nil || len(p.Items) != 1 || p.Items[0].ID != "ap_t1_003" || p.Items[0].DecidedBy != "bob" {
			t.Fatalf("denied of t1: %+v, %v", p.Items, err)
		}
		p, err = s.ListApprovals(ctx, governance.ApprovalQuery{Tenant: "t1", Status: governance.StatusPending, Reason: "other", Limit: 10})
		if err != nil || len(p.Items) != 0 {
			t.Fatalf("other reason: %+v, %v", p.Items, err)
		}
		if _, err := s.ListApprovals(ctx, governance.ApprovalQuery{Tenant: "t1", Status: governance.StatusPending,
			Reason: governance.ReasonOwnership, Limit: 2, Cursor: "!!"}); !errors.Is(err, governance.ErrBadCursor) {
			t.Fatalf("bad cursor: err=%v", err)
		}
	})

	t.Run("decide approval", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := SampleApproval("t1", 1)
		if err := s.PutApproval(ctx, a); err != nil {
			t.Fatal(err)
		}
		at := base.Add(time.Minute)
		got, err := s.DecideApproval(ctx, "t1", a.ID, governance.StatusPending, governance.StatusReleasing, "bob", at)
		if err != nil || got.Status != governance.StatusReleasing || got.DecidedBy != "bob" || !got.DecidedAt.Equal(at) {
			t.Fatalf("pending→releasing: %+v, %v", got, err)
		}
		if !approvalsEqual(t, withDecision(got, "", time.Time{}, governance.StatusPending), a) {
			t.Fatalf("the update changed more than the decision: %+v", got)
		}
		if _, err := s.DecideApproval(ctx, "t1", a.ID, governance.StatusPending, governance.StatusDenied, "carol", at); !errors.Is(err, governance.ErrStateChanged) {
			t.Fatalf("decide from the wrong state: err=%v, want ErrStateChanged", err)
		}
		got, err = s.DecideApproval(ctx, "t1", a.ID, governance.StatusReleasing, governance.StatusPending, "", time.Time{})
		if err != nil || got.Status != governance.StatusPending || got.DecidedBy != "" || !got.DecidedAt.IsZero() {
			t.Fatalf("releasing→pending undecided: %+v, %v", got, err)
		}
		if stored, _ := s.GetApproval(ctx, "t1", a.ID); stored.DecidedBy != "" || !stored.DecidedAt.IsZero() || stored.Status != governance.StatusPending {
			t.Fatalf("stored after revert: %+v", stored)
		}
		if _, err := s.DecideApproval(ctx, "t2", a.ID, governance.StatusPending, governance.StatusDenied, "eve", at); !errors.Is(err, governance.ErrNotFound) {
			t.Fatalf("another tenant's approval: err=%v, want ErrNotFound", err)
		}
		if _, err := s.DecideApproval(ctx, "t1", "ap_unknown", governance.StatusPending, governance.StatusDenied, "bob", at); !errors.Is(err, governance.ErrNotFound) {
			t.Fatalf("unknown approval: err=%v, want ErrNotFound", err)
		}
	})

	t.Run("an unsettled release is listed under its status and taken again", func(t *testing.T) {
		t.Parallel()
		unsettledContract(t, newStore(t))
	})

	t.Run("concurrent decisions: exactly one wins", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := SampleApproval("t1", 1)
		if err := s.PutApproval(ctx, a); err != nil {
			t.Fatal(err)
		}
		const n = 20
		var wg sync.WaitGroup
		var mu sync.Mutex
		won, lost := 0, 0
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := s.DecideApproval(ctx, "t1", a.ID, governance.StatusPending, governance.StatusReleasing, fmt.Sprint("approver-", i), base)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					won++
				case errors.Is(err, governance.ErrStateChanged):
					lost++
				default:
					t.Errorf("decision %d: %v", i, err)
				}
			}()
		}
		wg.Wait()
		if won != 1 || lost != n-1 {
			t.Fatalf("%d won, %d lost; want 1 and %d", won, lost, n-1)
		}
	})

	t.Run("retake a stale release", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		a := SampleApproval("t1", 1)
		if err := s.PutApproval(ctx, a); err != nil {
			t.Fatal(err)
		}
		stale := base.Add(-time.Minute)
		if _, err := s.RetakeRelease(ctx, "t1", a.ID, stale, "carol", base); !errors.Is(err, governance.ErrStateChanged) {
			t.Fatalf("retake of a pending approval: err=%v, want ErrStateChanged", err)
		}
		if _, err := s.DecideApproval(ctx, "t1", a.ID, governance.StatusPending, governance.StatusReleasing, "bob", base); err != nil {
			t.Fatal(err)
		}
		if _, err := s.RetakeRelease(ctx, "t1", a.ID, base, "carol", base.Add(time.Minute)); !errors.Is(err, governance.ErrStateChanged) {
			t.Fatalf("retake of a fresh release: err=%v, want ErrStateChanged", err)
		}
		later := base.Add(10 * time.Minute)
		const n = 10
		var wg sync.WaitGroup
		var mu sync.Mutex
		won := 0
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := s.RetakeRelease(ctx, "t1", a.ID, later.Add(-2*time.Minute), "carol", later)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					won++
					if got.Status != governance.StatusReleasing || got.DecidedBy != "carol" || !got.DecidedAt.Equal(later) {
						t.Errorf("retaken: %+v", got)
					}
				case !errors.Is(err, governance.ErrStateChanged):
					t.Errorf("retake: %v", err)
				}
			}()
		}
		wg.Wait()
		if won != 1 {
			t.Fatalf("%d retakes won, want 1", won)
		}
		if _, err := s.RetakeRelease(ctx, "t1", "ap_unknown", later, "carol", later); !errors.Is(err, governance.ErrNotFound) {
			t.Fatalf("unknown: err=%v, want ErrNotFound", err)
		}
	})
}

func withDecision(a governance.PendingApproval, by string, at time.Time, s governance.ApprovalStatus) governance.PendingApproval {
	a.DecidedBy, a.DecidedAt, a.Status = by, at, s
	return a
}

// requireEveryRequestField fails unless each field of WriteRequest is set in one of reqs.
func requireEveryRequestField(t *testing.T, reqs ...governance.WriteRequest) {
	t.Helper()
	typ := reflect.TypeFor[governance.WriteRequest]()
	for i := range typ.NumField() {
		if !slices.ContainsFunc(reqs, func(r governance.WriteRequest) bool { return !reflect.ValueOf(r).Field(i).IsZero() }) {
			t.Errorf("no sample sets WriteRequest.%s: the round trip would not notice a store losing it", typ.Field(i).Name)
		}
	}
}
