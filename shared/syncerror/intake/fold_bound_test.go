package intake_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/syncassist/syncassist/shared/syncerror"
)

// A row keeps at most MaxErrorKeys errorId keys (every write of the row carries them).
// Past the bound an occurrence is still counted, once per errorId: deliveries of one
// errorId at once meet in its slot among the row's last keys, and a later redelivery,
// edited or not, before or after the row is closed, finds its errorId's record marked with
// the row. Before 2026-12-01 such a redelivery, as the reconcile's next read of the host's
// list is, counted again, and after the close opened a row of its own.
func TestIngestFoldPastTheKeyBound(t *testing.T) {
	const n = syncerror.MaxErrorKeys + 5
	for name, newStore := range foldStores() {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			claims := newStore(t)
			f := foldFixture(t, claims)
			var first string
			for i := range n {
				got := post(t, f, recurring(fmt.Sprintf("K-%d", i), i))
				if i == 0 {
					first = got.ID
				}
				if got.ID != first || got.Duplicate {
					t.Fatalf("post %d: %+v, want an occurrence of %s", i, got, first)
				}
			}
			counted := func(want int) {
				t.Helper()
				row, err := claims.Get(ctx, "acme", first)
				if err != nil || row.Retry.Occurrences != want || len(row.Retry.ErrorKeys) != syncerror.MaxErrorKeys {
					t.Fatalf("row %d occurrences, %d keys, %v; want %d and %d", row.Retry.Occurrences, len(row.Retry.ErrorKeys), err,
						want, syncerror.MaxErrorKeys)
				}
			}
			counted(n)
			past := recurring(fmt.Sprintf("K-%d", n-2), n-2)
			edited := []byte(strings.Replace(string(past), "Invalid value", "Edited: invalid value", 1))
			for i, b := range [][]byte{past, recurring("K-3", 3), edited} {
				if got := post(t, f, b); !got.Duplicate || got.ID != first {
					t.Fatalf("redelivery %d: %+v, want a duplicate of %s", i, got, first)
				}
			}
			counted(n)
			// Deliveries of one new errorId at once, as a host's retry on a timeout beside the
			// reconcile's read: one counts it.
			var wg sync.WaitGroup
			dups := make([]bool, 4)
			for i := range dups {
				wg.Go(func() { dups[i] = post(t, f, recurring("K-race", n)).Duplicate })
			}
			wg.Wait()
			if slices.Index(dups, false) < 0 || slices.Index(dups[slices.Index(dups, false)+1:], false) >= 0 {
				t.Fatalf("four deliveries of one errorId answered duplicate %v; want one counted", dups)
			}
			counted(n + 1)
			closeRow(t, claims, first)
			next := post(t, f, recurring("K-next", n+1))
			if next.ID == first || next.Duplicate {
				t.Fatalf("a new errorId after the close: %+v", next)
			}
			sent := len(f.queue.Sent())
			if late := post(t, f, past); !late.Duplicate || late.ID != first || len(f.queue.Sent()) != sent {
				t.Fatalf("a late redelivery past the bound: %+v, %d diagnoses more; want a duplicate of %s", late, len(f.queue.Sent())-sent, first)
			}
			counted(n + 1)
			if again := post(t, f, recurring("K-next", n+1)); !again.Duplicate || again.ID != next.ID {
				t.Fatalf("a redelivery of the next row's error: %+v; want a duplicate of %s", again, next.ID)
			}
			if row, err := claims.Get(ctx, "acme", next.ID); err != nil || row.Retry.Occurrences != 1 {
				t.Fatalf("the next row: %d occurrences, %v; want 1", row.Retry.Occurrences, err)
			}
		})
	}
}

// failingFold is a claim store whose fold fails while fail is set, as a throttled or
// unreachable table does.
type failingFold struct {
	syncerror.ClaimStore
	fail bool
}

func (s *failingFold) Fold(ctx context.Context, c syncerror.Claim, errorKey string) (syncerror.FoldResult, syncerror.Claim, error) {
	if s.fail {
		return 0, syncerror.Claim{}, errors.New("the table is unavailable")
	}
	return s.ClaimStore.Fold(ctx, c, errorKey)
}

// A post past the bound whose count failed is answered 503 and counted on its retry: its
// errorId's record, claimed by the failed post, makes the retry a redelivery, which finds
// no row holding the error and counts it.
func TestIngestFoldPastTheKeyBoundRetriesAFailedCount(t *testing.T) {
	for name, newStore := range foldStores() {
		t.Run(name, func(t *testing.T) {
			claims := &failingFold{ClaimStore: newStore(t)}
			f := foldFixture(t, claims)
			var first string
			for i := range syncerror.MaxErrorKeys + 2 {
				first = post(t, f, recurring(fmt.Sprintf("R-%d", i), i)).ID
			}
			claims.fail = true
			if rec := f.do(t, req{tenant: "acme", body: recurring("R-late", 99)}); rec.Code != http.StatusServiceUnavailable {
				t.Fatalf("a post whose fold failed: %d %s", rec.Code, rec.Body)
			}
			claims.fail = false
			if got := post(t, f, recurring("R-late", 99)); got.Duplicate || got.ID != first {
				t.Fatalf("the retry: %+v; want the occurrence counted on %s", got, first)
			}
			if row, err := claims.Get(context.Background(), "acme", first); err != nil || row.Retry.Occurrences != syncerror.MaxErrorKeys+3 {
				t.Fatalf("%d occurrences, %v; want %d", row.Retry.Occurrences, err, syncerror.MaxErrorKeys+3)
			}
			if got := post(t, f, recurring("R-late", 99)); !got.Duplicate {
				t.Fatalf("a redelivery after the retry: %+v; want a duplicate", got)
			}
		})
	}
}
