package audittest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/identity"
)

// runActionTypeCases holds a query by action type to answering every record of the type
// once, whichever way a store finds them (an index, or a filtered read of the tenant's
// records behind many of other types) and in whichever shape the record was stored.
func runActionTypeCases(t *testing.T, newBackend func(t *testing.T) Backend) {
	base := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	rec := func(tenant, typ string, i int) audit.Record {
		return audit.Record{
			TenantID: tenant, ID: fmt.Sprintf("%s-%04d", tenant, i), At: base.Add(time.Duration(i) * time.Second),
			Actor:      identity.Identity{TenantID: tenant, Actor: "alice", Source: identity.SourceAuth},
			ActionType: typ, ActionKey: typ + ".test", Result: audit.ResultSuccess, Details: []byte(`{"n":1}`),
		}
	}
	window := audit.Query{From: base, To: base.Add(time.Hour)}

	t.Run("each action type finds its records in either shape, once", func(t *testing.T) {
		t.Parallel()
		b := newBackend(t)
		want := map[string][]audit.Record{}
		for j, typ := range audit.ActionTypes {
			for _, tenant := range []string{"t1", "t2"} {
				now, before := rec(tenant, typ, 2*j), rec(tenant, typ, 2*j+1)
				b.putMany(t, []audit.Record{now})
				b.putAsBefore(t, before)
				if tenant == "t1" {
					want[typ] = []audit.Record{before, now}
				}
			}
		}
		for _, typ := range audit.ActionTypes {
			for _, limit := range []int{1, 10} {
				q := window
				q.TenantID, q.ActionType, q.Limit = "t1", typ, limit
				if got := allPages(t, b.Store, q); fmt.Sprint(got) != fmt.Sprint(want[typ]) {
					t.Errorf("type %s, limit %d:\n got %v\nwant %v", typ, limit, got, want[typ])
				}
			}
		}
		q := window
		q.TenantID, q.Limit = "t1", 100
		if got := allPages(t, b.Store, q); len(got) != 2*len(audit.ActionTypes) {
			t.Errorf("every type: %d records, want %d", len(got), 2*len(audit.ActionTypes))
		}
	})

	t.Run("a machine type's pages find every record once behind more of other types than a filtered page examines", func(t *testing.T) {
		t.Parallel()
		b := newBackend(t)
		scanCap := audit.FilteredScanCap
		n := 2*scanCap + 50
		// Positions counted from the newest: some at the start, one run across where a
		// filtered page stops examining, gaps longer than a page examines, the oldest.
		dlpAt := []int{0, 1, 2, 500, scanCap - 1, scanCap, scanCap + 1, scanCap + 2, 2*scanCap + 10, n - 1}
		before := []int{1, scanCap, n - 1}
		bobs := []int{2, scanCap + 1, 2*scanCap + 10}
		var recs, old, wantDLP, wantBob []audit.Record
		for k := range n {
			typ := []string{audit.TypeSyncError, audit.TypeAI, audit.TypeConnector, audit.TypeSettings}[k%4]
			if slices.Contains(dlpAt, k) {
				typ = audit.TypeDLP
			}
			r := rec("t1", typ, n-1-k)
			if slices.Contains(bobs, k) {
				r.Actor.Actor = "bob"
			}
			if slices.Contains(before, k) {
				old = append(old, r)
			} else {
				recs = append(recs, r)
			}
			if typ == audit.TypeDLP {
				wantDLP = append(wantDLP, r)
				if r.Actor.Actor == "bob" {
					wantBob = append(wantBob, r)
				}
			}
			if k%8 == 0 {
				recs = append(recs, rec("t2", audit.TypeDLP, n-1-k)) // another tenant's, not answered
			}
		}
		b.putMany(t, recs)
		for _, r := range old {
			b.putAsBefore(t, r)
		}
		for _, limit := range []int{2, 200} {
			q := window
			q.TenantID, q.ActionType, q.Limit = "t1", audit.TypeDLP, limit
			if got := allPages(t, b.Store, q); fmt.Sprint(got) != fmt.Sprint(wantDLP) {
				t.Errorf("dlp, limit %d:\n got %v\nwant %v", limit, recordIDs(got), recordIDs(wantDLP))
			}
		}
		q := window
		q.TenantID, q.ActionType, q.Actor, q.Limit = "t1", audit.TypeDLP, "bob", 1
		if got := allPages(t, b.Store, q); fmt.Sprint(got) != fmt.Sprint(wantBob) {
			t.Errorf("dlp of bob:\n got %v\nwant %v", recordIDs(got), recordIDs(wantBob))
		}
	})
}

// allPages is every record q's pages answer, in order, each page held to q's limit.
func allPages(t *testing.T, s audit.Store, q audit.Query) []audit.Record {
	t.Helper()
	var all []audit.Record
	for range 50 {
		p, err := s.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Records) > q.Limit {
			t.Fatalf("a page of %d records with limit %d", len(p.Records), q.Limit)
		}
		all = append(all, p.Records...)
		if p.NextCursor == "" {
			return all
		}
		q.Cursor = p.NextCursor
	}
	t.Fatal("pagination does not end")
	return nil
}

func recordIDs(recs []audit.Record) []string {
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.ID)
	}
	return out
}
