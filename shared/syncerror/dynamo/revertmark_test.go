package dynamo

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// A row approved before revert marks were kept has neither attribute, reads as a write
// whose reverts are not marked, and can still be marked by a revert of this version; the
// marks are in no index, so marking writes no by_status entry.
func TestRevertMarksOnARowWrittenBeforeThem(t *testing.T) {
	for _, name := range []string{attrRevertsMarked, attrRevertSent} {
		if slices.Contains(blueprint.ByStatusAttributes, name) {
			t.Errorf("by_status projects %s: marking a row would write the index", name)
		}
	}
	emutest.Each(t, func(t *testing.T, e emutest.Emulator) {
		ctx := context.Background()
		s := newRawRows(t, e)
		now := time.Date(2026, 11, 29, 10, 0, 0, 123456789, time.UTC)
		c := syncerror.NewClaim(syncerror.Record{TenantID: "t1", ErrorID: "E-1", RecordType: "salesOrder", RecordID: "SO-1",
			ErrorCode: "X", Message: "m", OccurredAt: now}, syncerror.SourceWebhook, "msg_1", now)
		c.Status, c.Applied = syncerror.StatusApproved, &syncerror.AppliedWrite{Key: "k", At: now}
		s.put(claimItem(c)) // as the version before marks stored it
		got, err := s.Get(ctx, "t1", c.ID)
		if err != nil || got.Applied == nil || got.Applied.RevertsMarked || got.Applied.RevertSent != nil {
			t.Fatalf("a row from before marks: %+v %v", got.Applied, err)
		}
		m := syncerror.NewRevertMark(now)
		if err := s.MarkRevertSent(ctx, "t1", c.ID, *got.Applied, m); err != nil {
			t.Fatal(err)
		}
		it := s.item(c.ID)
		if dynamostore.GetString(it, attrRevertSent) != dynamostore.FormatTime(now)+"#"+m.Token ||
			dynamostore.GetString(it, "updated_at") != dynamostore.FormatTime(now) {
			t.Fatalf("marked item: %s %q, updated_at %q", attrRevertSent, dynamostore.GetString(it, attrRevertSent), dynamostore.GetString(it, "updated_at"))
		}
	})
}

// A row item carries both marks as claimFrom reads them; a mark that is not one fails the
// read rather than read as no mark (a retry would take it for no revert sent).
func TestRevertMarksRoundTripThroughARowItem(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 123456789, time.UTC)
	c := syncerror.NewClaim(syncerror.Record{TenantID: "t1", ErrorID: "E-1", RecordType: "salesOrder", RecordID: "SO-1",
		ErrorCode: "X", Message: "m", OccurredAt: now}, syncerror.SourceWebhook, "msg_1", now)
	m := syncerror.NewRevertMark(now)
	c.Status, c.Applied = syncerror.StatusApproved, &syncerror.AppliedWrite{Key: "k", At: now, RevertsMarked: true, RevertSent: &m}
	it := claimItem(c)
	got, err := claimFrom(it)
	if err != nil || !reflect.DeepEqual(got.Applied, c.Applied) {
		t.Fatalf("read back %+v (%v), want %+v", got.Applied, err, c.Applied)
	}
	it[attrRevertSent] = dynamostore.Str("not a mark")
	if _, err := claimFrom(it); err == nil {
		t.Fatal("a malformed mark read as a row")
	}
}
