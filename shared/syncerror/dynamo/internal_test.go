package dynamo

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// The SDK sends an update again when its answer was lost (a dropped connection, a body
// that failed its checksum: CI once saw dynalite's do so), although DynamoDB may have
// applied it. Sent again, an update is neither applied twice nor reported as a conflict:
// here each one is sent twice with its write token, as the SDK's retry would be.
// queuedClaim stores a queued claim of tenant t1 for errorID, made at at.
func queuedClaim(t *testing.T, s *DynamoClaims, errorID string, at time.Time) syncerror.Claim {
	t.Helper()
	c := syncerror.NewClaim(syncerror.Record{TenantID: "t1", ErrorID: errorID, RecordType: "salesOrder", RecordID: "SO-1",
		ErrorCode: "X", Message: "m", OccurredAt: at}, syncerror.SourceWebhook, "", at)
	if _, err := s.Claim(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	return c
}

// sentTwice is the claims store on e's processed table, and the same store through a
// client that sends every op request twice, as the SDK does when an answer is lost.
func sentTwice(t *testing.T, e emutest.Emulator, op string) (s, twice *DynamoClaims) {
	db, tables := e.Tables(t)
	return NewDynamoClaims(db, tables(blueprint.TableProcessed)), NewDynamoClaims(e.SentTwice(t, op), tables(blueprint.TableProcessed))
}

func TestUpdateSentTwiceIsAppliedOnceAndAnsweredAsDone(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx := context.Background()
		db, tables := e.Tables(t)
		s := NewDynamoClaims(db, tables(blueprint.TableProcessed))
		tok := "first"
		s.token = func() string { return tok }
		now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
		c := queuedClaim(t, s, "E-1", now)
		twice := func(name string, op func() error) {
			t.Helper()
			for i := range 2 {
				if err := op(); err != nil {
					t.Fatalf("%s, sent %d times: %v", name, i+1, err)
				}
			}
			tok += "+" // the next update is another one
		}
		n := syncerror.Note{At: now, Actor: "alice", Text: "called the customer"}
		twice("note", func() error {
			_, err := s.AddNote(ctx, "t1", c.ID, n, syncerror.HistoryEntry{At: now, Actor: "alice", Action: "noted"}, now)
			return err
		})
		twice("assign", func() error {
			_, err := s.Assign(ctx, "t1", c.ID, "", "alice", syncerror.HistoryEntry{At: now, Actor: "alice", Action: "assigned"}, now)
			return err
		})
		twice("escalate", func() error {
			return s.Decide(ctx, "t1", c.ID, syncerror.StatusPending, syncerror.StatusEscalated, syncerror.HistoryEntry{At: now, Actor: "alice", Action: "escalated"}, now)
		})
		got, err := s.Get(ctx, "t1", c.ID)
		if err != nil || len(got.Triage.Notes) != 1 || got.Triage.Assignee != "alice" || got.Status != syncerror.StatusEscalated ||
			len(got.History) != len(c.History)+3 {
			t.Fatalf("after three updates sent twice: %d notes, assignee %q, %s, %d history entries (want 1, alice, escalated, %d)",
				len(got.Triage.Notes), got.Triage.Assignee, got.Status, len(got.History), len(c.History)+3)
		}
		// Another update with the same expectations is a real conflict.
		if err := s.Decide(ctx, "t1", c.ID, syncerror.StatusPending, syncerror.StatusRejected, syncerror.HistoryEntry{At: now, Actor: "bob", Action: "rejected"}, now); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("a decision on a row escalated meanwhile: %v", err)
		}
	})
}

// A document's put sent again after its first was applied is done, not a conflict:
// UpdateDoc would otherwise apply its change twice (a learned fix's approvals counted
// twice, which an auto-apply rule's minimum reads). Another writer's put on the same
// version is still refused.
func TestDocPutSentTwiceIsDone(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx := context.Background()
		s, twice := sentTwice(t, e, "PutItem")
		now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
		d := syncerror.Doc{Key: syncerror.DocKnowledge + "sig#fix", Body: []byte(`{"approvals":1}`)}
		if got, err := twice.PutDoc(ctx, "t1", d, now); err != nil || got.Version != 1 {
			t.Fatalf("a create sent twice: version %d, %v", got.Version, err)
		}
		d.Version, d.Body = 1, []byte(`{"approvals":2}`)
		if got, err := twice.PutDoc(ctx, "t1", d, now); err != nil || got.Version != 2 {
			t.Fatalf("an update sent twice: version %d, %v", got.Version, err)
		}
		if _, err := s.PutDoc(ctx, "t1", d, now); !errors.Is(err, syncerror.ErrStateChanged) {
			t.Fatalf("another writer's put on version 1: %v, want ErrStateChanged", err)
		}
		if got, err := s.GetDoc(ctx, "t1", d.Key); err != nil || got.Version != 2 || string(got.Body) != `{"approvals":2}` {
			t.Fatalf("stored %d %s, %v", got.Version, got.Body, err)
		}
	})
}
