package dynamo

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/syncassist/syncassist/infra/emulators/emutest"
	"github.com/syncassist/syncassist/shared/blueprint"
	"github.com/syncassist/syncassist/shared/dynamostore"
	"github.com/syncassist/syncassist/shared/syncerror"
)

// A row approved before revert marks were kept has neither attribute, reads as a write
// whose reverts are not marked, and can still be marked by a revert of this version; the
// marks are in no index, so marking writes no by_status entry. A row the first marking
// version marked (one string, revert_sent) reads as marked, and a revert of this version
// adds its own mark beside that one.
func TestRevertMarksOnARowWrittenBeforeThem(t *testing.T) {
	for _, name := range []string{attrRevertsMarked, attrRevertMarks, attrRevertSentOld} {
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
		if err != nil || got.Applied == nil || got.Applied.RevertsMarked || got.Applied.RevertMarks != nil {
			t.Fatalf("a row from before marks: %+v %v", got.Applied, err)
		}
		m := syncerror.NewRevertMark(now)
		if err := s.MarkRevertSent(ctx, "t1", c.ID, *got.Applied, m); err != nil {
			t.Fatal(err)
		}
		it := s.item(c.ID)
		set, _ := it[attrRevertMarks].(*types.AttributeValueMemberSS)
		if set == nil || !reflect.DeepEqual(set.Value, []string{dynamostore.FormatTime(now) + "#" + m.Token}) ||
			dynamostore.GetString(it, "updated_at") != dynamostore.FormatTime(now) {
			t.Fatalf("marked item: %s %+v, updated_at %q", attrRevertMarks, it[attrRevertMarks], dynamostore.GetString(it, "updated_at"))
		}

		// The first marking version's single mark.
		old := syncerror.NewRevertMark(now.Add(-time.Second))
		it = claimItem(c)
		it[attrRevertsMarked] = &types.AttributeValueMemberBOOL{Value: true}
		it[attrRevertSentOld] = dynamostore.Str(dynamostore.FormatTime(old.At) + "#" + old.Token)
		s.put(it)
		if got, err := s.Get(ctx, "t1", c.ID); err != nil || !reflect.DeepEqual(got.Applied.RevertMarks, []syncerror.RevertMark{old}) {
			t.Fatalf("a row marked by the first marking version: %+v %v", got.Applied, err)
		}
		if err := s.MarkRevertSent(ctx, "t1", c.ID, *got.Applied, m); err != nil {
			t.Fatal(err)
		}
		if got, err := s.Get(ctx, "t1", c.ID); err != nil || !reflect.DeepEqual(got.Applied.RevertMarks, []syncerror.RevertMark{old, m}) {
			t.Fatalf("marked beside the first version's mark: %+v %v", got.Applied, err)
		}
	})
}

// A row item carries the marks as claimFrom reads them; a mark that is not one fails the
// read rather than read as no mark (a retry would take it for no revert sent).
func TestRevertMarksRoundTripThroughARowItem(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 123456789, time.UTC)
	c := syncerror.NewClaim(syncerror.Record{TenantID: "t1", ErrorID: "E-1", RecordType: "salesOrder", RecordID: "SO-1",
		ErrorCode: "X", Message: "m", OccurredAt: now}, syncerror.SourceWebhook, "msg_1", now)
	m1, m2 := syncerror.NewRevertMark(now), syncerror.NewRevertMark(now.Add(time.Second))
	c.Status, c.Applied = syncerror.StatusApproved, &syncerror.AppliedWrite{Key: "k", At: now, RevertsMarked: true,
		RevertMarks: []syncerror.RevertMark{m1, m2}}
	it := claimItem(c)
	got, err := claimFrom(it)
	if err != nil || !reflect.DeepEqual(got.Applied, c.Applied) {
		t.Fatalf("read back %+v (%v), want %+v", got.Applied, err, c.Applied)
	}
	it[attrRevertMarks] = &types.AttributeValueMemberSS{Value: []string{revertMarkString(m1), "not a mark"}}
	if _, err := claimFrom(it); err == nil {
		t.Fatal("a malformed mark read as a row")
	}
	delete(it, attrRevertMarks)
	it[attrRevertSentOld] = dynamostore.Str("not a mark either")
	if _, err := claimFrom(it); err == nil {
		t.Fatal("a malformed mark of the first marking version read as a row")
	}
}
