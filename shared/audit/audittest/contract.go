package audittest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/audit"
	"github.com/syncassist/syncassist/shared/identity"
)

// Backend is a store under the contract and what the suite needs of its test besides.
type Backend struct {
	Store audit.Store
	// PutMany stores records as Put does, only faster, for the cases that need more
	// records than a filtered page examines; nil, one Put each.
	PutMany func(t *testing.T, recs []audit.Record)
	// PutAsBefore stores r in the shape an earlier version of the store wrote, so the
	// cases hold queries to finding those records too; nil, the store has one shape.
	PutAsBefore func(t *testing.T, r audit.Record)
}

func (b Backend) putMany(t *testing.T, recs []audit.Record) {
	t.Helper()
	if b.PutMany != nil {
		b.PutMany(t, recs)
		return
	}
	for _, r := range recs {
		if err := b.Store.Put(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
}

func (b Backend) putAsBefore(t *testing.T, r audit.Record) {
	t.Helper()
	if b.PutAsBefore != nil {
		b.PutAsBefore(t, r)
		return
	}
	b.putMany(t, []audit.Record{r})
}

// RunStoreContract runs the cases every audit.Store must pass; newBackend returns an
// empty store for each case, its own: the cases run side by side (t.Parallel).
func RunStoreContract(t *testing.T, newBackend func(t *testing.T) Backend) {
	newStore := func(t *testing.T) audit.Store { return newBackend(t).Store }
	ctx := context.Background()
	base := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	rec := func(tenant, typ string, i int) audit.Record {
		return audit.Record{
			TenantID: tenant, ID: fmt.Sprintf("%s-%s-%03d", tenant, typ, i), At: base.Add(time.Duration(i) * time.Second),
			Actor:      identity.Identity{TenantID: tenant, Actor: "alice", Roles: []string{"approver"}, Source: identity.SourceAuth},
			ActionType: typ, ActionKey: typ + ".test", Result: audit.ResultSuccess, Resource: "res/" + fmt.Sprint(i),
			CorrelationID: "corr", Details: []byte(`{"n":1}`),
		}
	}
	seed := func(t *testing.T, s audit.Store) {
		for i := 0; i < 10; i++ {
			for _, r := range []audit.Record{rec("t1", audit.TypeAI, i), rec("t1", audit.TypeDLP, i), rec("t2", audit.TypeAI, i)} {
				if err := s.Put(ctx, r); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	put := func(t *testing.T, s audit.Store, r audit.Record) {
		t.Helper()
		if err := s.Put(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(p audit.Page) []string {
		var out []string
		for _, r := range p.Records {
			out = append(out, r.ID)
		}
		return out
	}

	t.Run("round trip", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		want := rec("t1", audit.TypeAI, 1)
		if err := s.Put(ctx, want); err != nil {
			t.Fatal(err)
		}
		p, err := s.Query(ctx, audit.Query{TenantID: "t1", From: base, To: base.Add(time.Hour), Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Records) != 1 || fmt.Sprint(p.Records[0]) != fmt.Sprint(want) {
			t.Fatalf("got %+v\nwant %+v", p.Records, want)
		}
	})

	// The SDK sends a put again when its answer was lost, although the first one may have
	// been stored: the record is stored once and neither put fails.
	t.Run("a put sent again", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		r := rec("t1", audit.TypeAI, 1)
		put(t, s, r)
		put(t, s, r)
		p, err := s.Query(ctx, audit.Query{TenantID: "t1", From: base, To: base.Add(time.Hour), Limit: 10})
		if err != nil || len(p.Records) != 1 {
			t.Fatalf("%d records after a put sent twice (err %v), want 1", len(p.Records), err)
		}
	})

	t.Run("tenant and window, newest first", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		seed(t, s)
		p, err := s.Query(ctx, audit.Query{TenantID: "t1", From: base.Add(2 * time.Second), To: base.Add(5 * time.Second), Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Records) != 6 || p.NextCursor != "" {
			t.Fatalf("got %v (cursor %q), want 6 records of seconds 2..4", ids(p), p.NextCursor)
		}
		for i, r := range p.Records {
			if r.TenantID != "t1" {
				t.Fatalf("other tenant's record %+v", r)
			}
			if i > 0 && r.At.After(p.Records[i-1].At) {
				t.Fatalf("not newest first: %v", ids(p))
			}
			if r.At.Before(base.Add(2*time.Second)) || !r.At.Before(base.Add(5*time.Second)) {
				t.Fatalf("outside [from,to): %v", r.At)
			}
		}
	})

	t.Run("action type filter", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		seed(t, s)
		p, err := s.Query(ctx, audit.Query{TenantID: "t1", ActionType: audit.TypeDLP, From: base, To: base.Add(time.Hour), Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Records) != 10 {
			t.Fatalf("got %d records, want 10", len(p.Records))
		}
		for _, r := range p.Records {
			if r.ActionType != audit.TypeDLP || r.TenantID != "t1" {
				t.Fatalf("record %+v", r)
			}
		}
	})

	t.Run("pages cover everything once", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		seed(t, s)
		for _, typ := range []string{"", audit.TypeAI} {
			seen := map[string]bool{}
			q := audit.Query{TenantID: "t1", ActionType: typ, From: base, To: base.Add(time.Hour), Limit: 3}
			eachPage(t, s, q, func(p audit.Page) {
				if len(p.Records) > 3 {
					t.Fatalf("page of %d records with limit 3", len(p.Records))
				}
				for _, r := range p.Records {
					if seen[r.ID] {
						t.Fatalf("record %s twice", r.ID)
					}
					seen[r.ID] = true
				}
			})
			want := 20
			if typ != "" {
				want = 10
			}
			if len(seen) != want {
				t.Fatalf("type %q: %d records over all pages, want %d", typ, len(seen), want)
			}
		}
	})

	t.Run("actor filter matches the stored actor exactly", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		actors := []string{"alice", "al", "alice2", "Alice", `we"ird,"actor":"al",`, "[REDACTED:EMAIL] ~p:0123456789abcdef", "[REDACTED:EMAIL]"}
		for i, a := range actors {
			for j, typ := range []string{audit.TypeAI, audit.TypeDLP} {
				r := rec("t1", typ, 10*i+j)
				r.Actor.Actor = a
				// Nothing but the actor field counts: not the resource, details or
				// correlation id, nor another tenant's record.
				r.Resource, r.Details, r.CorrelationID = `"actor":"al",`, []byte(`{"actor":"al"}`), `,"actor":"al",`
				put(t, s, r)
				other := rec("t2", typ, 10*i+j)
				other.Actor.Actor = "al"
				put(t, s, other)
			}
		}
		for _, a := range actors {
			for _, typ := range []string{"", audit.TypeDLP} {
				p, err := s.Query(ctx, audit.Query{TenantID: "t1", Actor: a, ActionType: typ, From: base, To: base.Add(time.Hour), Limit: 100})
				if err != nil {
					t.Fatal(err)
				}
				want := 2
				if typ != "" {
					want = 1
				}
				if len(p.Records) != want || p.NextCursor != "" {
					t.Fatalf("actor %q type %q: %v (cursor %q), want %d records", a, typ, ids(p), p.NextCursor, want)
				}
				for _, r := range p.Records {
					if r.Actor.Actor != a || r.TenantID != "t1" || (typ != "" && r.ActionType != typ) {
						t.Fatalf("actor %q type %q: record %+v", a, typ, r)
					}
				}
			}
		}
	})

	t.Run("actor filter pages cover the actor's records once", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for i := 0; i < 30; i++ {
			r := rec("t1", audit.TypeAI, i)
			if i%3 == 0 {
				r.Actor.Actor = "bob"
			}
			put(t, s, r)
		}
		seen := map[string]bool{}
		q := audit.Query{TenantID: "t1", Actor: "bob", From: base, To: base.Add(time.Hour), Limit: 4}
		eachPage(t, s, q, func(p audit.Page) {
			for _, r := range p.Records {
				if seen[r.ID] || r.Actor.Actor != "bob" {
					t.Fatalf("record %+v twice or not bob's", r)
				}
				seen[r.ID] = true
			}
		})
		if len(seen) != 10 {
			t.Fatalf("%d of bob's 10 records over all pages", len(seen))
		}
		// With a narrower window: bob's records of seconds 12, 15, ..., 27.
		p, err := s.Query(ctx, audit.Query{TenantID: "t1", Actor: "bob", From: base.Add(10 * time.Second), To: base.Add(28 * time.Second), Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Records) != 6 || p.Records[0].ID != "t1-ai-027" || p.Records[5].ID != "t1-ai-012" {
			t.Fatalf("bob in [10s, 28s): %v", ids(p))
		}
	})

	// A feature asks whether its own action was recorded on one resource (audit.Log.Has):
	// each of action key, resource and result narrows to exact matches only, with or
	// without an action type (a sparse type reads the index, a dense one the partition).
	t.Run("action key, resource and result filters match exactly", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for i, typ := range []string{audit.TypeSyncError, audit.TypeSyncError, audit.TypeSyncError, audit.TypeSyncError, audit.TypeDLP} {
			r := rec("t1", typ, i)
			r.ActionKey, r.Resource, r.Result = "syncerror.revert", "syncerror/se_1", audit.ResultSuccess
			switch i {
			case 1:
				r.ActionKey = "syncerror.revert_x"
			case 2:
				r.Resource = "syncerror/se_10"
			case 3:
				r.Result = audit.ResultFailure
			}
			put(t, s, r)
			other := rec("t2", typ, i)
			other.ActionKey, other.Resource, other.Result = r.ActionKey, r.Resource, r.Result
			put(t, s, other)
		}
		for _, tc := range []struct {
			q    audit.Query
			want []string
		}{
			{audit.Query{ActionType: audit.TypeSyncError, ActionKey: "syncerror.revert", Resource: "syncerror/se_1", Result: audit.ResultSuccess}, []string{"t1-syncerror-000"}},
			{audit.Query{ActionKey: "syncerror.revert", Resource: "syncerror/se_1", Result: audit.ResultSuccess}, []string{"t1-dlp-004", "t1-syncerror-000"}},
			{audit.Query{ActionType: audit.TypeSyncError, Resource: "syncerror/se_1"}, []string{"t1-syncerror-003", "t1-syncerror-001", "t1-syncerror-000"}},
			{audit.Query{ActionType: audit.TypeSyncError, Result: audit.ResultFailure}, []string{"t1-syncerror-003"}},
			{audit.Query{ActionType: audit.TypeDLP, ActionKey: "syncerror.revert"}, []string{"t1-dlp-004"}},
			{audit.Query{ActionKey: "syncerror.revert", Resource: "syncerror/se_2"}, nil},
		} {
			q := tc.q
			q.TenantID, q.From, q.To, q.Limit = "t1", base, base.Add(time.Hour), 100
			var got []string
			eachPage(t, s, q, func(p audit.Page) { got = append(got, ids(p)...) })
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("%+v: %v, want %v", tc.q, got, tc.want)
			}
		}
	})

	t.Run("bad cursor", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		_, err := s.Query(ctx, audit.Query{TenantID: "t1", From: base, To: base.Add(time.Hour), Limit: 3, Cursor: "%%%not-a-cursor"})
		if !errors.Is(err, audit.ErrBadCursor) {
			t.Fatalf("err=%v, want ErrBadCursor", err)
		}
	})

	runActionTypeCases(t, newBackend)
}

// eachPage follows q's cursors to the end, handing each page to check; more than a dozen
// pages means the cursors do not end.
func eachPage(t *testing.T, s audit.Store, q audit.Query, check func(audit.Page)) {
	t.Helper()
	for page := 0; ; page++ {
		p, err := s.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		check(p)
		if p.NextCursor == "" {
			return
		}
		if page > 10 {
			t.Fatal("pagination does not end")
		}
		q.Cursor = p.NextCursor
	}
}
