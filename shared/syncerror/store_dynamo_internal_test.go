package syncerror

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
)

// The SDK sends a request again when its answer was lost (a dropped connection, a
// response that failed its checksum: CI once saw it), although DynamoDB may have applied
// it. A note sent again with its token is answered as the success it was, never appended
// twice; a new note is still refused at the limit.
func TestAddNoteSentTwiceIsAppendedOnce(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx := context.Background()
		db, tables := e.Tables(t)
		s := NewDynamoClaims(db, tables(blueprint.TableProcessed))
		now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
		c := NewClaim(Record{TenantID: "t1", ErrorID: "E-1", RecordType: "salesOrder", RecordID: "SO-1", ErrorCode: "X",
			Message: "m", OccurredAt: now}, SourceWebhook, "", now)
		if _, err := s.Claim(ctx, c); err != nil {
			t.Fatal(err)
		}
		n := Note{At: now, Actor: "alice", Text: "called the customer"}
		entry := HistoryEntry{At: now, Actor: "alice", Action: "noted"}
		for range 2 {
			got, err := s.addNote(ctx, "t1", c.ID, n, entry, now, "token-1")
			if err != nil || len(got.Triage.Notes) != 1 {
				t.Fatalf("the same note sent again: %d notes, err=%v", len(got.Triage.Notes), err)
			}
		}
		for i := 2; i <= MaxNotes; i++ {
			if _, err := s.addNote(ctx, "t1", c.ID, n, entry, now, fmt.Sprintf("token-%d", i)); err != nil {
				t.Fatalf("note %d: %v", i, err)
			}
		}
		if _, err := s.addNote(ctx, "t1", c.ID, n, entry, now, "token-new"); !errors.Is(err, ErrTriageFull) {
			t.Fatalf("a new note past the limit: %v", err)
		}
		if got, err := s.addNote(ctx, "t1", c.ID, n, entry, now, fmt.Sprintf("token-%d", MaxNotes)); err != nil || len(got.Triage.Notes) != MaxNotes {
			t.Fatalf("the last note sent again at the limit: %d notes, err=%v", len(got.Triage.Notes), err)
		}
	})
}
