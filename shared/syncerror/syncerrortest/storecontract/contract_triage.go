package storecontract

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/syncassist/syncassist/shared/syncerror"
	"github.com/syncassist/syncassist/shared/syncerror/syncerrortest"
)

// runTriageContract covers assign, tag and note (each conditional, each with a history
// entry) and the listing's search, assignee, tag filters and oldest-first order.
func runTriageContract(t *testing.T, newStore func(t *testing.T) syncerror.ClaimStore, base time.Time) {
	ctx := context.Background()
	entry := historyAt(base)
	claim := func(t *testing.T, s syncerror.ClaimStore, errorID, recordID, msg string, at time.Time) syncerror.Claim {
		t.Helper()
		r := syncerrortest.SampleRecord("t1", errorID)
		r.RecordID, r.Message = recordID, msg
		c := syncerror.NewClaim(r, syncerror.SourceWebhook, "", at)
		mustClaim(t, s, c)
		return c
	}

	t.Run("assign is compare-and-set on the assignee seen", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := claim(t, s, "a-1", "SO-1", "m", base)
		got, err := s.Assign(ctx, "t1", c.ID, "", "alice", entry("assigned"), base.Add(time.Minute))
		if err != nil || got.Triage.Assignee != "alice" || !got.UpdatedAt.Equal(base.Add(time.Minute)) {
			t.Fatalf("assign: %+v err=%v", got.Triage, err)
		}
		if _, err := s.Assign(ctx, "t1", c.ID, "", "bob", entry("assigned"), base); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("assign over alice as if unassigned: err=%v", err)
		}
		if _, err := s.Assign(ctx, "t1", c.ID, "carol", "bob", entry("assigned"), base); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("assign from the wrong assignee: err=%v", err)
		}
		if got, err = s.Assign(ctx, "t1", c.ID, "alice", "", entry("unassigned"), base); err != nil || got.Triage.Assignee != "" {
			t.Fatalf("unassign: %+v err=%v", got.Triage, err)
		}
		if n := len(got.History); n != len(c.History)+2 || got.History[n-1] != entry("unassigned") {
			t.Fatalf("history %+v", got.History)
		}
		if _, err := s.Assign(ctx, "t1", "se_missing", "", "bob", entry("assigned"), base); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("missing row: err=%v", err)
		}
		if _, err := s.Assign(ctx, "t2", c.ID, "", "bob", entry("assigned"), base); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("other tenant: err=%v", err)
		}
	})

	t.Run("tags are a bounded set", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := claim(t, s, "t-1", "SO-1", "m", base)
		for _, tag := range []string{"vip", "eu", "vip"} {
			if _, err := s.Tag(ctx, "t1", c.ID, tag, true, entry("tagged"), base); err != nil {
				t.Fatal(err)
			}
		}
		got, _ := s.Get(ctx, "t1", c.ID)
		if !reflect.DeepEqual(got.Triage.Tags, []string{"eu", "vip"}) {
			t.Fatalf("tags %v", got.Triage.Tags)
		}
		for i := 2; i < syncerror.MaxTags; i++ {
			if _, err := s.Tag(ctx, "t1", c.ID, fmt.Sprintf("x%d", i), true, entry("tagged"), base); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Tag(ctx, "t1", c.ID, "one-too-many", true, entry("tagged"), base); !errors.Is(err, syncerror.ErrTriageFull) {
			t.Fatalf("eleventh tag: err=%v", err)
		}
		if _, err := s.Tag(ctx, "t1", c.ID, "vip", true, entry("tagged"), base); err != nil {
			t.Fatalf("a tag the full row has: err=%v", err)
		}
		got, err := s.Tag(ctx, "t1", c.ID, "vip", false, entry("untagged"), base)
		if err != nil || len(got.Triage.Tags) != syncerror.MaxTags-1 || got.Triage.Tags[0] != "eu" {
			t.Fatalf("remove: %v err=%v", got.Triage.Tags, err)
		}
		for _, tag := range got.Triage.Tags {
			if _, err := s.Tag(ctx, "t1", c.ID, tag, false, entry("untagged"), base); err != nil {
				t.Fatal(err)
			}
		}
		if got, _ = s.Get(ctx, "t1", c.ID); got.Triage.Tags != nil {
			t.Fatalf("every tag removed: %#v", got.Triage.Tags)
		}
		if _, err := s.Tag(ctx, "t1", "se_missing", "vip", true, entry("tagged"), base); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("missing row: err=%v", err)
		}
	})

	t.Run("notes append up to the limit", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := claim(t, s, "n-1", "SO-1", "m", base)
		n := syncerror.Note{At: base, Actor: "alice", Text: "called the customer"}
		for i := 0; i < syncerror.MaxNotes; i++ {
			if _, err := s.AddNote(ctx, "t1", c.ID, n, entry("noted"), base); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.AddNote(ctx, "t1", c.ID, n, entry("noted"), base); !errors.Is(err, syncerror.ErrTriageFull) {
			t.Fatalf("note past the limit: err=%v", err)
		}
		got, _ := s.Get(ctx, "t1", c.ID)
		if len(got.Triage.Notes) != syncerror.MaxNotes || got.Triage.Notes[0] != n || len(got.History) != len(c.History)+syncerror.MaxNotes {
			t.Fatalf("%d notes, %d history entries", len(got.Triage.Notes), len(got.History))
		}
		if _, err := s.AddNote(ctx, "t1", "se_missing", n, entry("noted"), base); !errors.Is(err, syncerror.ErrNotFound) {
			t.Fatalf("missing row: err=%v", err)
		}
	})

	t.Run("list searches, filters by assignee and tag, pages oldest first", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		var rows []syncerror.Claim
		for i := 0; i < 6; i++ {
			msg := fmt.Sprintf("Invalid value for field shipcountry %d", i)
			if i%2 == 1 {
				msg = fmt.Sprintf("Customer record locked %d", i)
			}
			rows = append(rows, claim(t, s, fmt.Sprintf("ERR-%d", i), fmt.Sprintf("SO-%d", 100+i), msg, base.Add(time.Duration(i)*time.Minute)))
		}
		ids := func(is ...int) []string {
			var out []string
			for _, i := range is {
				out = append(out, rows[i].ID)
			}
			return out
		}
		all := func(q syncerror.ListQuery) []string {
			t.Helper()
			var got []string
			for page := 0; page < 20; page++ {
				p, err := s.List(ctx, "t1", q)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, claimIDs(p.Claims)...)
				if q.Cursor = p.NextCursor; q.Cursor == "" {
					return got
				}
			}
			t.Fatal("listing did not end")
			return nil
		}
		pending := syncerror.ListQuery{Status: syncerror.StatusPending, Limit: 1}
		for _, c := range []struct {
			search string
			want   []string
		}{
			{"LOCKED", ids(5, 3, 1)}, // message, any case
			{"err-4", ids(4)},        // error id
			{"SO-102", ids(2)},       // record id
			{"nothing like it", nil},
		} {
			q := pending
			q.Search = c.search
			if got := all(q); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("search %q = %v, want %v", c.search, got, c.want)
			}
		}
		if _, err := s.Assign(ctx, "t1", rows[1].ID, "", "bob", entry("assigned"), base); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Assign(ctx, "t1", rows[4].ID, "", "bob", entry("assigned"), base); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Tag(ctx, "t1", rows[2].ID, "vip", true, entry("tagged"), base); err != nil {
			t.Fatal(err)
		}
		q := pending
		q.Assignee = "bob"
		if got := all(q); !reflect.DeepEqual(got, ids(4, 1)) {
			t.Fatalf("assignee bob = %v", got)
		}
		q = pending
		q.Unassigned, q.Oldest = true, true
		if got := all(q); !reflect.DeepEqual(got, ids(0, 2, 3, 5)) {
			t.Fatalf("unassigned, oldest first = %v", got)
		}
		q = pending
		q.Tag = "vip"
		if got := all(q); !reflect.DeepEqual(got, ids(2)) {
			t.Fatalf("tag vip = %v", got)
		}
		q = pending
		q.Tag = "vi"
		if got := all(q); got != nil {
			t.Fatalf("a tag prefix must not match: %v", got)
		}
		q = pending
		q.Oldest, q.Limit = true, 4
		if got := all(q); !reflect.DeepEqual(got, ids(0, 1, 2, 3, 4, 5)) {
			t.Fatalf("oldest first = %v", got)
		}
	})
}
