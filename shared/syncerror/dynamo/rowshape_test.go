package dynamo

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// A new row leaves out what its other attributes hold (issue 37 §1: 120 bytes, which
// kept a sample row and its by_status entry over a kilobyte): claimed_at (claimed_sort
// begins with it), first_seen (claimed_at until a fold moves it) and a diagnosis_attempts
// of 0. It reads back the same; and a row written before, with all three, reads as it did.
func TestNewRowLeavesOutWhatItsKeysHoldAndReadsTheSame(t *testing.T) {
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx := context.Background()
		s := newRawRows(t, e)
		now := time.Date(2026, 11, 29, 10, 0, 0, 123456789, time.UTC)
		c := syncerror.NewClaim(syncerror.Record{TenantID: "t1", ErrorID: "E-1", RecordType: "salesOrder", RecordID: "SO-1",
			ErrorCode: "X", Message: "m", OccurredAt: now.Add(-time.Minute)}, syncerror.SourceWebhook, "msg_1", now)
		c.Retry.Occurrences, c.Retry.FirstSeen, c.Retry.LastSeen = 1, now, now
		if res, _, err := s.Fold(ctx, c, "k1"); err != nil || res != syncerror.FoldCreated {
			t.Fatalf("fold: %v %v", res, err)
		}
		for _, name := range []string{"claimed_at", "first_seen", "diagnosis_attempts", "webhook_id"} {
			if _, ok := s.item(c.ID)[name]; ok {
				t.Errorf("a new row carries %s", name)
			}
		}
		got, err := s.Get(ctx, "t1", c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.WebhookID != "msg_1" {
			t.Errorf("read back: webhook-id %q, want msg_1 (from the claim's history entry)", got.WebhookID)
		}
		if !got.ClaimedAt.Equal(now) || !got.Retry.FirstSeen.Equal(now) || !got.Retry.LastSeen.Equal(now) || got.DiagnosisAttempts != 0 {
			t.Errorf("read back: claimed %v, first seen %v, last seen %v, %d attempts; want %v three times and 0",
				got.ClaimedAt, got.Retry.FirstSeen, got.Retry.LastSeen, got.DiagnosisAttempts, now)
		}
		// A row as written before: the three attributes stored, the first two with values
		// claimed_sort does not hold (they are read, not derived).
		old := claimItem(c)
		old["id"], old["claimed_sort"] = dynamostore.Str("se_old"), dynamostore.Str(dynamostore.FormatTime(now)+"#se_old")
		old["claimed_at"] = dynamostore.Str(dynamostore.FormatTime(now.Add(-time.Hour)))
		old["first_seen"] = dynamostore.Str(dynamostore.FormatTime(now.Add(-2 * time.Hour)))
		old["diagnosis_attempts"] = dynamostore.Num(2)
		old["webhook_id"] = dynamostore.Str("msg_own")
		s.put(old)
		was, err := s.Get(ctx, "t1", "se_old")
		if err != nil {
			t.Fatal(err)
		}
		if !was.ClaimedAt.Equal(now.Add(-time.Hour)) || !was.Retry.FirstSeen.Equal(now.Add(-2*time.Hour)) || was.DiagnosisAttempts != 2 ||
			was.WebhookID != "msg_own" {
			t.Errorf("a row written before: claimed %v, first seen %v, %d attempts, webhook-id %q; want its own",
				was.ClaimedAt, was.Retry.FirstSeen, was.DiagnosisAttempts, was.WebhookID)
		}
		// A row whose history does not begin with its webhook claim keeps the id stored.
		flow := syncerror.NewClaim(syncerror.Record{TenantID: "t1", ErrorID: "E-2", RecordType: "salesOrder", RecordID: "SO-2",
			ErrorCode: "X", Message: "m", OccurredAt: now}, syncerror.SourceFlow, "evt_9", now)
		if _, err := s.Claim(ctx, flow); err != nil {
			t.Fatal(err)
		}
		if dynamostore.GetString(s.item(flow.ID), "webhook_id") != "evt_9" {
			t.Errorf("a flow's row does not store its event id")
		}
		// A row folded again keeps its first sighting, and the diagnosis counts from none.
		later := now.Add(time.Minute)
		again := c
		again.ClaimedAt, again.Retry.FirstSeen, again.Retry.LastSeen = later, later, later
		if res, _, err := s.Fold(ctx, again, "k2"); err != nil || res != syncerror.FoldOccurrence {
			t.Fatalf("fold again: %v %v", res, err)
		}
		if _, err := s.BeginDiagnosis(ctx, "t1", c.ID, later, later); err != nil {
			t.Fatal(err)
		}
		got2, err := s.Get(ctx, "t1", c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !got2.ClaimedAt.Equal(now) || !got2.Retry.FirstSeen.Equal(now) || !got2.Retry.LastSeen.Equal(later) ||
			got2.Retry.Occurrences != 2 || got2.DiagnosisAttempts != 1 {
			t.Errorf("after a second occurrence and a diagnosis: claimed %v, seen %v–%v, %d occurrences, %d attempts",
				got2.ClaimedAt, got2.Retry.FirstSeen, got2.Retry.LastSeen, got2.Retry.Occurrences, got2.DiagnosisAttempts)
		}
		if !reflect.DeepEqual(got2.History, got.History) {
			t.Errorf("history changed by a fold: %v", got2.History)
		}
	})
}

// An update's write token is 16 characters (96 random bits), not a lease's 32: it stays on
// the row, and its 16 bytes kept the sample's approved row one over 2 KB (issue 37 §1).
func TestWriteTokenIsShortAndFresh(t *testing.T) {
	s := &DynamoClaims{}
	seen := map[string]bool{}
	for range 1000 {
		tok := s.writeToken()
		if len(tok) != 16 || seen[tok] {
			t.Fatalf("write token %q: %d characters (want 16), seen before %v", tok, len(tok), seen[tok])
		}
		seen[tok] = true
	}
}
